#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/every_mode.hpp"
#include "weave/exec/adaptive_scheduler.hpp"
#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/request_stream.hpp"
#include "weave/exec/sequential_scheduler.hpp"

namespace weave {
namespace {

// A request that suspends `i % 5` times and returns i * i.
template <class Policy>
task<std::size_t> square_after_loads(const std::vector<int>& data, std::size_t i) {
  for (std::size_t k = 0; k < i % 5; ++k) co_await load<Policy>(data[k]);
  co_return i * i;
}

TEST(schedulers, every_mode_delivers_each_result_once) {
  const std::vector<int> data(8, 1);
  std::vector<std::size_t> expected(1000);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i * i;
  testing::expect_every_mode<std::size_t>(expected.size(), [&](auto policy, std::size_t i) {
    return square_after_loads<decltype(policy)>(data, i);
  }, expected);
}

TEST(schedulers, refuse_a_range_whose_first_is_past_its_last) {
  std::vector<int> data(16, 1);
  std::size_t calls = 0;
  const auto sink = [&](std::size_t, int) { ++calls; };
  const auto make = [&](auto policy, std::size_t i) -> task<int> {
    co_return co_await weave::load<decltype(policy)>(data[i % 16]);
  };
  auto streamed_loads = weave::streamed(
      [&](auto policy, auto requests) -> typename decltype(requests)::task_type {
        while (requests.next()) requests.deliver(co_await weave::load<decltype(policy)>(data[requests.argument() % 16]));
        co_return requests.finish();
      },
      [](std::size_t i) { return i; });
  EXPECT_THROW(sequential_scheduler{}.run(5, 2, make, sink), std::invalid_argument);
  EXPECT_THROW(sequential_scheduler{}.run(5, 2, streamed_loads, sink), std::invalid_argument);
  EXPECT_THROW(interleaved_scheduler{4}.run(5, 2, streamed_loads, sink), std::invalid_argument);
  EXPECT_THROW(batched_scheduler{4}.run(5, 2, make, sink), std::invalid_argument);
  EXPECT_THROW(adaptive_scheduler{}.run(5, 2, make, sink), std::invalid_argument);
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(sequential_scheduler{}.run(3, 3, streamed_loads, sink).requests, 0u);
  EXPECT_EQ(calls, 0u);
}

TEST(schedulers, count_suspensions_only_under_the_interleaved_policy) {
  const std::vector<int> data(8, 1);
  auto make = [&](auto policy, std::size_t i) { return square_after_loads<decltype(policy)>(data, i); };
  auto ignore = [](std::size_t, std::size_t) {};
  EXPECT_EQ(sequential_scheduler{}.run(100, make, ignore).suspensions, 0u);
  // 20 rounds of 0+1+2+3+4 suspensions
  EXPECT_EQ(interleaved_scheduler{7}.run(100, make, ignore).suspensions, 200u);
  EXPECT_EQ(batched_scheduler{7}.run(100, make, ignore).suspensions, 200u);
}

// Start and finish events in the order they happened: +i+1 for a start, -(i+1) for a finish.
struct flight_log {
  int in_flight = 0;
  int max_in_flight = 0;
  std::vector<long> events;

