// The Blink-tree on tasks against std::map, under every synchronization
// kind, with 1 and 2 workers and prefetching on and off: concurrent inserts
// (with repeated keys), then lookups, updates and inserts all at once.
// Under TSan this is the concurrency test of both the tree and the runtime.

#include "weave/tasks/blink_tree.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace weave::tasks {
namespace {

// sync, workers, prefetch distance, whether the top levels count as cached
// (blink_tree::set_cached_bytes: their tasks run on at once)
using config = std::tuple<sync_kind, unsigned, unsigned, bool>;

std::string name(const ::testing::TestParamInfo<config>& info) {
  std::string sync = to_string(std::get<0>(info.param));
  std::replace(sync.begin(), sync.end(), '-', '_');  // a test name takes no '-'
  return sync + "_w" + std::to_string(std::get<1>(info.param)) + "_d" +
         std::to_string(std::get<2>(info.param)) + (std::get<3>(info.param) ? "_cached" : "");
}

struct op {
  enum kind_t { lookup, insert, update } kind;
  std::uint64_t key;
  std::uint64_t value;  // insert/update: to write; lookup: expected (if expect_found)
  bool expect_found;
};

// Issues a list of operations with `in_flight` of them in the air per
// worker; each completion checks its answer and issues the next.
struct driver {
  blink_tree* tree;
  const std::vector<op>* ops;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> wrong{0};
  std::atomic<std::size_t> done{0};

  void issue(context& ctx) {
    const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
    if (i >= ops->size()) return;
    const op& o = (*ops)[i];
    const auto k = reinterpret_cast<void*>(this);
    switch (o.kind) {
      case op::lookup: tree->lookup(ctx, o.key, &finished_lookup, k); break;
      case op::insert: tree->insert(ctx, o.key, o.value, &finished_write, k); break;
      case op::update: tree->update(ctx, o.key, o.value, &finished_write, k); break;
    }
  }

  // Lookups of keys no one writes meanwhile must see the oracle's value.
  static void finished_lookup(context& ctx, void* self, std::uint64_t key, std::uint64_t value, bool found) {
    auto& d = *static_cast<driver*>(self);
    const std::uint64_t expected = key * 7 + 1;
    if (found != (key % 5 != 0) || (found && value != expected)) d.wrong.fetch_add(1);
    d.done.fetch_add(1);
    d.issue(ctx);
  }
  static void finished_write(context& ctx, void* self, std::uint64_t, std::uint64_t, bool) {
    auto& d = *static_cast<driver*>(self);
    d.done.fetch_add(1);
    d.issue(ctx);
  }

