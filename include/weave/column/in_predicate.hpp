#pragma once
// SELECT COUNT(*) FROM T WHERE C IN (v1, ..., vK)
//
// Per fragment, in two steps:
//   encode  locate every listed value in the fragment's dictionary: an index
//           join of the list with the dictionary, K independent lookups run
//           by the given scheduler (sequential, interleaved or adaptive)
//   count   one bit per dictionary code, set for the codes found; a scan of
//           the code vector counts the rows whose bit is set
// Values missing from a dictionary match nothing there.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "weave/column/bit_packed.hpp"
#include "weave/column/column.hpp"

namespace weave::column {

// The codes a query matches. A bitmap of one bit per dictionary code while
// that stays cache-sized (1 MiB); for larger dictionaries a small open-
// addressing hash set of the matched codes, so that neither clearing nor
// probing it touches memory in proportion to the dictionary. In front of the
// hash set sits an 8 KiB filter (one bit per hash value): a scan rejects most
// rows with one L1 access instead of a probe.
class code_set {
 public:
  static constexpr std::size_t max_bitmap_codes = std::size_t{8} << 20;

  // For codes below `codes`, about `expected` of them.
  code_set(std::size_t codes, std::size_t expected) {
    if (codes <= max_bitmap_codes) {
      words_.assign((codes + 63) / 64, 0);
    } else {
      const std::size_t slots = std::bit_ceil(std::max<std::size_t>(2 * expected, 16));
      slots_.assign(slots, none);
      mask_ = slots - 1;
      filter_.assign(filter_bits / 64, 0);
    }
  }

  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }

  void insert(code_t c) {
    if (!words_.empty()) {
      std::uint64_t& w = words_[c / 64];
      const std::uint64_t bit = std::uint64_t{1} << (c % 64);
      size_ += (w & bit) ? 0 : 1;
      w |= bit;
      return;
    }
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = slot_of(c);
    while (slots_[i] != none && slots_[i] != c) i = (i + 1) & mask_;
    if (slots_[i] == none) {
      slots_[i] = c;
      ++size_;
      const std::size_t f = filter_of(c);
      filter_[f / 64] |= std::uint64_t{1} << (f % 64);
    }
  }

  bool contains(code_t c) const noexcept { return is_bitmap() ? in_bitmap(c) : in_table(c); }
  // The two halves of contains(), for loops that pick one up front.
  bool in_bitmap(code_t c) const noexcept { return (words_[c / 64] >> (c % 64)) & 1; }
  bool in_table(code_t c) const noexcept {
    const std::size_t f = filter_of(c);
    if (!((filter_[f / 64] >> (f % 64)) & 1)) return false;
    for (std::size_t i = slot_of(c);; i = (i + 1) & mask_) {
      if (slots_[i] == c) return true;
      if (slots_[i] == none) return false;
    }
  }

  bool is_bitmap() const noexcept { return !words_.empty() || slots_.empty(); }

 private:
  static constexpr code_t none = ~code_t{0};  // codes stay below 2^32 - 1

  static constexpr std::size_t filter_bits = std::size_t{1} << 16;

  std::size_t slot_of(code_t c) const noexcept {
    return static_cast<std::size_t>((std::uint64_t{c} * 0x9e3779b97f4a7c15ULL) >> 32) & mask_;
  }
  // Other bits of the product than slot_of uses, so the two stay independent.
  static std::size_t filter_of(code_t c) noexcept {
    return static_cast<std::size_t>((std::uint64_t{c} * 0x9e3779b97f4a7c15ULL) >> 48) & (filter_bits - 1);
  }
  void grow() {
    std::vector<code_t> old = std::move(slots_);
    slots_.assign(old.size() * 2, none);
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (code_t c : old)
      if (c != none) insert(c);
  }

  std::vector<std::uint64_t> words_;
  std::vector<code_t> slots_;
  std::vector<std::uint64_t> filter_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

// Rows of `codes` whose code is in `set`.
inline std::size_t count_matching(const bit_packed_vector& codes, const code_set& set) {
  if (set.empty()) return 0;
  std::size_t n = 0;
  // One loop per representation, so the scan does not branch on it per row.
  if (set.is_bitmap()) {
    for (std::size_t r = 0; r < codes.size(); ++r) n += set.in_bitmap(codes[r]) ? 1 : 0;
  } else {
    for (std::size_t r = 0; r < codes.size(); ++r) n += set.in_table(codes[r]) ? 1 : 0;
  }
  return n;
}

// The codes of `values` in `dict`, as a set (the encode step).
template <class Dictionary, class Key, class Scheduler>
code_set encode(const Dictionary& dict, std::span<const Key> values, Scheduler& scheduler) {
  code_set set(dict.size(), values.size());
  if (dict.size() == 0) return set;
  scheduler.run(
      values.size(),
      [&](auto policy, std::size_t i) { return locate<decltype(policy)>(dict, values[i]); },
      [&](std::size_t, std::optional<code_t> code) {
        if (code) set.insert(*code);
      });
  return set;
}

template <class T, class Scheduler>
std::size_t count_in(const basic_column<T>& column, std::span<const key_t<T>> values, Scheduler& scheduler) {
  std::size_t n = 0;
  if (column.main_rows() > 0) n += count_matching(column.main_codes(), encode(column.main(), values, scheduler));
  if (column.delta_codes().size() > 0) {
    n += count_matching(column.delta_codes(), encode(column.delta(), values, scheduler));
  }
  return n;
}

}  // namespace weave::column