  long position(long event) const {
    return std::find(events.begin(), events.end(), event) - events.begin();
  }
};

// Request i suspends 1 + (7i mod 4) times: requests of one group finish at different times.
task<std::size_t> logged(flight_log& log, const std::vector<int>& data, std::size_t i) {
  log.events.push_back(static_cast<long>(i) + 1);
  log.max_in_flight = std::max(log.max_in_flight, ++log.in_flight);
  for (std::size_t k = 0; k < 1 + (i * 7) % 4; ++k) co_await load<interleaved_policy>(data[k]);
  --log.in_flight;
  log.events.push_back(-static_cast<long>(i) - 1);
  co_return i;
}

TEST(interleaved_scheduler, keeps_group_in_flight_and_refills_a_finished_slot_at_once) {
  const std::vector<int> data(8, 1);
  flight_log log;
  interleaved_scheduler{4}.run(
      64, [&](auto, std::size_t i) { return logged(log, data, i); }, [](std::size_t, std::size_t) {});
  EXPECT_EQ(log.max_in_flight, 4);
  ASSERT_EQ(log.events.size(), 128u);
  // Request 0 (one suspension) finishes first and request 4 takes its slot
  // while request 1 (four suspensions) is still running.
  EXPECT_LT(log.position(-1), log.position(5));
  EXPECT_LT(log.position(5), log.position(-2));
}

TEST(batched_scheduler, starts_a_batch_only_when_the_previous_one_finished) {
  const std::vector<int> data(8, 1);
  flight_log log;
  batched_scheduler{4}.run(
      64, [&](auto, std::size_t i) { return logged(log, data, i); }, [](std::size_t, std::size_t) {});
  EXPECT_EQ(log.max_in_flight, 4);
  ASSERT_EQ(log.events.size(), 128u);
  for (long i = 4; i < 64; ++i) {
    const long batch_start = i / 4 * 4;
    for (long j = batch_start - 4; j < batch_start; ++j) {
      EXPECT_LT(log.position(-(j + 1)), log.position(i + 1)) << "request " << j << " vs " << i;
    }
  }
}

struct live_counter {
  int* live;
  explicit live_counter(int* l) : live(l) { ++*live; }
  ~live_counter() { --*live; }
};

task<std::size_t> may_throw(int* live, const std::vector<int>& data, std::size_t i) {
  live_counter c{live};
  co_await load<interleaved_policy>(data[0]);
  if (i == 37) throw std::runtime_error("request 37 failed");
  co_await load<interleaved_policy>(data[1]);
  co_return i;
}

// The streamed form of may_throw: one frame loops over the requests of a slot.
template <class Policy, request_stream<std::size_t, std::size_t> Requests>
typename Requests::task_type streamed_may_throw(int* live, const std::vector<int>& data, Requests requests) {
  while (requests.next()) requests.deliver(co_await may_throw(live, data, requests.argument()));
  co_return requests.finish();
}

TEST(schedulers, an_exception_reaches_the_caller_and_frees_every_frame_in_flight) {
  const std::vector<int> data(8, 1);
  int live = 0;
  auto ignore = [](std::size_t, std::size_t) {};
  auto expect_throw_and_no_frame_left = [&](const auto& make) {
    EXPECT_THROW(interleaved_scheduler{8}.run(100, make, ignore), std::runtime_error);
    EXPECT_EQ(live, 0);
    EXPECT_THROW(batched_scheduler{8}.run(100, make, ignore), std::runtime_error);
    EXPECT_EQ(live, 0);
    EXPECT_THROW(sequential_scheduler{}.run(100, make, ignore), std::runtime_error);
    EXPECT_EQ(live, 0);
  };
  expect_throw_and_no_frame_left([&](auto, std::size_t i) { return may_throw(&live, data, i); });
  expect_throw_and_no_frame_left(streamed(
      [&](auto policy, auto requests) { return streamed_may_throw<decltype(policy)>(&live, data, requests); },
      [](std::size_t i) { return i; }));
}

// A request that runs a ring of its own before it suspends: the inner ring
// must not take the slots of the outer one, which reuses its thread's.
template <class Policy>
task<std::size_t> sum_of_squares_below(const std::vector<int>& data, int* live, std::size_t i) {
  live_counter c{live};
  std::size_t sum = 0;
  interleaved_scheduler{3}.run(
      i % 7, [&](auto policy, std::size_t k) { return square_after_loads<decltype(policy)>(data, k); },
      [&](std::size_t, std::size_t square) { sum += square; });
  co_await load<Policy>(data[i % 8]);
  co_return sum;
}

TEST(schedulers, a_ring_inside_a_request_of_another_keeps_both_apart) {
  const std::vector<int> data(8, 1);
  int live = 0;
  std::vector<std::size_t> expected(300);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    for (std::size_t k = 0; k < i % 7; ++k) expected[i] += k * k;
  }
  testing::expect_every_mode<std::size_t>(
      expected.size(),
      [&](auto policy, std::size_t i) { return sum_of_squares_below<decltype(policy)>(data, &live, i); },
      expected);
  EXPECT_EQ(live, 0);
}

// Rings inside rings, `depth` levels below this one: each request of a level
// runs a ring over the next level's requests, so the sum at the top counts
// the requests of the bottom level, 2^depth of them per top-level request.
template <class Policy>
task<std::size_t> leaves_below(const std::vector<int>& data, std::size_t depth, std::size_t i) {
  std::size_t leaves = 0;
  if (depth == 0) {
    leaves = 1;
  } else {
    interleaved_scheduler{2}.run(
        2, [&](auto policy, std::size_t k) { return leaves_below<decltype(policy)>(data, depth - 1, k); },
        [&](std::size_t, std::size_t n) { leaves += n; });
  }
  co_await load<Policy>(data[i % data.size()]);
  co_return leaves;
}

TEST(schedulers, rings_inside_rings_reuse_their_threads_arrays) {
  const std::vector<int> data(8, 1);
  // Depths 1 to 4 below the outer ring keep their arrays; depth 5 and deeper
  // make their own each run.
  for (const std::size_t depth : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{6}}) {
    std::thread([&] {
      std::size_t sum = 0;
      const auto run = [&] {
        interleaved_scheduler{4}.run(
            16, [&](auto policy, std::size_t i) { return leaves_below<decltype(policy)>(data, depth, i); },
            [&](std::size_t, std::size_t n) { sum += n; });
      };
      run();
      const std::size_t made = weave::detail::ring_slots::nested_arrays_made();
      run();
      run();
      EXPECT_EQ(sum, 3 * 16 * (std::size_t{1} << depth)) << "depth " << depth;
      if (depth <= weave::detail::ring_slots::kept_depths) {
        EXPECT_EQ(made, depth);
        EXPECT_EQ(weave::detail::ring_slots::nested_arrays_made(), made) << "depth " << depth;
      } else {
        EXPECT_GT(weave::detail::ring_slots::nested_arrays_made(), made) << "depth " << depth;
      }
    }).join();
  }
}