  void run(runtime& rt, std::size_t in_flight) {
    next = 0;
    done = 0;
    rt.run([&](context& ctx) {
      for (std::size_t i = 0; i < in_flight; ++i) issue(ctx);
    });
  }
};

void expect_same(const blink_tree& tree, const std::map<std::uint64_t, std::uint64_t>& oracle) {
  EXPECT_EQ(tree.check(), "");
  std::vector<std::pair<std::uint64_t, std::uint64_t>> entries;
  tree.for_each([&](std::uint64_t k, std::uint64_t v) { entries.emplace_back(k, v); });
  ASSERT_EQ(entries.size(), oracle.size());
  EXPECT_TRUE(std::equal(entries.begin(), entries.end(), oracle.begin(),
                         [](const auto& a, const auto& b) { return a.first == b.first && a.second == b.second; }));
  for (const auto& [k, v] : oracle) ASSERT_EQ(tree.find(k), v) << k;
  EXPECT_FALSE(tree.find(oracle.empty() ? 1 : oracle.rbegin()->first + 1).has_value());
}

class blink_tree_test : public ::testing::TestWithParam<config> {};

TEST_P(blink_tree_test, agrees_with_a_map_under_concurrent_inserts_lookups_and_updates) {
  const auto [sync, workers, distance, cached] = GetParam();
  runtime::options o;
  o.workers = workers;
  o.prefetch_distance = distance;
  runtime rt(o);
  blink_tree tree(rt, sync);
  // Counted on the empty tree, the root's level is the leaves', so every
  // level counts as cached while the tree grows (inserts go down by new
  // tasks: only their moves right run on at once).
  EXPECT_EQ(tree.set_cached_bytes(cached ? blink_tree::node_bytes : 0), cached ? 1u : 0u);
  std::mt19937_64 rng(workers * 10 + distance);
  std::map<std::uint64_t, std::uint64_t> oracle;

  // 1. Inserts of keys that are not multiples of 5, in random order, with
  // some keys inserted twice (the second overwrites with the same value).
  std::vector<op> ops;
  for (std::uint64_t k = 0; k < 30000; ++k) {
    if (k % 5 == 0) continue;
    ops.push_back({op::insert, k, k * 7 + 1, false});
    if (k % 11 == 0) ops.push_back({op::insert, k, k * 7 + 1, false});
    oracle[k] = k * 7 + 1;
  }
  std::shuffle(ops.begin(), ops.end(), rng);
  driver d;
  d.tree = &tree;
  d.ops = &ops;
  d.run(rt, 24);
  EXPECT_EQ(d.done.load(), ops.size());
  expect_same(tree, oracle);
  EXPECT_GE(tree.height(), 3u);

  // 2. All at once: lookups of keys below 20000 (never written now, misses
  // included), updates of existing keys at or above 20000, each once, and
  // inserts of new keys (multiples of 5) at or above 30000. Cached now:
  // every level, so that a lookup or an update (its leaf's writer too) runs
  // whole in one go; or, with prefetching on, all but the leaves, so that
  // operations go from running on to queueing.
  if (cached && distance == 0) {
    EXPECT_EQ(tree.set_cached_bytes(SIZE_MAX), tree.height());
  } else if (cached) {
    EXPECT_EQ(tree.set_cached_bytes(blink_tree::node_bytes * 32), tree.height() - 1);
  }
  ops.clear();
  std::vector<std::uint64_t> updated;
  for (std::uint64_t k = 20000; k < 30000; ++k) {
    if (k % 5 != 0 && k % 3 == 0) updated.push_back(k);
  }
  for (std::uint64_t k : updated) {
    ops.push_back({op::update, k, k * 13, false});
    oracle[k] = k * 13;
  }
  for (std::uint64_t k = 30000; k < 60000; k += 5) {
    ops.push_back({op::insert, k, k * 3, false});
    oracle[k] = k * 3;
  }
  ops.push_back({op::update, 5, 1, false});  // absent: inserts nothing
  std::uniform_int_distribution<std::uint64_t> any(0, 19999);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t k = any(rng);
    ops.push_back({op::lookup, k, k * 7 + 1, k % 5 != 0});
  }
  std::shuffle(ops.begin(), ops.end(), rng);
  d.run(rt, 24);
  EXPECT_EQ(d.done.load(), ops.size());
  EXPECT_EQ(d.wrong.load(), 0u);
  expect_same(tree, oracle);
}

INSTANTIATE_TEST_SUITE_P(tasks, blink_tree_test,
                         ::testing::Combine(::testing::Values(sync_kind::latch, sync_kind::rwlatch,
                                                              sync_kind::schedule, sync_kind::optimistic,
                                                              sync_kind::optimistic_latch),
                                            ::testing::Values(1u, 2u), ::testing::Values(0u, 3u),
                                            ::testing::Bool()),
                         name);

TEST(blink_tree, refuses_the_reserved_key) {
  runtime rt(runtime::options{});
  blink_tree tree(rt);
  bool refused = false;
  rt.run([&](context& ctx) {
    try {
      tree.insert(ctx, blink_tree::no_key, 1, nullptr, nullptr);
    } catch (const std::invalid_argument&) {
      refused = true;
    }
  });
  EXPECT_TRUE(refused);
  EXPECT_EQ(tree.check(), "");
}

