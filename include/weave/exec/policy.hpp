#pragma once
// Execution policies decide, at compile time, whether an operation's loads
// prefetch and suspend. Operations are written once against a Policy type
// parameter; schedulers pass the policy as a tag value:
//
//   make(weave::interleaved, i)  ->  task whose loads prefetch and suspend
//   make(weave::sequential, i)   ->  the same source; every load is a plain load

#include <concepts>

namespace weave {

struct sequential_policy {
  static constexpr bool suspends = false;
};

struct interleaved_policy {
  static constexpr bool suspends = true;
};

inline constexpr sequential_policy sequential{};
inline constexpr interleaved_policy interleaved{};

template <class P>
concept execution_policy = requires {
  { P::suspends } -> std::convertible_to<bool>;
};

}  // namespace weave