TEST(schedulers, a_ring_that_throws_inside_another_leaves_the_depth_as_it_was) {
  const std::vector<int> data(8, 1);
  std::thread([&] {
    const auto throwing = [&](auto policy, std::size_t i) -> task<std::size_t> {
      interleaved_scheduler{2}.run(
          2,
          [&](auto, std::size_t k) -> task<std::size_t> {
            if (i == 3 && k == 1) throw std::runtime_error("inner");
            co_return k;
          },
          [](std::size_t, std::size_t) {});
      co_await load<decltype(policy)>(data[i % data.size()]);
      co_return i;
    };
    EXPECT_THROW(interleaved_scheduler{4}.run(8, throwing, [](std::size_t, std::size_t) {}),
                 std::runtime_error);
    // The next outer ring takes the thread's outermost arrays again, and its
    // inner rings the kept ones: nothing new is made.
    const std::size_t made = weave::detail::ring_slots::nested_arrays_made();
    std::size_t sum = 0;
    interleaved_scheduler{4}.run(
        8, [&](auto policy, std::size_t i) { return leaves_below<decltype(policy)>(data, 1, i); },
        [&](std::size_t, std::size_t n) { sum += n; });
    EXPECT_EQ(sum, 16u);
    EXPECT_EQ(weave::detail::ring_slots::nested_arrays_made(), made);
  }).join();
}

TEST(schedulers, reject_group_sizes_outside_one_to_256) {
  EXPECT_THROW(interleaved_scheduler{0}, std::invalid_argument);
  EXPECT_THROW(batched_scheduler{257}, std::invalid_argument);
}

