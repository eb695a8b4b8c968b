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
// instructions. All Capacity keys are compared, in a loop of a fixed
// length, and the positions from n on are dropped from the mask once at the
// end: a mask per vector cost more instructions than the compares, and a
// loop that stops at n mispredicts its exit on nodes of varying fill
// (docs/results/tpcc.md). Only the last vector, where Capacity is not a
// multiple of its width, is loaded under a mask, so nothing past Capacity is
// read.
template <unsigned Capacity, bool OrEqual>
unsigned count_below_vector(const std::atomic<std::uint64_t>* keys, unsigned n, std::uint64_t k) noexcept {
  static_assert(sizeof(std::atomic<std::uint64_t>) == sizeof(std::uint64_t));
  static_assert(Capacity > 0 && Capacity <= 64, "one bit a key in a 64-bit mask");
  const auto* words = reinterpret_cast<const std::uint64_t*>(keys);
#if defined(__AVX512F__) || defined(__AVX2__)
  const std::uint64_t first_n = n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
#endif
#if defined(__AVX512F__)
  const __m512i key = _mm512_set1_epi64(static_cast<long long>(k));
  std::uint64_t hits = 0;  // bit i: key i compares
  for (unsigned i = 0; i < Capacity; i += 8) {
    const __m512i v = i + 8 <= Capacity ? _mm512_loadu_si512(words + i)
                                        : _mm512_maskz_loadu_epi64(static_cast<__mmask8>((1u << (Capacity - i)) - 1),
                                                                   words + i);
    const __mmask8 m = OrEqual ? _mm512_cmple_epu64_mask(v, key) : _mm512_cmplt_epu64_mask(v, key);
    hits |= std::uint64_t{static_cast<unsigned>(m)} << i;
  }
  return static_cast<unsigned>(std::popcount(hits & first_n));
#elif defined(__AVX2__)
  // AVX2 compares signed words only: flipping the top bit of both sides
  // orders them as unsigned. below: k > v; at most: not v > k.
  const __m256i top = _mm256_set1_epi64x(static_cast<long long>(std::uint64_t{1} << 63));
  const __m256i key = _mm256_xor_si256(_mm256_set1_epi64x(static_cast<long long>(k)), top);
  std::uint64_t hits = 0;  // bit i: below (or above, for OrEqual) at key i
  for (unsigned i = 0; i < Capacity; i += 4) {
    __m256i raw;
    if (i + 4 <= Capacity) {
      raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + i));
    } else {
      const long long left = Capacity - i;
      const __m256i lanes = _mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_setr_epi64x(0, 1, 2, 3));
      raw = _mm256_maskload_epi64(reinterpret_cast<const long long*>(words + i), lanes);
    }
    const __m256i v = _mm256_xor_si256(raw, top);
    const __m256i m = OrEqual ? _mm256_cmpgt_epi64(v, key) : _mm256_cmpgt_epi64(key, v);
    hits |= std::uint64_t{static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(m)))} << i;
  }
  return static_cast<unsigned>(std::popcount((OrEqual ? ~hits : hits) & first_n));
#else
  unsigned count = 0;
  for (unsigned i = 0; i < n; ++i) count += OrEqual ? words[i] <= k : words[i] < k;
  return count;
#endif
}

}  // namespace weave
