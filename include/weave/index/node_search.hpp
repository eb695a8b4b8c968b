#pragma once
// How a sorted node is searched: by a binary search that branches on each
// comparison (fast when the keys looked up follow a pattern the branch
// predictor learns, as TPC-C's do) or by one that does not (when they are
// random and the search waits on memory anyway: interleaved lookups, or
// tasks whose nodes the runtime prefetched). Measured in
// docs/results/ycsb.md and docs/results/tasks.md.
//
// Where the CPU compares vectors of 64-bit words (AVX2, AVX-512), a node of
// one-word keys is searched by comparing all its keys at once instead
// (count_below_vector): fewer instructions than either binary search and
// no branch on the key, whatever the policy (docs/results/tpcc.md).

#include <atomic>
#include <bit>
#include <cstdint>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#include "weave/exec/policy.hpp"

// Whether nodes of 64-bit keys are searched with vector compares. Not under
// ThreadSanitizer: a vector load of keys a writer stores atomically is a
// race in its eyes (as any optimistic read would be without atomics), so
// there the scalar searches run, and the vector search is tested without it.
#if defined(__SANITIZE_THREAD__)
#define WEAVE_VECTOR_NODE_SEARCH 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WEAVE_VECTOR_NODE_SEARCH 0
#endif
#endif
#ifndef WEAVE_VECTOR_NODE_SEARCH
#if defined(__AVX512F__) || defined(__AVX2__)
#define WEAVE_VECTOR_NODE_SEARCH 1
#else
#define WEAVE_VECTOR_NODE_SEARCH 0
#endif
#endif

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

// How many of the first n keys (n <= Capacity) are below k (at most k with
// OrEqual), by comparing all of them at once: for a sorted node this is the
// binary search's answer, without its chain of dependent loads (a node's key
// lines are fetched in parallel) or its mispredictions, in a fixed run of
// instructions. Keys past n are masked off, never read.
template <unsigned Capacity, bool OrEqual>
unsigned count_below_vector(const std::atomic<std::uint64_t>* keys, unsigned n, std::uint64_t k) noexcept {
  static_assert(sizeof(std::atomic<std::uint64_t>) == sizeof(std::uint64_t));
  const auto* words = reinterpret_cast<const std::uint64_t*>(keys);
  unsigned count = 0;
#if defined(__AVX512F__)
  const __m512i key = _mm512_set1_epi64(static_cast<long long>(k));
  for (unsigned i = 0; i < Capacity; i += 8) {
    const unsigned left = n > i ? n - i : 0;
    const auto valid = static_cast<__mmask8>(left >= 8 ? 0xffu : (1u << left) - 1);
    const __m512i v = _mm512_maskz_loadu_epi64(valid, words + i);
    const __mmask8 m =
        OrEqual ? _mm512_mask_cmple_epu64_mask(valid, v, key) : _mm512_mask_cmplt_epu64_mask(valid, v, key);
    count += static_cast<unsigned>(std::popcount(static_cast<unsigned>(m)));
  }
#elif defined(__AVX2__)
  // AVX2 compares signed words only: flipping the top bit of both sides
  // orders them as unsigned.
  const __m256i top = _mm256_set1_epi64x(static_cast<long long>(std::uint64_t{1} << 63));
  const __m256i key = _mm256_xor_si256(_mm256_set1_epi64x(static_cast<long long>(k)), top);
  const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
  for (unsigned i = 0; i < Capacity; i += 4) {
    const __m256i valid =
        _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<long long>(n) - static_cast<long long>(i)), lane);
    const __m256i v =
        _mm256_xor_si256(_mm256_maskload_epi64(reinterpret_cast<const long long*>(words + i), valid), top);
    // below: k > v; at most: not v > k.
    const __m256i m = OrEqual ? _mm256_andnot_si256(_mm256_cmpgt_epi64(v, key), valid)
                              : _mm256_and_si256(_mm256_cmpgt_epi64(key, v), valid);
    count += static_cast<unsigned>(
        std::popcount(static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(m)))));
  }
#else
  for (unsigned i = 0; i < n; ++i) count += OrEqual ? words[i] <= k : words[i] < k;
#endif
  return count;
}

}  // namespace weave
