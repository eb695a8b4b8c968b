#pragma once
// A sorted array searched by binary search (lower bound).
//
// The search is the branchless form: the range [base, base + n) halves each
// step and a conditional move picks the half, so the only stall left is the
// load of the probe. The first probes of every search hit the same few
// elements and stay cached; deeper probes land on random lines and miss. The
// lookup therefore suspends only below the cached levels, and only while the
// remaining range is wider than a cache line (after that the probes fall in a
// line just fetched).

#include <cstddef>
#include <functional>
#include <span>

#include "weave/exec/load.hpp"
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

  // Whether the probe at `depth` with `remaining` elements left is likely a miss.
  bool miss_likely(unsigned depth, std::size_t remaining) const noexcept {
    return depth >= hot_levels_ && remaining * sizeof(T) > machine::cache_line;
  }

  static bool less(const T& a, const T& b) noexcept { return Less{}(a, b); }

 private:
  huge_buffer<T> data_;
  unsigned hot_levels_ = machine::hot_levels(2, machine::cache_line);
};

// Position of the first element not less than `key` (size() if none).
template <execution_policy Policy, class T, class Less>
task<std::size_t> lower_bound(const sorted_array<T, Less>& array, T key) {
  const T* base = array.data();
  std::size_t n = array.size();
  if (n == 0) co_return 0;
  for (unsigned depth = 0; n > 1; ++depth) {
    const std::size_t half = n / 2;
    // Hides the miss on the probe of a deep level.
    const T probe = co_await load<Policy>(base[half], array.miss_likely(depth, n));
    base = array.less(probe, key) ? base + half : base;
    n -= half;
  }
  co_return static_cast<std::size_t>(base - array.data()) + (array.less(*base, key) ? 1 : 0);
}

}  // namespace weave
