#include "weave/exec/model.hpp"

#include <gtest/gtest.h>

#include "weave/exec/switch_cost.hpp"

namespace weave {
namespace {

TEST(model, group_size_covers_the_stall_with_the_other_operations_work) {
  // T_target = 100 - 5 = 95; each other operation covers 10 + 5 = 15; ceil(95/15) + 1 = 8.
  EXPECT_EQ(group_size({10, 100, 5}), 8u);
  // No stall: a single operation is enough.
  EXPECT_EQ(group_size({10, 0, 5}), 1u);
  // The cap holds.
  EXPECT_EQ(group_size({0.1, 1000, 0.1}, 32), 32u);
}

TEST(model, group_size_covers_the_longest_stall_not_the_mean) {
  // A search whose mean stall is 30 ns but whose deep stages wait 200 ns for
  // DRAM: the group must cover the 200. ceil((200 - 2) / 12) + 1 = 18.
  EXPECT_EQ(group_size({10, 30, 2, 200}), 18u);
  // Against ceil((30 - 2) / 12) + 1 = 4 from the mean alone.
  EXPECT_EQ(group_size({10, 30, 2}), 4u);
  // A miss latency below the mean stall changes nothing.
  EXPECT_EQ(group_size({10, 100, 5, 50}), 8u);
}

TEST(model, group_size_counts_whole_slots_and_covers_with_the_other_slots) {
  // Slots of 4: the other slots' 4 x 15 ns cover the 95 ns; ceil(95 / 60) + 1 = 3 slots.
  EXPECT_EQ(group_size({10, 100, 5}, 256, 4), 12u);
  // Nothing to hide: one slot.
  EXPECT_EQ(group_size({10, 0, 5}, 256, 4), 4u);
  // A cap below two slots still leaves two: one slot alone waits out its misses.
  EXPECT_EQ(group_size({1, 200, 1, 250}, 20, 16), 32u);
  // Otherwise the cap is in whole slots: 40 misses in flight allow 3 slots of 16.
  EXPECT_EQ(group_size({1, 200, 1, 250}, 40, 16), 48u);
  // Width 1 is Formula 3.2 as written.
  EXPECT_EQ(group_size({10, 100, 5}, 256, 1), group_size({10, 100, 5}));
}

TEST(model, max_speedup_is_sequential_over_interleaved_stage_time) {
  EXPECT_DOUBLE_EQ(max_speedup({10, 100, 5}), 110.0 / 15.0);
  // A switch dearer than the stall is a slowdown.
  EXPECT_LT(max_speedup({10, 2, 5}), 1.0);
  // The memory system's time per miss caps a stage: 110 / 20.
  EXPECT_DOUBLE_EQ(max_speedup({10, 100, 5}, 20), 110.0 / 20.0);
  EXPECT_DOUBLE_EQ(max_speedup({10, 100, 5}, 8), 110.0 / 15.0);
}

// A stage whose mean stall is a share of one miss alone takes that share of
// a miss from memory: here a fifth of a 250 ns miss, at 40 ns a miss with
// many in flight, 8 ns a stage, below the stage's own 10 + 2. A stage that
// stalls for a whole miss or more is charged a whole one.
TEST(model, the_memory_caps_a_stage_by_the_share_of_a_miss_it_stalls) {
  const stage_costs some_cached{10, 50, 2, 250};
  EXPECT_DOUBLE_EQ(memory_ns_per_stage(some_cached, 40), 8.0);
  EXPECT_DOUBLE_EQ(max_speedup(some_cached, 40), 60.0 / 12.0);
  EXPECT_DOUBLE_EQ(max_speedup(some_cached, 100), 60.0 / 20.0);
  const stage_costs all_miss{10, 300, 2, 250};
  EXPECT_DOUBLE_EQ(memory_ns_per_stage(all_miss, 40), 40.0);
  // Without a measured miss, every stage is charged a whole one.
  EXPECT_DOUBLE_EQ(memory_ns_per_stage({10, 50, 2}, 40), 40.0);
}

TEST(model, estimate_recovers_costs_from_sequential_and_interleaved_runs) {
  const stage_costs truth{12, 150, 4};
  const double stages = 3;
  const double sequential_ns = stages * (truth.compute_ns + truth.stall_ns);
  const double interleaved_ns = stages * (truth.compute_ns + truth.switch_ns);
  const stage_costs c = estimate_stage_costs(sequential_ns, interleaved_ns, stages, truth.switch_ns);
  EXPECT_DOUBLE_EQ(c.compute_ns, truth.compute_ns);
  EXPECT_DOUBLE_EQ(c.stall_ns, truth.stall_ns);
  EXPECT_DOUBLE_EQ(c.switch_ns, truth.switch_ns);
}

TEST(model, measured_switch_cost_is_finite_and_not_negative) {
  const double ns = switch_cost_ns();
  EXPECT_GE(ns, 0.0);
  EXPECT_LT(ns, 10'000.0);
  EXPECT_EQ(ns, switch_cost_ns());  // measured once
}

}  // namespace
}  // namespace weave
