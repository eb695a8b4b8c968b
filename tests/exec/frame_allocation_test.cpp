// Counts every global operator new in this binary to show that, once the
// frame pool is warm, running lookups allocates nothing; and that the task
// runtime, once its descriptor lists are warm, allocates nothing per task.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "weave/exec/adaptive_scheduler.hpp"
#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/index/btree.hpp"
#include "weave/index/hash_table.hpp"
#include "weave/index/sorted_array.hpp"
#include "weave/tasks/blink_tree.hpp"

namespace {
std::atomic<std::size_t> allocations{0};
}

void* operator new(std::size_t bytes) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace weave {
namespace {

template <class Scheduler, class Make>
std::size_t allocations_during(Scheduler&& scheduler, std::size_t count, Make make) {
  std::size_t checksum = 0;
  auto sink = [&](std::size_t, auto v) { checksum += static_cast<std::size_t>(v ? 1 : 0); };
  scheduler.run(count, make, sink);  // warms the pool
  const std::size_t before = allocations.load();
  scheduler.run(count, make, sink);
  const std::size_t after = allocations.load();
  EXPECT_GT(checksum, 0u);
  return after - before;
}

template <class Make>
void expect_no_allocation_in_any_scheduler(Make make) {
  constexpr std::size_t lookups = 20'000;
  EXPECT_EQ(allocations_during(sequential_scheduler{}, lookups, make), 0u);
  EXPECT_EQ(allocations_during(interleaved_scheduler{16}, lookups, make), 0u);
  EXPECT_EQ(allocations_during(batched_scheduler{16}, lookups, make), 0u);
  adaptive_options options;
  options.window = 256;
  options.recheck_interval = 2048;
  EXPECT_EQ(allocations_during(adaptive_scheduler{options}, lookups, make), 0u);
}

TEST(frame_allocation, binary_search_allocates_nothing_per_lookup) {
  std::vector<int> keys(1 << 16);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<int>(3 * i);
  const sorted_array<int> array{std::span<const int>(keys)};
  expect_no_allocation_in_any_scheduler([&](auto policy, std::size_t i) {
    return lower_bound<decltype(policy)>(array, static_cast<int>(i * 7 % 200'000));
  });
}

TEST(frame_allocation, hash_probe_allocates_nothing_per_lookup) {
  hash_table table(1 << 14);
  for (std::uint32_t k = 0; k < (1 << 14); ++k) table.insert(k * 11, k);
  expect_no_allocation_in_any_scheduler(
      [&](auto policy, std::size_t i) { return find<decltype(policy)>(table, i * 11); });
}

TEST(frame_allocation, streamed_hash_probes_allocate_nothing_per_lookup) {
  hash_table table(1 << 14);
  for (std::uint32_t k = 0; k < (1 << 14); ++k) table.insert(k * 11, k);
  expect_no_allocation_in_any_scheduler(
      streamed([&](auto policy, auto requests) { return find<decltype(policy)>(table, requests); },
               [](std::size_t i) { return std::uint64_t{i * 11}; }));
}

TEST(frame_allocation, btree_lookup_allocates_nothing_per_lookup) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
  for (std::uint64_t k = 0; k < 50'000; ++k) pairs.emplace_back(k * 2, k);
  const btree tree = btree::bulk_load(pairs);
  expect_no_allocation_in_any_scheduler(
      [&](auto policy, std::size_t i) { return find<decltype(policy)>(tree, i * 2); });
}

// Issues `count` lookups on a Blink-tree, `in_flight` per worker at a time.
struct lookup_driver {
  tasks::blink_tree* tree;
  std::size_t count;
  std::atomic<std::size_t> issued{0};
  std::atomic<std::size_t> found{0};

  void issue(tasks::context& ctx) {
    const std::size_t i = issued.fetch_add(1);
    if (i < count) tree->lookup(ctx, i % 10'000 * 3, &done, this);
  }
  static void done(tasks::context& ctx, void* self, std::uint64_t, std::uint64_t, bool hit) {
    auto& d = *static_cast<lookup_driver*>(self);
    if (hit) d.found.fetch_add(1);
    d.issue(ctx);
  }
  // Allocations during one run (thread start-up included).
  std::size_t run(tasks::runtime& rt, std::size_t n) {
    count = n;
    issued = 0;
    const std::size_t before = allocations.load();
    rt.run([&](tasks::context& ctx) {
      for (int k = 0; k < 16; ++k) issue(ctx);
    });
    return allocations.load() - before;
  }
};

TEST(task_allocation, blink_tree_lookups_on_tasks_allocate_nothing_per_operation) {
  tasks::runtime::options o;
  o.workers = 2;
  tasks::runtime rt(o);
  tasks::blink_tree tree(rt);
  rt.run([&](tasks::context& ctx) {
    if (ctx.worker() != 0) return;
    for (std::uint64_t k = 0; k < 10'000; ++k) tree.insert(ctx, k * 3, k, nullptr, nullptr);
  });
  lookup_driver lookups{&tree, 0};
  lookups.run(rt, 20'000);  // warms the descriptor lists and pools
  const std::size_t few = lookups.run(rt, 2'000);
  const std::size_t many = lookups.run(rt, 20'000);
  // 18,000 more lookups may carve a few more descriptor batches if the
  // workers interleave differently, but nothing per operation.
  EXPECT_LE(many, few + 16) << "allocations grew with the number of operations";
  EXPECT_EQ(lookups.found.load(), 42'000u);
  EXPECT_GE(tree.height(), 3u);
}

}  // namespace
}  // namespace weave
