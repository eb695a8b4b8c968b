#pragma once
// Waiting for something slower than memory without blocking the worker: a
// commit that waits for its log group to reach the disk. park_until(c, v)
// suspends until the counter `c` reaches `v`. A ring scheduler (interleaved
// or batched) sets the waiting operation aside, lets its slot take the next
// request, and resumes it once the counter is there; any other loop that
// resumes it just finds it not ready and lets it suspend again.

#include <atomic>
#include <coroutine>
#include <cstdint>

#include "weave/exec/load.hpp"

namespace weave {

namespace detail {

// What the last suspension on this thread waits for, if it parked: read and
// cleared by the ring right after each resume.
struct park_request {
  const std::atomic<std::uint64_t>* counter = nullptr;
  std::uint64_t value = 0;
  // Asks whoever moves the counter to be quick about it (a log's flusher
  // not to wait out its window): called when the worker has nothing left
  // to run but parked operations. May be null.
  void (*hurry)(void*) = nullptr;
  void* hurry_context = nullptr;
  bool ready() const noexcept { return counter->load(std::memory_order_acquire) >= value; }
  void ask_to_hurry() const {
    if (hurry != nullptr) hurry(hurry_context);
  }
};
inline thread_local constinit park_request last_park{};

inline void parked_request_reset() noexcept { last_park = {}; }
inline bool parked_request_empty() noexcept { return last_park.counter == nullptr; }
inline park_request take_park_request() noexcept {
  const park_request p = last_park;
  last_park = {};
  return p;
}

}  // namespace detail

struct park_awaitable : detail::suspend_to_scheduler {
  const std::atomic<std::uint64_t>* counter;
  std::uint64_t value;

  bool await_ready() const noexcept { return counter->load(std::memory_order_acquire) >= value; }
  void await_suspend(std::coroutine_handle<> self) noexcept {
    detail::resume_point = self.address();
    detail::last_park = {counter, value};
  }
  void await_resume() const noexcept {}
};

// The caller loops until the condition holds: a resume does not promise it.
inline park_awaitable park_until(const std::atomic<std::uint64_t>& counter, std::uint64_t value) noexcept {
  return {{}, &counter, value};
}

}  // namespace weave
