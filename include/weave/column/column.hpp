#pragma once
// A column in two fragments, as in SAP HANA's column store.
//
//   Main   sorted dictionary (integers: an array; VARCHAR: front coded) and a
//          code vector; read-optimized, rebuilt only by merge
//   Delta  dictionary in arrival order with a B+-tree over its codes, and a
//          code vector; takes every insert
//
// Rows [0, main rows) live in Main, the rest in Delta. merge() folds Delta
// into a new Main: the union of both dictionaries, every row re-encoded.
// T is the storage type: int32_t, int64_t or std::string.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "weave/column/bit_packed.hpp"
#include "weave/column/delta_dictionary.hpp"
#include "weave/column/front_coded_dictionary.hpp"
#include "weave/column/sorted_dictionary.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/task.hpp"

namespace weave::column {

template <class T>
using main_dictionary = std::conditional_t<std::is_same_v<T, std::string>, front_coded_dictionary, sorted_dictionary<T>>;

enum class fragment_kind { main, delta };

template <class T>
class basic_column {
 public:
  using value_type = T;
  using key_type = key_t<T>;

  // `max_length` bounds VARCHAR values (the Delta dictionary's slot size).
  explicit basic_column(unsigned max_length = 255)
      : max_length_(max_length), delta_(max_length), delta_codes_(1) {}

  std::size_t rows() const noexcept { return main_codes_.size() + delta_codes_.size(); }
  std::size_t main_rows() const noexcept { return main_codes_.size(); }
  const main_dictionary<T>& main() const noexcept { return main_; }
  const bit_packed_vector& main_codes() const noexcept { return main_codes_; }
  const delta_dictionary<T>& delta() const noexcept { return delta_; }
  const bit_packed_vector& delta_codes() const noexcept { return delta_codes_; }
  std::size_t dictionary_bytes() const noexcept { return main_.bytes() + delta_.bytes(); }
  std::size_t bytes() const noexcept { return dictionary_bytes() + main_codes_.bytes() + delta_codes_.bytes(); }

  // Replaces Main: a dictionary and one code per row (codes < dict.size()).
  void set_main(main_dictionary<T> dict, bit_packed_vector codes) {
    main_ = std::move(dict);
    main_codes_ = std::move(codes);
  }

  // Replaces Delta by a bulk-loaded one (see delta_dictionary::bulk_load).
  template <class Values>
  void set_delta(const Values& values, std::span<const code_t> by_value, bit_packed_vector codes) {
    delta_.bulk_load(values, by_value);
    delta_codes_ = std::move(codes);
  }

  // Appends a row to Delta.
  void insert(key_type v) {
    const code_t code = delta_.insert(v);
    if (bit_packed_vector::bits_for(delta_.size()) > delta_codes_.bits()) widen_delta_codes();
    delta_codes_.push_back(code);
  }

  // The value of `row`, without suspending (for merges, oracles and tests).
  T at(std::size_t row) const {
    if (row < main_rows()) return T(main_.at(main_codes_[row]));
    return T(delta_.at(delta_codes_[row - main_rows()]));
  }

  // Folds Delta into a new Main and empties Delta.
  void merge() {
    std::vector<T> from_main, from_delta, values;
    from_main.reserve(main_.size());
    for (std::size_t c = 0; c < main_.size(); ++c) from_main.push_back(T(main_.at(static_cast<code_t>(c))));
    from_delta.reserve(delta_.size());
    for (std::size_t c = 0; c < delta_.size(); ++c) from_delta.push_back(T(delta_.at(static_cast<code_t>(c))));
    std::sort(from_delta.begin(), from_delta.end());
    values.reserve(from_main.size() + from_delta.size());
    std::set_union(from_main.begin(), from_main.end(), from_delta.begin(), from_delta.end(),
                   std::back_inserter(values));
    const auto new_code = [&](const key_type v) {
      return static_cast<code_t>(std::lower_bound(values.begin(), values.end(), v) - values.begin());
    };
    std::vector<code_t> main_map(main_.size()), delta_map(delta_.size());
    for (std::size_t c = 0; c < main_map.size(); ++c) main_map[c] = new_code(main_.at(static_cast<code_t>(c)));
    for (std::size_t c = 0; c < delta_map.size(); ++c) delta_map[c] = new_code(delta_.at(static_cast<code_t>(c)));

    bit_packed_vector codes(bit_packed_vector::bits_for(values.size()), rows());
    for (std::size_t r = 0; r < main_codes_.size(); ++r) codes.push_back(main_map[main_codes_[r]]);
    for (std::size_t r = 0; r < delta_codes_.size(); ++r) codes.push_back(delta_map[delta_codes_[r]]);
    if constexpr (std::is_same_v<T, std::string>) {
      main_ = front_coded_dictionary(values);
    } else {
      huge_buffer<T> sorted(values.size());
      std::copy(values.begin(), values.end(), sorted.data());
      main_ = sorted_dictionary<T>(std::move(sorted));
    }
    main_codes_ = std::move(codes);
    delta_ = delta_dictionary<T>(max_length_);
    delta_codes_ = bit_packed_vector(1);
  }

 private:
  void widen_delta_codes() {
    bit_packed_vector wider(bit_packed_vector::bits_for(delta_.size()), delta_codes_.size() * 2);
    for (std::size_t r = 0; r < delta_codes_.size(); ++r) wider.push_back(delta_codes_[r]);
    delta_codes_ = std::move(wider);
  }

  unsigned max_length_;
  main_dictionary<T> main_;
  bit_packed_vector main_codes_{1};
  delta_dictionary<T> delta_;
  bit_packed_vector delta_codes_;
};

// Prefetches the line or two the code of `row` spans: its first and last
// byte name them, with no count of lines to work out.
inline void prefetch_code(const bit_packed_vector& codes, std::size_t row) noexcept {
  const char* first = static_cast<const char*>(codes.address_of(row));
  detail::prefetch_line(first);
  detail::prefetch_line(first + bit_packed_vector::span_bytes() - 1);
}

// The code of `row` in a code vector: one likely miss. An awaitable rather
// than a task, so that reading a code takes no frame of its own (a frame, its
// ramp and the transfers in and out cost more instructions than the read).
template <execution_policy Policy>
struct code_awaitable : detail::suspend_to_scheduler {
  const bit_packed_vector* codes;
  std::size_t row;

  bool await_ready() const noexcept {
    if constexpr (Policy::suspends) {
      prefetch_code(*codes, row);
      return false;
    } else {
      return true;
    }
  }
  code_t await_resume() const noexcept { return (*codes)[row]; }
};

template <execution_policy Policy>
code_awaitable<Policy> code_at(const bit_packed_vector& codes, std::size_t row) noexcept {
  return {{}, &codes, row};
}

// The value of `row`: the code, then the dictionary, each a likely miss.
template <execution_policy Policy, class T>
task<T> fetch(const basic_column<T>& column, std::size_t row) {
  if (row < column.main_rows()) {
    co_return co_await extract<Policy>(column.main(), co_await code_at<Policy>(column.main_codes(), row));
  }
  const std::size_t r = row - column.main_rows();
  co_return co_await extract<Policy>(column.delta(), co_await code_at<Policy>(column.delta_codes(), r));
}

}  // namespace weave::column
