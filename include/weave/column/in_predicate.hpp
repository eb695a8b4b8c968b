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

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "weave/column/bit_packed.hpp"
#include "weave/column/column.hpp"

namespace weave::column {

// One bit per code of a dictionary.
class code_set {
 public:
  explicit code_set(std::size_t codes) : words_((codes + 63) / 64) {}
  void insert(code_t c) noexcept { words_[c / 64] |= std::uint64_t{1} << (c % 64); }
  bool contains(code_t c) const noexcept { return (words_[c / 64] >> (c % 64)) & 1; }
  bool empty() const noexcept {
    for (std::uint64_t w : words_)
      if (w != 0) return false;
    return true;
  }

 private:
  std::vector<std::uint64_t> words_;
};

// Rows of `codes` whose code is in `set`.
inline std::size_t count_matching(const bit_packed_vector& codes, const code_set& set) {
  if (set.empty()) return 0;
  std::size_t n = 0;
  for (std::size_t r = 0; r < codes.size(); ++r) n += set.contains(codes[r]) ? 1 : 0;
  return n;
}

// The codes of `values` in `dict`, as a set (the encode step).
template <class Dictionary, class Key, class Scheduler>
code_set encode(const Dictionary& dict, std::span<const Key> values, Scheduler& scheduler) {
  code_set set(dict.size());
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
