#pragma once
// The resume loop shared by the interleaved and batched schedulers.
//
// Each of the `group` slots runs a driver: a long-lived coroutine that takes
// the next request, awaits its task, hands the result to the sink and takes
// the next one. Finishing a request and starting the next is thus a pair of
// symmetric transfers inside the slot: the new request runs to its first
// miss (and issues that prefetch) before control comes back here, and the
// loop below only ever resumes whatever frame of a slot suspended last.
//
// With `refill` the drivers share the whole range, so a finished slot takes
// the next request at once. Without it (strict batches) each batch of
// `group` requests gets fresh drivers that take one request each, and the
// next batch starts only when all have finished.
//
// The loop makes no heap allocation and no indirect call besides resume().

#include <array>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <type_traits>

#include "weave/assert.hpp"
#include "weave/exec/detail/completion.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/policy.hpp"
#include "weave/exec/run_stats.hpp"
#include "weave/exec/task.hpp"

namespace weave::detail {

inline constexpr std::size_t max_group = 256;

// The requests the drivers of one ring take from, and the first failure.
template <class Make, class Sink>
struct request_queue {
  Make& make;
  Sink& sink;
  std::size_t next;
  std::size_t last;
  std::exception_ptr failure;
  std::size_t yields = 0;  // returns to the ring that were not suspensions of a request
};

// Hands control back to the ring: resumed like a suspended request.
struct yield_to_ring : suspend_to_scheduler {
  bool await_ready() const noexcept { return false; }
  void await_resume() const noexcept {}
};

// Requests a driver runs between two returns to the ring. Requests that never
// suspend chain through symmetric transfers; compiled as tail calls they take
// no stack, but where they are not (sanitizer builds) the chain would grow
// the native stack without bound.
inline constexpr std::size_t requests_per_turn = 64;

template <class Policy, class Make, class Sink>
task<void> drive(request_queue<Make, Sink>& queue) {
  try {
    for (std::size_t done = 1; queue.next < queue.last; ++done) {
      const std::size_t i = queue.next++;
      if constexpr (std::is_void_v<typename task_of<Make, Policy>::value_type>) {
        co_await queue.make(Policy{}, i);
        queue.sink(i);
      } else {
        queue.sink(i, co_await queue.make(Policy{}, i));
      }
      // Other slots may take the last requests meanwhile: the loop re-checks.
      if (done % requests_per_turn == 0) {
        ++queue.yields;
        co_await yield_to_ring{};
      }
    }
  } catch (...) {
    queue.failure = std::current_exception();
  }
  // No frame of this slot is left to resume.
  resume_point = nullptr;
}

template <class Policy, class Make, class Sink>
run_stats run_ring(std::size_t group, bool refill, std::size_t first, std::size_t last,
                   Make& make, Sink& sink) {
  WEAVE_ASSERT(group >= 1 && group <= max_group);
  request_queue<Make, Sink> queue{make, sink, first, first, nullptr, 0};
  // Drivers own their frames, and through them every frame still in flight
  // when a task or the sink throws.
  std::array<task<void>, max_group> drivers;
  std::array<std::coroutine_handle<>, max_group> leaves;
  std::size_t resumes = 0;
  std::size_t finished = 0;

  const std::size_t batch = refill ? last - first : group;
  for (std::size_t begin = first; begin < last; begin += batch) {
    queue.last = begin + std::min(batch, last - begin);
    std::size_t live = std::min(group, queue.last - begin);
    for (std::size_t k = 0; k < live; ++k) {
      drivers[k] = drive<Policy>(queue);
      leaves[k] = drivers[k].handle();
    }
    for (std::size_t k = 0; live > 0;) {
      leaves[k].resume();
      ++resumes;
      leaves[k] = take_resume_point();
      if (leaves[k]) {
        k = k + 1 < live ? k + 1 : 0;
        continue;
      }
      // The driver has run out of requests (or failed): the slot leaves the ring.
      ++finished;
      if (queue.failure) std::rethrow_exception(queue.failure);
      leaves[k] = leaves[--live];
      if (k == live) k = 0;
    }
  }
  run_stats stats;
  stats.requests = last - first;
  stats.suspensions = resumes - finished - queue.yields;
  return stats;
}

// The scheduler class over run_ring; interleaved_scheduler and
// batched_scheduler name its two modes.
template <bool Refill>
class ring_scheduler {
 public:
  static constexpr std::size_t max_group = detail::max_group;

  explicit ring_scheduler(std::size_t group) : group_(group) {
    if (group < 1 || group > max_group) throw std::invalid_argument("group size must be between 1 and 256");
  }

  std::size_t group() const noexcept { return group_; }

  template <class Make, class Sink>
  run_stats run(std::size_t first, std::size_t last, Make&& make, Sink&& sink) const {
    return run_ring<interleaved_policy>(group_, Refill, first, last, make, sink);
  }

  template <class Make, class Sink>
  run_stats run(std::size_t count, Make&& make, Sink&& sink) const {
    return run(0, count, make, sink);
  }

 private:
  std::size_t group_;
};

}  // namespace weave::detail
