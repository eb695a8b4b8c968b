#pragma once
// The "prefetch only" baseline's execution policy: loads prefetch what they
// cover (all lines of a multi-line node) but never suspend. A benchmark
// variant, not a way to run operations: the library has sequential_policy
// and interleaved_policy.

namespace weave::bench {

struct prefetch_policy {
  static constexpr bool suspends = false;
  static constexpr bool prefetches = true;
};

}  // namespace weave::bench
