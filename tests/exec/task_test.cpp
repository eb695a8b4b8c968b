#include "weave/exec/task.hpp"

#include <gtest/gtest.h>

#include <coroutine>
#include <memory>
#include <stdexcept>
#include <string>

#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/sync_wait.hpp"

namespace weave {
namespace {

// What a task may await (the rejection itself is a compile error, checked by
// exec.foreign_awaitable_rejected).
static_assert(weave_awaitable<task<int>>);
static_assert(weave_awaitable<task<void>&>);
static_assert(weave_awaitable<load_awaitable<interleaved_policy, int>>);
static_assert(weave_awaitable<prefetch_awaitable<sequential_policy>>);
static_assert(!weave_awaitable<std::suspend_always>);
static_assert(!weave_awaitable<std::suspend_never>);

task<int> answer(bool& started) {
  started = true;
  co_return 42;
}

TEST(task, does_not_start_until_awaited) {
  bool started = false;
  task<int> t = answer(started);
  EXPECT_FALSE(started);
  EXPECT_EQ(sync_wait(std::move(t)), 42);
  EXPECT_TRUE(started);
}

task<int> add_one(task<int> inner) { co_return co_await std::move(inner) + 1; }

task<int> chain(int depth) {
  if (depth == 0) co_return 0;
  co_return co_await chain(depth - 1) + 1;
}

TEST(task, awaiting_a_task_returns_its_value) {
  bool started = false;
  EXPECT_EQ(sync_wait(add_one(answer(started))), 43);
}

// Sanitizers instrument function exits, so symmetric transfer stops being a tail call.
constexpr bool sanitized = WEAVE_BOUNDED_TRANSFER;

TEST(task, deep_nesting_does_not_grow_the_stack) {
  if (sanitized) GTEST_SKIP() << "symmetric transfer is not a tail call under a sanitizer";
  // Symmetric transfer: 200k nested awaits would overflow a native stack.
  EXPECT_EQ(sync_wait(chain(200'000)), 200'000);
}

task<int> sum_of(int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += co_await chain(1);
  co_return sum;
}

TEST(task, a_long_loop_of_awaits_does_not_grow_the_stack) {
  // Each awaited task finishes without suspending; in every build (with or
  // without the tail calls of symmetric transfer) the loop runs in a flat
  // stack.
  EXPECT_EQ(sync_wait(sum_of(1'000'000)), 1'000'000);
}

task<int> thrower() {
  throw std::runtime_error("boom");
  co_return 1;
}

task<int> forwards() { co_return co_await thrower(); }

TEST(task, exception_propagates_to_the_awaiter) {
  EXPECT_THROW(sync_wait(thrower()), std::runtime_error);
  EXPECT_THROW(sync_wait(forwards()), std::runtime_error);
}

task<int> catches() {
  try {
    co_await thrower();
  } catch (const std::runtime_error& e) {
    co_return static_cast<int>(std::string(e.what()).size());
  }
  co_return -1;
}

TEST(task, awaiter_can_catch_what_the_callee_threw) { EXPECT_EQ(sync_wait(catches()), 4); }

task<int&> reference_to(int& x) { co_return x; }

TEST(task, result_by_reference_refers_to_the_object) {
  int x = 5;
  int& r = sync_wait(reference_to(x));
  r = 7;
  EXPECT_EQ(x, 7);
}

task<void> set(int& x, int v) {
  x = v;
  co_return;
}

task<void> set_twice(int& x) {
  co_await set(x, 1);
  co_await set(x, x + 1);
}

TEST(task, void_tasks_nest) {
  int x = 0;
  sync_wait(set_twice(x));
  EXPECT_EQ(x, 2);
}

task<std::unique_ptr<int>> make_unique_value() { co_return std::make_unique<int>(9); }

TEST(task, move_only_results_are_moved_out) {
  auto p = sync_wait(make_unique_value());
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, 9);
}

TEST(task, is_move_only_and_a_moved_from_task_is_empty) {
  static_assert(!std::is_copy_constructible_v<task<int>>);
  bool started = false;
  task<int> a = answer(started);
  task<int> b = std::move(a);
  EXPECT_FALSE(a.valid());
  EXPECT_TRUE(b.valid());
}

struct destruction_counter {
  int* count;
  ~destruction_counter() { ++*count; }
};

task<int> holds_counter(int* count) {
  destruction_counter c{count};
  co_return 1;
}

TEST(task, destroying_an_unstarted_task_frees_its_frame) {
  int destroyed = 0;
  { task<int> t = holds_counter(&destroyed); }
  EXPECT_EQ(destroyed, 0);  // the local was never constructed: the body never ran
  EXPECT_EQ(sync_wait(holds_counter(&destroyed)), 1);
  EXPECT_EQ(destroyed, 1);
}

// A nested task that suspends: the scheduler must resume the inner frame.
task<int> inner_loads(const int* data, int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += co_await load<interleaved_policy>(data[i]);
  co_return sum;
}

task<int> outer_loads(const int* data, int n) {
  int a = co_await inner_loads(data, n);
  int b = co_await inner_loads(data, n);
  co_return a + b + co_await load<interleaved_policy>(data[0]);
}

TEST(task, nested_tasks_suspend_and_resume_through_a_scheduler) {
  const int data[] = {1, 2, 3, 4};
  std::vector<int> got(10);
  interleaved_scheduler scheduler{4};
  auto stats = scheduler.run(
      got.size(), [&](auto, std::size_t) { return outer_loads(data, 4); },
      [&](std::size_t i, int v) { got[i] = v; });
  for (int v : got) EXPECT_EQ(v, 21);
  EXPECT_EQ(stats.suspensions, got.size() * 9);
}

}  // namespace
}  // namespace weave