TEST(adaptive_scheduler, runs_sequentially_when_nothing_suspends) {
  const std::vector<int> data(8, 1);
  adaptive_options options;
  options.window = 64;
  adaptive_scheduler scheduler{options};
  std::size_t sum = 0;
  // Requests with i % 5 == 0 never suspend; make every request like that.
  auto stats = scheduler.run(
      10'000, [&](auto policy, std::size_t i) { return square_after_loads<decltype(policy)>(data, i * 5); },
      [&](std::size_t, std::size_t v) { sum += v; });
  EXPECT_TRUE(scheduler.calibrated());
  EXPECT_FALSE(scheduler.decision().interleave);
  EXPECT_GE(scheduler.decision().group, 2u);  // what a re-check tries against sequential
  EXPECT_EQ(stats.requests, 10'000u);
  std::size_t expected = 0;
  for (std::size_t i = 0; i < 10'000; ++i) expected += i * 5 * i * 5;
  EXPECT_EQ(sum, expected);
}

TEST(adaptive_scheduler, calibrates_across_runs_shorter_than_a_window) {
  const std::vector<int> data(8, 1);
  adaptive_options options;
  options.window = 64;
  adaptive_scheduler scheduler{options};
  std::size_t sum = 0;
  const auto run = [&](std::size_t first, std::size_t last) {
    scheduler.run(
        first, last,
        [&](auto policy, std::size_t i) { return square_after_loads<decltype(policy)>(data, i * 5); },
        [&](std::size_t, std::size_t v) { sum += v; });
  };
  // Four runs of 20 requests make a window of 64 or more: the untimed first
  // one and the probe group's, then sequential.
  for (int r = 0; r < 11; ++r) {
    run(0, 20);
    EXPECT_FALSE(scheduler.calibrated()) << "after run " << r;
  }
  run(0, 20);
  EXPECT_TRUE(scheduler.calibrated());
  EXPECT_FALSE(scheduler.decision().interleave);  // nothing suspends
  std::size_t expected = 0;
  for (std::size_t i = 0; i < 20; ++i) expected += 12 * (i * 5 * i * 5);
  EXPECT_EQ(sum, expected);
}

// Runs shorter than the shortest slice (a row of 100 columns) are timed
// together until they hold one: here three runs make each window. One row
// alone was too noisy a window.
TEST(adaptive_scheduler, calibrates_across_runs_shorter_than_the_shortest_window) {
  const std::vector<int> data(8, 1);
  adaptive_scheduler scheduler{adaptive_options{}};
  constexpr std::size_t short_run = adaptive_scheduler::short_window / 3 + 1;
  std::size_t sum = 0;
  std::vector<bool> interleaved;  // per run: whether its requests ran under the interleaved policy
  const auto run = [&] {
    bool suspending = false;
    scheduler.run(
        short_run,
        [&](auto policy, std::size_t i) {
          suspending = decltype(policy)::suspends;
          return square_after_loads<decltype(policy)>(data, i * 5);
        },
        [&](std::size_t, std::size_t v) { sum += v; });
    interleaved.push_back(suspending);
  };
  for (int r = 0; r < 8; ++r) {
    run();
    EXPECT_FALSE(scheduler.calibrated()) << "after run " << r;
  }
  run();
  EXPECT_TRUE(scheduler.calibrated());
  EXPECT_FALSE(scheduler.decision().interleave);  // nothing suspends
  // The untimed first window and the probe group's, then sequential's: three
  // runs each.
  EXPECT_EQ(interleaved, (std::vector<bool>{true, true, true, true, true, true, false, false, false}));
  std::size_t expected = 0;
  for (std::size_t i = 0; i < short_run; ++i) expected += 9 * (i * 5 * i * 5);
  EXPECT_EQ(sum, expected);
}

// A re-check is due after `recheck_interval` requests, however many runs
// they took, and its windows are whole short runs. With a gain no window can
// show, every choice is sequential, so a run that suspended held a window
// that tried interleaving.
TEST(adaptive_scheduler, rechecks_across_short_runs) {
  const std::vector<int> data(8, 1);
  adaptive_options options;
  options.window = 64;
  options.recheck_interval = 100;
  options.max_recheck_interval = 100;
  options.min_gain = 0.99;
  adaptive_scheduler scheduler{options};
  std::vector<std::size_t> interleaved_runs;
  for (std::size_t r = 0; r < 60; ++r) {
    const run_stats stats = scheduler.run(
        20, [&](auto policy, std::size_t i) { return square_after_loads<decltype(policy)>(data, i * 5 + 1); },
        [](std::size_t, std::size_t) {});
    if (stats.suspensions > 0) interleaved_runs.push_back(r);
  }
  EXPECT_TRUE(scheduler.calibrated());
  EXPECT_FALSE(scheduler.decision().interleave);
  EXPECT_GE(scheduler.decision().group, 2u);
  ASSERT_FALSE(interleaved_runs.empty());
  EXPECT_EQ(interleaved_runs.front(), 0u);  // the untimed first window, at the probe group
  // Calibration takes runs 0-11 (four runs a window), or 0-15 if the model
  // proposes a group of its own; then, after every five runs of 20, a
  // re-check of eight runs, four of them an interleaved window.
  EXPECT_GE(
      std::count_if(interleaved_runs.begin(), interleaved_runs.end(), [](std::size_t r) { return r > 11; }),
      8);
}

// What only a first run pays (frames' pages faulted in) must not reach the
// model. Here the first interleaved run is slow, later ones fast, and every
// sequential request spins 20 us: counted, the first window would have made
// the probe group look slower than sequential, with no stall to hide.
TEST(adaptive_scheduler, does_not_time_its_first_window) {
  const std::vector<int> data(8, 1);
  adaptive_options options;
  options.window = 64;
  adaptive_scheduler scheduler{options};
  const auto spin = [](std::chrono::microseconds d) {
    const auto end = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < end) {
    }
  };
  bool first_run = true;
  for (int r = 0; r < 20; ++r) {
    scheduler.run(
        20,
        [&](auto policy, std::size_t i) {
          if constexpr (decltype(policy)::suspends) {
            if (first_run) spin(std::chrono::microseconds(200));
          } else {
            spin(std::chrono::microseconds(20));
          }
          return square_after_loads<decltype(policy)>(data, i * 5 + 1);
        },
        [](std::size_t, std::size_t) {});
    first_run = false;
  }
  ASSERT_TRUE(scheduler.calibrated());
  EXPECT_TRUE(scheduler.decision().interleave);
  // The sequential window's 20 us a request, less what the probe's costs, is
  // stall; counting the first window would have left none (a probe slower
  // than sequential). A bound this loose survives a preempted probe window.
  EXPECT_GT(scheduler.decision().costs.stall_ns, 0.0);
}

// Runs of every length, short and long, through calibration and many
// re-checks: every request runs once, with its own result.
TEST(adaptive_scheduler, runs_each_request_once_across_windows_and_runs) {
  const std::vector<int> data(8, 1);
  adaptive_options options;
  options.window = 32;
  options.recheck_interval = 50;
  options.max_recheck_interval = 200;
  adaptive_scheduler scheduler{options};
  std::mt19937_64 rng(3);
  std::vector<std::size_t> seen;
  for (std::size_t r = 0; r < 300; ++r) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, r % 7 == 0 ? 500 : 40)(rng);
    seen.assign(n, 0);
    const run_stats stats = scheduler.run(
        n, [&](auto policy, std::size_t i) { return square_after_loads<decltype(policy)>(data, i); },
        [&](std::size_t i, std::size_t v) {
          ASSERT_LT(i, n);
          EXPECT_EQ(v, i * i);
          ++seen[i];
        });
    EXPECT_EQ(stats.requests, n);
    EXPECT_EQ(std::count(seen.begin(), seen.end(), std::size_t{1}), static_cast<std::ptrdiff_t>(n));
  }
  EXPECT_TRUE(scheduler.calibrated());
}

}  // namespace
}  // namespace weave
