#pragma once
// How a sorted node is searched: by a binary search that branches on each
// comparison (fast when the keys looked up follow a pattern the branch
// predictor learns, as TPC-C's do) or by one that does not (when they are
// random and the search waits on memory anyway: interleaved lookups, or
// tasks whose nodes the runtime prefetched). Measured in
// docs/results/ycsb.md and docs/results/tasks.md.

#include "weave/exec/policy.hpp"

namespace weave {

enum class node_search { branchy, unpredictable };

template <execution_policy Policy>
constexpr node_search search_for() noexcept {
  return Policy::suspends ? node_search::unpredictable : node_search::branchy;
}

// How many of the positions [0, n) satisfy below(i), for a predicate that
// holds on a prefix of them. The range halves whatever below() says (a
// conditional move picks the half), so the loop's branch depends on n alone
// and a random key costs no mispredictions; every probe waits for the one
// before, though.
template <class Below>
unsigned count_below_unpredictable(unsigned n, Below below) noexcept {
  if (n == 0) return 0;
  unsigned base = 0;
  while (n > 1) {
    const unsigned half = n / 2;
#if defined(__clang__)
    // Or clang turns the select back into a branch, as it does in loops.
    base = __builtin_unpredictable(below(base + half - 1)) ? base + half : base;
#else
    base = below(base + half - 1) ? base + half : base;
#endif
    n -= half;
  }
  return base + (below(base) ? 1 : 0);
}

}  // namespace weave
