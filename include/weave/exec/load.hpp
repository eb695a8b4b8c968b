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
// plain load. Both forms also take a `miss_likely` flag so that an operation
// suspends only where a miss is likely (deep tree levels, not the hot top).
//
// A suspended operation records its own handle in resume_point, which the
// scheduler reads after resume() returns. Nested tasks therefore need no help
// from their parents: the innermost frame is what gets resumed next.

#include <concepts>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "weave/exec/policy.hpp"
#include "weave/memory/prefetch.hpp"

namespace weave {

namespace detail {
inline thread_local constinit void* resume_point = nullptr;

// Every line of `object`, whose type is aligned to a cache line (an index
// node), with no suspension: the line count folds to a constant, so this is
// that many prefetch instructions and no jump into the unrolled loop.
template <class T>
  requires(alignof(T) % 64 == 0)
void prefetch_object(const T& object) noexcept {
  prefetch_lines(std::assume_aligned<alignof(T)>(&object), sizeof(T));
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

  bool await_ready() const noexcept {
    if constexpr (Policy::suspends) {
      detail::prefetch_line(ptr);
      return false;
    } else {
      return true;  // one line: a prefetch right before the load buys nothing
    }
  }
  T await_resume() const noexcept { return *ptr; }
};

// A load that suspends only where the caller says a miss is likely. The flag
// lives in the awaitable, which stays in the coroutine frame across the
// suspension: a store per suspension that loads without a flag do not pay.
template <execution_policy Policy, class T>
struct maybe_load_awaitable : load_awaitable<Policy, T> {
  bool miss_likely;

  bool await_ready() const noexcept { return !miss_likely || load_awaitable<Policy, T>::await_ready(); }
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
load_awaitable<Policy, T> load(const T& ref) noexcept {
  return {{}, &ref};
}

template <execution_policy Policy, class T>
maybe_load_awaitable<Policy, T> load(const T& ref, bool miss_likely) noexcept {
  return {{{}, &ref}, miss_likely};
}

template <execution_policy Policy>
prefetch_awaitable<Policy> prefetch(const void* ptr, std::size_t bytes,
                                    bool miss_likely = true) noexcept {
  return {{}, ptr, bytes, miss_likely};
}

// Hands the worker to its other operations for one pass, with no load: how
// an operation waits for a sibling on the same worker (txn/reservations.hpp).
// A policy that does not suspend goes straight on.
template <execution_policy Policy>
struct pass_awaitable : detail::suspend_to_scheduler {
  bool await_ready() const noexcept { return !Policy::suspends; }
  void await_resume() const noexcept {}
};
template <execution_policy Policy>
pass_awaitable<Policy> next_pass() noexcept {
  return {};
}

// Every line of `object`, whose type is aligned to a cache line (an index
// node): its lines are then a constant, and prefetching them is that many
// instructions.
template <execution_policy Policy, class T>
  requires(alignof(T) % 64 == 0)
prefetch_awaitable<Policy> prefetch(const T& object, bool miss_likely = true) noexcept {
  return {{}, std::assume_aligned<alignof(T)>(&object), sizeof(T), miss_likely};
}
// A pointer where the object was meant (prefetch(node, cold) for
// prefetch(*node, cold)) would otherwise take the form above with 0 or 1
// bytes.
template <execution_policy Policy, class Flag>
  requires std::same_as<Flag, bool>
void prefetch(const void* ptr, Flag miss_likely) = delete;

}  // namespace weave
