#pragma once
// A sorted array searched by binary search (lower bound).
//
// The search is the branchless form: the range [base, base + n) halves each
// step and a conditional move picks the half, so the only stall left is the
// load of the probe. The first probes of every search hit the same few
// elements and stay cached; deeper probes land on random lines and miss. The
// lookup therefore suspends only below the cached levels, and once more for
// the second line a range of a line's width may straddle (after that every
// probe falls in a line already fetched).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "weave/exec/load.hpp"
#include "weave/exec/request_stream.hpp"
#include "weave/exec/task.hpp"
#include "weave/memory/huge_buffer.hpp"
#include "weave/memory/machine.hpp"

namespace weave {

template <class T, class Less = std::less<T>>
class sorted_array {
 public:
  using value_type = T;

  sorted_array() = default;
  // Takes ownership of elements already sorted by Less.
  explicit sorted_array(huge_buffer<T> sorted) : data_(std::move(sorted)) {}
  explicit sorted_array(std::span<const T> sorted) : data_(sorted.size()) {
    std::copy(sorted.begin(), sorted.end(), data_.data());
  }

  std::size_t size() const noexcept { return data_.size(); }
  std::size_t bytes() const noexcept { return data_.bytes(); }
  const T* data() const noexcept { return data_.data(); }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }

  // Probes at depth < hot_levels() are cached after the first few searches.
  unsigned hot_levels() const noexcept { return hot_levels_; }
  void set_hot_levels(unsigned levels) noexcept { hot_levels_ = levels; }

  static bool less(const T& a, const T& b) noexcept { return Less{}(a, b); }

  // One search step: the half of [base, base + 2 half) that holds the lower
  // bound of `key`, given the probe base[half]. The outcome is random, so it
  // must compile to a conditional move: a mispredicted branch costs more than
  // the probe when the data is cached.
  static const T* narrow(const T* base, std::size_t half, const T& probe, const T& key) noexcept {
#if defined(__clang__)
    return __builtin_unpredictable(less(probe, key)) ? base + half : base;
#else
    return less(probe, key) ? base + half : base;
#endif
  }

 private:
  huge_buffer<T> data_;
  unsigned hot_levels_ = machine::hot_levels(2, machine::cache_line);
};

// Whether [base, base + n) reaches past the cache line of its first element.
// A range wider than a line always does, which the first test settles at the
// cost of one compare (most levels of a search); a narrower one may still.
template <class T>
bool spans_lines(const T* base, std::size_t n) noexcept {
  if (n > std::max<std::size_t>(machine::cache_line / sizeof(T), 1)) return true;
  const auto first = reinterpret_cast<std::uintptr_t>(base);
  const auto last = reinterpret_cast<std::uintptr_t>(base + n) - 1;
  return first / machine::cache_line != last / machine::cache_line;
}

// Searches a slot of a ring advances at each resume, when its stream lets it
// hold several requests (ticketed_request_stream). A level of a search is a
// compare and a conditional move, a few instructions against the few dozen
// of a suspension and a resume; four searches in lockstep share one
// suspension (docs/results/lookups.md has the measurements). A ring's group
// counts slots, so each of its slots has four probes in flight.
inline constexpr std::size_t searches_per_slot = 4;

// For each key of `requests`, the position of the first element not less
// than it (size() if none).
//
// Three loops over the levels: the cached top levels and the last levels
// inside one line run as plain loops whose state stays in registers; only the
// levels in between, where every probe is a likely miss, suspend. (A single
// loop with a conditional suspend keeps its state in the coroutine frame on
// every level, which costs more than the cached probes.) Every search of
// the array halves the same widths, so the searches of one slot go in
// lockstep. Once the range is no wider than a line it may still straddle
// two: the line of its first element is cached (it is the array's start or
// an earlier probe), and the other is fetched with one more suspension, for
// the last levels.
template <execution_policy Policy, class T, class Less, request_stream<T, std::size_t> Requests>
typename Requests::task_type lower_bound(const sorted_array<T, Less>& array, Requests requests) {
  constexpr std::size_t width =
      Policy::suspends && ticketed_request_stream<Requests, T, std::size_t> ? searches_per_slot : 1;
  constexpr std::size_t per_line = std::max<std::size_t>(machine::cache_line / sizeof(T), 1);
  request_batch<width, T, Requests> key;
  while (key.take(requests)) {
    std::size_t n = array.size();
    if (n == 0) {
      for (std::size_t j = 0; j < key.size(); ++j) key.deliver(requests, j, std::size_t{0});
      continue;
    }
    std::array<const T*, width> base;
    base.fill(array.data());
    // A policy that never suspends needs no split: the middle and last loops
    // then run every level as the plain branchless loop.
    const unsigned hot = Policy::suspends ? array.hot_levels() : 0;
    for (unsigned depth = 0; n > 1 && depth < hot; ++depth) {
      const std::size_t half = n / 2;
      for (std::size_t j = 0; j < width; ++j) base[j] = array.narrow(base[j], half, base[j][half], key[j]);
      n -= half;
    }
    while (n > per_line) {
      const std::size_t half = n / 2;
      // Hides the misses on the probes of a level below the cached ones.
      for (std::size_t j = 1; j < width; ++j) detail::prefetch_line(base[j] + half);
      (void)co_await load<Policy>(base[0][half]);
      for (std::size_t j = 0; j < width; ++j) base[j] = array.narrow(base[j], half, base[j][half], key[j]);
      n -= half;
    }
    if constexpr (Policy::suspends) {
      if (n > 1 && (width > 1 || spans_lines(base[0], n))) {
        for (std::size_t j = 1; j < width; ++j) detail::prefetch_line(base[j] + n - 1);
        (void)co_await load<Policy>(base[0][n - 1]);
      }
    }
    while (n > 1) {
      const std::size_t half = n / 2;
      for (std::size_t j = 0; j < width; ++j) base[j] = array.narrow(base[j], half, base[j][half], key[j]);
      n -= half;
    }
    for (std::size_t j = 0; j < key.size(); ++j) {
      key.deliver(requests, j,
                  static_cast<std::size_t>(base[j] - array.data()) + (array.less(*base[j], key[j]) ? 1 : 0));
    }
  }
  co_return requests.finish();
}

// Position of the first element not less than `key` (size() if none).
template <execution_policy Policy, class T, class Less>
task<std::size_t> lower_bound(const sorted_array<T, Less>& array, T key) {
  return lower_bound<Policy>(array, one_request<T, std::size_t>{std::move(key)});
}

}  // namespace weave
