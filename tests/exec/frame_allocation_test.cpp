// Counts every global operator new in this binary to show that, once the
// frame pool is warm, running lookups allocates nothing.

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

TEST(frame_allocation, btree_lookup_allocates_nothing_per_lookup) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
  for (std::uint64_t k = 0; k < 50'000; ++k) pairs.emplace_back(k * 2, k);
  const btree tree = btree::bulk_load(pairs);
  expect_no_allocation_in_any_scheduler(
      [&](auto policy, std::size_t i) { return find<decltype(policy)>(tree, i * 2); });
}

}  // namespace
}  // namespace weave
