#pragma once
// The dictionary of an integer column's Main fragment: its distinct values,
// sorted, so that a value's code is its position.
//
//   locate(value)  the code of a value (binary search), if present
//   extract(code)  the value of a code (one array access)
//
// Both are likely misses once the dictionary outgrows the cache: locate
// suspends at every level below the cached ones, extract once.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>

#include "weave/column/bit_packed.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/task.hpp"
#include "weave/index/sorted_array.hpp"

namespace weave::column {

template <class T>
class sorted_dictionary {
 public:
  using value_type = T;

  sorted_dictionary() = default;
  // Takes distinct values in ascending order.
  explicit sorted_dictionary(huge_buffer<T> values) : values_(std::move(values)) {
    for (std::size_t i = 1; i < values_.size(); ++i) {
      if (!(values_[i - 1] < values_[i])) throw std::invalid_argument("dictionary values must be sorted and distinct");
    }
    if (values_.size() > (std::size_t{1} << 32)) throw std::length_error("dictionary too large");
  }

  std::size_t size() const noexcept { return values_.size(); }
  std::size_t bytes() const noexcept { return values_.bytes(); }
  const T& at(code_t code) const noexcept { return values_[code]; }
  const sorted_array<T>& values() const noexcept { return values_; }

 private:
  sorted_array<T> values_;
};

template <execution_policy Policy, class T>
task<std::optional<code_t>> locate(const sorted_dictionary<T>& dict, T value) {
  const std::size_t pos = co_await lower_bound<Policy>(dict.values(), value);
  // The search's last probe was this element's line: no miss left.
  if (pos < dict.size() && dict.at(static_cast<code_t>(pos)) == value) co_return static_cast<code_t>(pos);
  co_return std::nullopt;
}

// One load, awaited in the caller's frame: no task of its own.
template <execution_policy Policy, class T>
load_awaitable<Policy, T> extract(const sorted_dictionary<T>& dict, code_t code) noexcept {
  return load<Policy>(dict.at(code));
}

}  // namespace weave::column
