#pragma once
// Execution policies decide, at compile time, whether an operation's loads
// prefetch and suspend. Operations are written once against a Policy type
// parameter; schedulers pass the policy as a tag value:
//
//   make(weave::interleaved, i)  ->  task whose loads prefetch and suspend
//   make(weave::sequential, i)   ->  the same source; every load is a plain load
//
// A policy that prefetches without suspending (the benchmarks' "prefetch
// only" baseline, bench/workload/prefetch_policy.hpp) prefetches what a load
// covers (all lines of a node) and goes on.

#include <concepts>

namespace weave {

struct sequential_policy {
  static constexpr bool suspends = false;
  static constexpr bool prefetches = false;
};

struct interleaved_policy {
  static constexpr bool suspends = true;
  static constexpr bool prefetches = true;
};

inline constexpr sequential_policy sequential{};
inline constexpr interleaved_policy interleaved{};

template <class P>
concept execution_policy = requires {
  { P::suspends } -> std::convertible_to<bool>;
  { P::prefetches } -> std::convertible_to<bool>;
};

}  // namespace weave
