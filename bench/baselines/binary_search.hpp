#pragma once
// Hand-written baselines for binary search over a sorted_array, for
// comparison with the coroutine version only (weave::lower_bound):
//
//   naive_lookup  one search after another, no prefetching
//   gp_lookup     group prefetching: a group of searches advances in
//                      lockstep, one halving step for all before the next
//   amac_lookup   asynchronous memory access chaining: a ring of
//                      in-flight searches, each an explicit state machine
//
// They exist to measure what interleaving by hand buys and costs against
// the coroutine scheduler; nothing in the library uses them. Each returns the
// sum of the lower-bound positions, the same checksum the coroutine version
// yields, so that every variant can be checked against the others.
//
// All variants run the branchless search of sorted_array.hpp: the range
// [base, base + n) halves each step and a conditional move picks the half.
// The interleaved ones prefetch the next probe at every step (as in the
// papers), not only below the cached levels as the coroutine version does.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "weave/assert.hpp"
#include "weave/exec/load.hpp"
#include "weave/index/sorted_array.hpp"

namespace weave::baselines {

// Largest group (gp) or ring (amac) the interleaved variants accept.
inline constexpr std::size_t max_search_group = 256;

namespace detail {

// One step of the search for `key`: of [base, base + half) and
// [base + half, ...), the half that holds the lower bound; returns its base.
template <class T, class Less>
const T* pick_half(const sorted_array<T, Less>& array, const T* base, std::size_t half,
                   const T& key) noexcept {
  return array.narrow(base, half, base[half], key);
}

// The lower-bound position once the range is down to the one element at
// `base`. That element is cached: an earlier step probed it, or it is the first.
template <class T, class Less>
std::size_t position(const sorted_array<T, Less>& array, const T* base, const T& key) noexcept {
  return static_cast<std::size_t>(base - array.data()) + (array.less(*base, key) ? 1 : 0);
}

}  // namespace detail

template <class T, class Less>
std::uint64_t naive_lookup(const sorted_array<T, Less>& array, std::span<const T> keys) {
  if (array.size() == 0) return 0;
  std::uint64_t sum = 0;
  for (const T& key : keys) {
    const T* base = array.data();
    for (std::size_t n = array.size(); n > 1;) {
      const std::size_t half = n / 2;
      base = detail::pick_half(array, base, half, key);
      n -= half;
    }
    sum += detail::position(array, base, key);
  }
  return sum;
}

template <class T, class Less>
std::uint64_t gp_lookup(const sorted_array<T, Less>& array, std::span<const T> keys,
                             std::size_t group) {
  WEAVE_ASSERT(group >= 1 && group <= max_search_group);
  if (array.size() == 0) return 0;
  std::array<const T*, max_search_group> bases;
  std::uint64_t sum = 0;
  for (std::size_t first = 0; first < keys.size(); first += group) {
    const std::span<const T> batch = keys.subspan(first, std::min(group, keys.size() - first));
    // Every search of the array takes the same number of steps, and the range
    // width n after each step is the same for all, so one n serves the group.
    std::size_t n = array.size();
    for (std::size_t j = 0; j < batch.size(); ++j) bases[j] = array.data();
    if (n > 1) weave::detail::prefetch_line(array.data() + n / 2);
    while (n > 1) {
      const std::size_t half = n / 2;
      n -= half;
      for (std::size_t j = 0; j < batch.size(); ++j) {
        bases[j] = detail::pick_half(array, bases[j], half, batch[j]);
        // Overlaps the miss on this search's next probe with the steps of the
        // rest of the group.
        if (n > 1) weave::detail::prefetch_line(bases[j] + n / 2);
      }
    }
    for (std::size_t j = 0; j < batch.size(); ++j) sum += detail::position(array, bases[j], batch[j]);
  }
  return sum;
}

template <class T, class Less>
std::uint64_t amac_lookup(const sorted_array<T, Less>& array, std::span<const T> keys,
                               std::size_t group) {
  WEAVE_ASSERT(group >= 1 && group <= max_search_group);
  if (array.size() == 0) return 0;
  // One in-flight search: the range [base, base + n) still holding the lower
  // bound of keys[key].
  struct state {
    const T* base;
    std::size_t n;
    std::size_t key;
  };
  std::array<state, max_search_group> ring;
  std::size_t next_key = 0;
  const auto start = [&](state& s) {
    s = state{array.data(), array.size(), next_key++};
    if (s.n > 1) weave::detail::prefetch_line(s.base + s.n / 2);
  };

  std::size_t live = 0;
  while (live < group && next_key < keys.size()) start(ring[live++]);
  std::uint64_t sum = 0;
  // Ring slots [0, live) hold searches in flight; each visit does one step.
  for (std::size_t j = 0; live > 0; j = j + 1 < live ? j + 1 : 0) {
    state& s = ring[j];
    if (s.n > 1) {
      const std::size_t half = s.n / 2;
      s.base = detail::pick_half(array, s.base, half, keys[s.key]);
      s.n -= half;
      if (s.n > 1) {
        // Overlaps the miss on the next probe with the visits to the other slots.
        weave::detail::prefetch_line(s.base + s.n / 2);
        continue;
      }
    }
    // Down to one (cached) element: finish the search and refill the slot at once.
    sum += detail::position(array, s.base, keys[s.key]);
    if (next_key < keys.size()) {
      start(s);
    } else {
      // No keys left: the last slot in flight takes this one and the ring shrinks.
      s = ring[--live];
    }
  }
  return sum;
}

}  // namespace weave::baselines
