// The batch that follows conflicts: its decisions on made-up windows, and
// on transactions that really conflict. (That every request's result is
// delivered once is checked with every other scheduler, in every_mode.hpp.)

#include "weave/txn/contention_scheduler.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace weave::txn {
namespace {

TEST(contention_controller, halves_the_batch_while_transactions_conflict_and_grows_it_back_by_one) {
  contention_controller c({.max_group = 8, .window = 100});
  EXPECT_EQ(c.group(), 8u);
  c.record(99, 50);
  EXPECT_EQ(c.group(), 8u) << "the window is not full yet";
  EXPECT_EQ(c.wanted(), 1u);
  c.record(1, 0);  // 50 conflicts in 100: over 5%
  EXPECT_EQ(c.group(), 4u);
  c.record(100, 6);
  EXPECT_EQ(c.group(), 2u);
  c.record(100, 100);
  c.record(100, 100);
  EXPECT_EQ(c.group(), 1u);
  c.record(100, 100);
  EXPECT_EQ(c.group(), 1u) << "never below one";
  c.record(100, 3);  // between 1% and 5%: kept
  EXPECT_EQ(c.group(), 1u);
  for (std::size_t want = 2; want <= 8; ++want) {
    c.record(100, 0);
    EXPECT_EQ(c.group(), want);
  }
  c.record(100, 0);
  EXPECT_EQ(c.group(), 8u) << "never above max_group";
  EXPECT_EQ(c.windows(), 14u);
  EXPECT_EQ(c.changes(), 10u);  // three halvings, seven steps up
}

TEST(contention_controller, keeps_the_batch_at_either_threshold_and_spans_calls_for_a_window) {
  contention_controller c({.max_group = 8, .window = 200});
  c.record(100, 4);
  c.record(100, 6);  // exactly 5 in 100: not over
  EXPECT_EQ(c.group(), 8u);
  c.record(200, 200);
  EXPECT_EQ(c.group(), 4u);
  c.record(150, 1);
  c.record(50, 1);  // exactly 1 in 100: not under
  EXPECT_EQ(c.group(), 4u);
  c.record(200, 1);
  EXPECT_EQ(c.group(), 5u);
  EXPECT_EQ(c.windows(), 4u);
  EXPECT_DOUBLE_EQ(c.mean_group(), (8 + 8 + 4 + 4) / 4.0);
}

TEST(contention_controller, refuses_options_that_cannot_work) {
  EXPECT_THROW(contention_controller({.max_group = 0}), std::invalid_argument);
  EXPECT_THROW(contention_controller({.max_group = 257}), std::invalid_argument);
  EXPECT_THROW(contention_controller({.window = 0}), std::invalid_argument);
  EXPECT_THROW(contention_controller({.shrink_above = 0.01, .grow_below = 0.05}), std::invalid_argument);
}

template <class Policy>
task<commit_status> write(engine& db, table& t, std::uint64_t key) {
  transaction x = db.begin();
  if (co_await x.put<Policy>(t, key, "w") != status::ok) {
    x.abort();
    co_return commit_status::write_conflict;
  }
  co_return co_await x.commit<Policy>();
}

// Records 0..n-1 of `t`, committed.
void load_keys(engine& db, table& t, std::uint64_t n) {
  transaction load = db.begin();
  for (std::uint64_t k = 0; k < n; ++k) {
    ASSERT_EQ(sync_wait(load.insert<sequential_policy>(t, k, "v")), status::ok);
  }
  ASSERT_EQ(load.commit(), commit_status::committed);
}

class contention_scheduler_modes : public ::testing::TestWithParam<bool> {};  // pipeline or strict batches

TEST_P(contention_scheduler_modes,
       runs_one_at_a_time_while_writes_conflict_and_the_full_batch_once_they_stop) {
  engine db;
  table& t = db.create_table("t");
  ASSERT_NO_FATAL_FAILURE(load_keys(db, t, 1000));
  // Holds a pending write on key 0: every write to it conflicts meanwhile.
  transaction holder = db.begin();
  ASSERT_EQ(sync_wait(holder.put<sequential_policy>(t, 0, "held")), status::ok);

  contention_scheduler s({.max_group = 8, .window = 32}, GetParam());
  std::size_t conflicts = 0, commits = 0;
  const auto count = [&](std::size_t, commit_status r) {
    (r == commit_status::committed ? commits : conflicts) += 1;
  };
  const std::uint64_t before = conflicts_on_this_thread();
  s.run(
      4 * 32, [&](auto policy, std::size_t) { return write<decltype(policy)>(db, t, 0); }, count);
  EXPECT_EQ(conflicts, 128u);
  EXPECT_EQ(conflicts_on_this_thread() - before, 128u);
  EXPECT_EQ(s.controller().group(), 1u) << "8, 4, 2, 1 over four windows of conflicts";

  ASSERT_EQ(holder.commit(), commit_status::committed);
  // Seven clean windows (some a little longer: whole batches) take it from
  // one to eight.
  s.run(
      320, [&](auto policy, std::size_t i) { return write<decltype(policy)>(db, t, 1 + i); }, count);
  EXPECT_EQ(commits, 320u);
  EXPECT_EQ(s.controller().group(), 8u) << "one more after each clean window";
}

TEST_P(contention_scheduler_modes, runs_a_batch_of_one_in_order_with_plain_loads_unless_told_not_to) {
  engine db;
  table& t = db.create_table("t");
  ASSERT_NO_FATAL_FAILURE(load_keys(db, t, 64));
  for (const bool in_order : {true, false}) {
    contention_options o{.max_group = 1, .window = 16};
    o.sequential_at_one = in_order;
    contention_scheduler s(o, GetParam());
    std::size_t suspending = 0, commits = 0;
    s.run(
        64,
        [&](auto policy, std::size_t i) {
          if (decltype(policy)::suspends) ++suspending;
          return write<decltype(policy)>(db, t, i);
        },
        [&](std::size_t, commit_status r) { commits += r == commit_status::committed ? 1 : 0; });
    EXPECT_EQ(commits, 64u);
    EXPECT_EQ(suspending, in_order ? 0u : 64u) << (in_order ? "in order" : "a ring of one");
    EXPECT_EQ(s.controller().windows(), 4u) << "the controller still decides";
  }
}

INSTANTIATE_TEST_SUITE_P(both, contention_scheduler_modes, ::testing::Values(false, true),
                         [](const auto& named) { return named.param ? "pipeline" : "batches"; });

// What the counter counts: conflicts, not a caller's rollback.
TEST(conflicts_on_this_thread, counts_each_conflicted_transaction_once_and_no_rollback) {
  for (const isolation level : {isolation::snapshot, isolation::serializable}) {
    engine db(level);
    table& t = db.create_table("t");
    {
      transaction load = db.begin();
      ASSERT_EQ(sync_wait(load.insert<sequential_policy>(t, 1, "x0")), status::ok);
      ASSERT_EQ(sync_wait(load.insert<sequential_policy>(t, 2, "y0")), status::ok);
      ASSERT_EQ(load.commit(), commit_status::committed);
    }
    const std::uint64_t start = conflicts_on_this_thread();
    {
      transaction rolled_back = db.begin();
      ASSERT_EQ(sync_wait(rolled_back.put<sequential_policy>(t, 1, "x1")), status::ok);
      rolled_back.abort();
    }
    EXPECT_EQ(conflicts_on_this_thread(), start) << "a rollback is no conflict";
    {
      transaction first = db.begin(), second = db.begin();
      ASSERT_EQ(sync_wait(first.put<sequential_policy>(t, 1, "x2")), status::ok);
      EXPECT_EQ(sync_wait(second.put<sequential_policy>(t, 1, "x3")), status::conflict);
      EXPECT_EQ(second.commit(), commit_status::write_conflict);  // aborts it
      ASSERT_EQ(first.commit(), commit_status::committed);
    }  // `second` is destroyed finished: counted once
    EXPECT_EQ(conflicts_on_this_thread(), start + 1);
    // Write skew: a serialization failure under the serializable level.
    transaction t1 = db.begin(), t2 = db.begin();
    for (transaction* x : {&t1, &t2}) {
      ASSERT_TRUE(sync_wait(x->get<sequential_policy>(t, 1)).has_value());
      ASSERT_TRUE(sync_wait(x->get<sequential_policy>(t, 2)).has_value());
    }
    ASSERT_EQ(sync_wait(t1.put<sequential_policy>(t, 1, "x4")), status::ok);
    ASSERT_EQ(sync_wait(t2.put<sequential_policy>(t, 2, "y4")), status::ok);
    ASSERT_EQ(t1.commit(), commit_status::committed);
    const commit_status s = t2.commit();
    const bool serializable = level == isolation::serializable;
    EXPECT_EQ(s, serializable ? commit_status::serialization_failure : commit_status::committed);
    EXPECT_EQ(conflicts_on_this_thread(), start + (serializable ? 2 : 1));
  }
}

}  // namespace
}  // namespace weave::txn
