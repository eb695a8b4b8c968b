#include "weave/exec/request_stream.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "support/every_mode.hpp"
#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"

namespace weave {
namespace {

// A nested task: suspends `times` times and returns `value`.
template <class Policy>
task<std::size_t> after_loads(const std::vector<int>& data, std::size_t times, std::size_t value) {
  for (std::size_t k = 0; k < times; ++k) co_await load<Policy>(data[k]);
  co_return value;
}

// For each argument i: suspends i % 5 times, half of them inside a nested
// task, and delivers i * i.
template <class Policy, request_stream<std::size_t, std::size_t> Requests>
typename Requests::task_type squares(const std::vector<int>& data, Requests requests) {
  while (requests.next()) {
    const std::size_t i = requests.argument();
    for (std::size_t k = 0; k < i % 5 / 2; ++k) co_await load<Policy>(data[k]);
    const std::size_t square = co_await after_loads<Policy>(data, i % 5 - i % 5 / 2, i * i);
    requests.deliver(square);
  }
  co_return requests.finish();
}

auto streamed_squares(const std::vector<int>& data) {
  return streamed([&data](auto policy, auto requests) { return squares<decltype(policy)>(data, requests); },
                  [](std::size_t i) { return i; });
}

TEST(request_stream, a_streamed_operation_delivers_each_result_once_in_every_mode) {
  const std::vector<int> data(8, 1);
  std::vector<std::size_t> expected(1000);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i * i;
  testing::expect_every_mode<std::size_t>(expected.size(), streamed_squares(data), expected);
}

// An operation declared as taking four requests a slot: a ring makes one
// slot per four requests of a run, up to its group, and every request is
// still delivered once with its own result, in strict batches too. (squares
// takes one request at a time, so each slot simply runs on to the next.)
TEST(request_stream, a_ring_makes_no_more_slots_than_a_run_fills) {
  const std::vector<int> data(8, 1);
  std::size_t slots = 0;
  const auto op = [&](auto policy, auto requests) {
    ++slots;
    return squares<decltype(policy)>(data, requests);
  };
  const auto argument = [](std::size_t i) { return i; };
  for (const std::size_t n : {1, 3, 4, 5, 10, 64, 65, 1000}) {
    std::vector<std::size_t> got(n, 0);
    std::vector<int> seen(n, 0);
    const auto sink = [&](std::size_t i, std::size_t v) {
      got[i] = v;
      ++seen[i];
    };
    const auto each_once = [&](const char* how) {
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(got[i], i * i) << how << ", request " << i << " of " << n;
        EXPECT_EQ(seen[i], 1) << how << ", request " << i << " of " << n;
      }
      std::fill(got.begin(), got.end(), 0);
      std::fill(seen.begin(), seen.end(), 0);
      slots = 0;
    };
    interleaved_scheduler{16}.run(n, streamed<4>(op, argument), sink);
    EXPECT_EQ(slots, std::min<std::size_t>(16, (n + 3) / 4)) << n << " requests";
    each_once("four a slot");
    interleaved_scheduler{16}.run(n, streamed(op, argument), sink);
    EXPECT_EQ(slots, std::min<std::size_t>(16, n)) << n << " requests, one at a time";
    each_once("one a slot");
    batched_scheduler{8}.run(n, streamed<4>(op, argument), sink);
    EXPECT_EQ(slots, (n / 8) * 2 + (n % 8 + 3) / 4) << n << " requests in batches of 8";
    each_once("in batches");
  }
}

TEST(request_stream, one_request_makes_the_operation_a_task_of_its_result) {
  const std::vector<int> data(8, 1);
  task<std::size_t> one = squares<interleaved_policy>(data, one_request<std::size_t, std::size_t>{9});
  EXPECT_EQ(sync_wait(std::move(one)), 81u);
  EXPECT_EQ(sync_wait(squares<sequential_policy>(data, one_request<std::size_t, std::size_t>{7})), 49u);
}

TEST(request_stream, suspensions_are_counted_as_for_one_task_per_request) {
  const std::vector<int> data(8, 1);
  auto ignore = [](std::size_t, std::size_t) {};
  // 20 rounds of 0+1+2+3+4 suspensions
  EXPECT_EQ(interleaved_scheduler{7}.run(100, streamed_squares(data), ignore).suspensions, 200u);
  EXPECT_EQ(batched_scheduler{7}.run(100, streamed_squares(data), ignore).suspensions, 200u);
  EXPECT_EQ(sequential_scheduler{}.run(100, streamed_squares(data), ignore).suspensions, 0u);
}

// For each argument i: suspends once and adds i to `total`; no result.
template <class Policy, request_stream<std::size_t, void> Requests>
typename Requests::task_type add_up(const std::vector<int>& data, std::size_t& total, Requests requests) {
  while (requests.next()) {
    const std::size_t i = requests.argument();
    co_await load<Policy>(data[i % data.size()]);
    total += i;
    requests.deliver();
  }
  co_return requests.finish();
}

TEST(request_stream, an_operation_without_a_result_runs_streamed_and_alone) {
  const std::vector<int> data(8, 1);
  std::size_t total = 0;
  std::size_t delivered = 0;
  auto sum = streamed([&](auto policy, auto requests) { return add_up<decltype(policy)>(data, total, requests); },
                      [](std::size_t i) { return i; });
  auto count = [&](std::size_t) { ++delivered; };
  interleaved_scheduler{5}.run(100, sum, count);
  batched_scheduler{5}.run(100, sum, count);
  sequential_scheduler{}.run(100, sum, count);
  EXPECT_EQ(total, 3 * 4950u);
  EXPECT_EQ(delivered, 300u);
  sync_wait(add_up<interleaved_policy>(data, total, one_request<std::size_t, void>{7}));
  EXPECT_EQ(total, 3 * 4950u + 7);
}

TEST(request_stream, a_slot_takes_its_next_request_as_soon_as_one_finishes) {
  const std::vector<int> data(8, 1);
  std::vector<long> events;  // i + 1 when request i starts, -(i + 1) when it finishes
  auto logged = streamed([&](auto policy, auto requests) { return squares<decltype(policy)>(data, requests); },
                         [&](std::size_t i) {
                           events.push_back(static_cast<long>(i) + 1);
                           return i;
                         });
  interleaved_scheduler{4}.run(12, logged, [&](std::size_t i, std::size_t) { events.push_back(-static_cast<long>(i) - 1); });
  ASSERT_EQ(events.size(), 24u);
  // Request 0 never suspends: its slot finishes it and starts request 1
  // before the second slot starts request 2.
  EXPECT_EQ(std::vector<long>(events.begin(), events.begin() + 4), (std::vector<long>{1, -1, 2, 3}));
  int in_flight = 0;
  int most = 0;
  for (const long e : events) most = std::max(most, in_flight += e > 0 ? 1 : -1);
  EXPECT_EQ(most, 4);
  EXPECT_EQ(in_flight, 0);
}

// Takes up to three requests before it delivers any, suspends once, and
// delivers them last first, by ticket where the stream has tickets.
template <class Policy, request_stream<std::size_t, std::size_t> Requests>
typename Requests::task_type three_at_once(const std::vector<int>& data, Requests requests) {
  constexpr std::size_t most = ticketed_request_stream<Requests, std::size_t, std::size_t> ? 3 : 1;
  for (;;) {
    std::size_t argument[most];
    std::size_t ticket[most];
    std::size_t taken = 0;
    while (taken < most && requests.next()) {
      argument[taken] = requests.argument();
      if constexpr (most > 1) ticket[taken] = requests.ticket();
      ++taken;
    }
    if (taken == 0) break;
    co_await load<Policy>(data[taken]);
    for (std::size_t j = taken; j-- > 0;) {
      if constexpr (most > 1) {
        requests.deliver_to(ticket[j], argument[j] * argument[j]);
      } else {
        requests.deliver(argument[j] * argument[j]);
      }
    }
  }
  co_return requests.finish();
}

TEST(request_stream, a_slot_holding_several_requests_delivers_each_by_its_ticket_in_every_mode) {
  static_assert(!ticketed_request_stream<one_request<std::size_t, std::size_t>, std::size_t, std::size_t>);
  const std::vector<int> data(8, 1);
  // 1000 requests: every group leaves some slot with fewer than three at the end.
  std::vector<std::size_t> expected(1000);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i * i;
  testing::expect_every_mode<std::size_t>(
      expected.size(),
      streamed([&data](auto policy, auto requests) { return three_at_once<decltype(policy)>(data, requests); },
               [](std::size_t i) { return i; }),
      expected);
  EXPECT_EQ(sync_wait(three_at_once<interleaved_policy>(data, one_request<std::size_t, std::size_t>{6})), 36u);
}

// The same through request_batch: the places past the last request repeat
// the first argument, which the operation checks.
template <class Policy, request_stream<std::size_t, std::size_t> Requests>
typename Requests::task_type three_in_a_batch(const std::vector<int>& data, Requests requests) {
  constexpr std::size_t width = ticketed_request_stream<Requests, std::size_t, std::size_t> ? 3 : 1;
  request_batch<width, std::size_t, Requests> batch;
  while (batch.take(requests)) {
    co_await load<Policy>(data[batch.size()]);
    for (std::size_t j = batch.size(); j < width; ++j) {
      if (batch[j] != batch[0]) throw std::logic_error("an empty place does not repeat the first argument");
    }
    for (std::size_t j = batch.size(); j-- > 0;) batch.deliver(requests, j, batch[j] * batch[j]);
  }
  co_return requests.finish();
}

TEST(request_stream, a_request_batch_takes_and_answers_several_requests_in_every_mode) {
  const std::vector<int> data(8, 1);
  std::vector<std::size_t> expected(1000);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i * i;
  testing::expect_every_mode<std::size_t>(
      expected.size(),
      streamed([&data](auto policy, auto requests) { return three_in_a_batch<decltype(policy)>(data, requests); },
               [](std::size_t i) { return i; }),
      expected);
  EXPECT_EQ(sync_wait(three_in_a_batch<interleaved_policy>(data, one_request<std::size_t, std::size_t>{5})), 25u);
}

}  // namespace
}  // namespace weave
