#pragma once
// The prefetch-and-suspend points of an operation.
//
//   T v = co_await load<Policy>(ref);            // one value
//   co_await prefetch<Policy>(ptr, bytes);       // every line of an object
//
// Under interleaved_policy the awaitable issues a software prefetch and
// suspends; the scheduler resumes another operation and comes back once the
// line has had time to arrive. Under sequential_policy await_ready() is a
// constant true, so the compiler drops the suspend point and the load is a
// plain load. Both forms take a `miss_likely` flag so that an operation
// suspends only where a miss is likely (deep tree levels, not the hot top).
//
// A suspended operation records its own handle in resume_point, which the
// scheduler reads after resume() returns. Nested tasks therefore need no help
// from their parents: the innermost frame is what gets resumed next.

#include <coroutine>
#include <cstddef>
#include <cstdint>

#include "weave/exec/policy.hpp"

namespace weave {

namespace detail {
inline thread_local constinit void* resume_point = nullptr;

inline void prefetch_line(const void* p) noexcept { __builtin_prefetch(p, 0, 3); }

inline void prefetch_lines(const void* p, std::size_t bytes) noexcept {
  constexpr std::uintptr_t line = 64;
  auto first = reinterpret_cast<std::uintptr_t>(p) & ~(line - 1);
  const auto last = reinterpret_cast<std::uintptr_t>(p) + bytes;
  for (; first < last; first += line) prefetch_line(reinterpret_cast<const void*>(first));
}

// The handle the scheduler must resume next on this thread.
inline std::coroutine_handle<> take_resume_point() noexcept {
  return std::coroutine_handle<>::from_address(resume_point);
}

struct suspend_to_scheduler {
  static void await_suspend(std::coroutine_handle<> self) noexcept {
    resume_point = self.address();
  }
};
}  // namespace detail

template <execution_policy Policy, class T>
struct load_awaitable : detail::suspend_to_scheduler {
  const T* ptr;
  bool miss_likely;

  bool await_ready() const noexcept {
    if constexpr (Policy::suspends) {
      if (!miss_likely) return true;
      detail::prefetch_line(ptr);
      return false;
    } else {
      return true;  // one line: a prefetch right before the load buys nothing
    }
  }
  T await_resume() const noexcept { return *ptr; }
};

template <execution_policy Policy>
struct prefetch_awaitable : detail::suspend_to_scheduler {
  const void* ptr;
  std::size_t bytes;
  bool miss_likely;

  bool await_ready() const noexcept {
    if constexpr (Policy::suspends) {
      if (!miss_likely) return true;
      detail::prefetch_lines(ptr, bytes);
      return false;
    } else {
      // Prefetching without suspending overlaps the misses on the lines of
      // one object (a multi-line node), not those of different objects.
      if constexpr (Policy::prefetches) {
        if (miss_likely && bytes > 64) detail::prefetch_lines(ptr, bytes);
      }
      return true;
    }
  }
  void await_resume() const noexcept {}
};

template <execution_policy Policy, class T>
load_awaitable<Policy, T> load(const T& ref, bool miss_likely = true) noexcept {
  return {{}, &ref, miss_likely};
}

template <execution_policy Policy>
prefetch_awaitable<Policy> prefetch(const void* ptr, std::size_t bytes,
                                    bool miss_likely = true) noexcept {
  return {{}, ptr, bytes, miss_likely};
}

}  // namespace weave