// Inserts of every key in [1, last) that is not a multiple of 5 (lookups
// expect those absent), recorded in `oracle`.
std::vector<op> inserts_below(std::uint64_t last, std::map<std::uint64_t, std::uint64_t>& oracle) {
  std::vector<op> ops;
  for (std::uint64_t k = 1; k < last; ++k) {
    if (k % 5 == 0) continue;
    ops.push_back({op::insert, k, k * 7 + 1, false});
    oracle[k] = k * 7 + 1;
  }
  return ops;
}

TEST(blink_tree, can_be_reannotated_between_runs) {
  runtime::options o;
  o.workers = 2;
  runtime rt(o);
  blink_tree tree(rt, sync_kind::latch);
  std::map<std::uint64_t, std::uint64_t> oracle;
  std::vector<op> ops = inserts_below(5000, oracle);
  driver d;
  d.tree = &tree;
  d.ops = &ops;
  d.run(rt, 8);
  for (sync_kind s :
       {sync_kind::optimistic, sync_kind::schedule, sync_kind::rwlatch, sync_kind::optimistic_latch}) {
    tree.set_sync(s);
    ops.clear();
    for (std::uint64_t k = 1; k < 4000; k += 3) ops.push_back({op::lookup, k, k * 7 + 1, k % 5 != 0});
    d.run(rt, 8);
    EXPECT_EQ(d.wrong.load(), 0u) << to_string(s);
  }
  // Refused, not taken: the tree stays as it was.
  EXPECT_THROW(tree.set_sync(sync_kind::none), std::invalid_argument);
  EXPECT_EQ(tree.sync(), sync_kind::optimistic_latch);
  EXPECT_THROW(blink_tree(rt, sync_kind::none), std::invalid_argument);
  // The largest key marks a node's open end: never stored, never found.
  EXPECT_FALSE(tree.find(blink_tree::no_key).has_value());
  expect_same(tree, oracle);
}

// Rebalancing gives each worker an even share of every level's touches,
// keeps the links' owners right, and the tree answers as before, also under
// schedule (where owners decide where tasks run).
TEST(blink_tree, rebalances_owners_between_runs) {
  runtime::options o;
  o.workers = 2;
  runtime rt(o);
  blink_tree tree(rt, sync_kind::optimistic);
  std::map<std::uint64_t, std::uint64_t> oracle;
  std::vector<op> ops = inserts_below(40000, oracle);
  std::mt19937_64 rng(7);
  std::shuffle(ops.begin(), ops.end(), rng);
  driver d;
  d.tree = &tree;
  d.ops = &ops;
  d.run(rt, 16);
  ASSERT_GE(tree.height(), 3u);
  for (unsigned workers : {2u, 3u, 1u, 2u}) {
    const double largest = tree.rebalance(workers);
    EXPECT_GE(largest, 1.0 / workers - 1e-9);
    // The root alone is one level's touches: with two or more workers a
    // share cannot be below 1 / height, nor need it be far above the even one.
    EXPECT_LE(largest, std::max(1.0 / workers, 1.0 / tree.height()) + 0.05) << workers << " workers";
    EXPECT_EQ(tree.check(), "");
  }
  expect_same(tree, oracle);
  for (sync_kind s : {sync_kind::schedule, sync_kind::optimistic, sync_kind::optimistic_latch}) {
    tree.set_sync(s);
    ops.clear();
    for (std::uint64_t k = 1; k < 40000; k += 7) ops.push_back({op::lookup, k, k * 7 + 1, k % 5 != 0});
    for (std::uint64_t k = 40000; k < 50000; k += 5) {
      ops.push_back({op::insert, k, k * 3, false});
      oracle[k] = k * 3;
    }
    d.run(rt, 16);
    EXPECT_EQ(d.wrong.load(), 0u) << to_string(s);
  }
  expect_same(tree, oracle);
  EXPECT_THROW(tree.rebalance(0), std::invalid_argument);
}

}  // namespace
}  // namespace weave::tasks
