#pragma once
// Execution policies decide, at compile time, whether an operation's loads
// prefetch and suspend. Operations are written once against a Policy type
// parameter; schedulers pass the policy as a tag value:
//
//   make(weave::interleaved, i)  ->  task whose loads prefetch and suspend
//   make(weave::sequential, i)   ->  the same source; every load is a plain load
//   make(weave::prefetching, i)  ->  loads prefetch what they cover (all lines
//                                    of a node) but never suspend: the
//                                    "prefetch only" baseline

#include <concepts>

namespace weave {

struct sequential_policy {
  static constexpr bool suspends = false;
  static constexpr bool prefetches = false;
};

struct prefetch_policy {
  static constexpr bool suspends = false;
  static constexpr bool prefetches = true;
};

struct interleaved_policy {
  static constexpr bool suspends = true;
  static constexpr bool prefetches = true;
};

inline constexpr sequential_policy sequential{};
inline constexpr prefetch_policy prefetching{};
inline constexpr interleaved_policy interleaved{};

template <class P>
concept execution_policy = requires {
  { P::suspends } -> std::convertible_to<bool>;
  { P::prefetches } -> std::convertible_to<bool>;
};

}  // namespace weave
