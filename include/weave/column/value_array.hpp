#pragma once
// The values of a Delta dictionary in the order they arrived: a value's code
// is its index. Integers sit in a plain array; VARCHAR values in fixed slots
// of 1 + n bytes (length, then bytes), so that any code's value is one
// address away and one prefetch covers it.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "weave/column/bit_packed.hpp"
#include "weave/memory/append_buffer.hpp"

namespace weave::column {

// What a dictionary compares: the storage type, or a view of a string.
template <class T>
using key_t = std::conditional_t<std::is_same_v<T, std::string>, std::string_view, T>;

template <class T>
class value_array {
 public:
  explicit value_array(unsigned /*max_length*/ = 0) {}
  std::size_t size() const noexcept { return values_.size(); }
  std::size_t bytes() const noexcept { return values_.bytes(); }
  T at(code_t code) const noexcept { return values_[code]; }
  const void* address(code_t code) const noexcept { return &values_[code]; }
  std::size_t stride() const noexcept { return sizeof(T); }
  code_t push_back(T value) { return static_cast<code_t>(values_.push_back(value)); }
  void reserve(std::size_t n) { values_.reserve(n); }

 private:
  append_buffer<T> values_;
};

template <>
class value_array<std::string> {
 public:
  explicit value_array(unsigned max_length = 255) : stride_(1 + std::size_t{max_length}) {
    if (max_length < 1 || max_length > 255) throw std::invalid_argument("VARCHAR length must be 1..255");
  }
  std::size_t size() const noexcept { return bytes_.size() / stride_; }
  std::size_t bytes() const noexcept { return bytes_.bytes(); }
  std::string_view at(code_t code) const noexcept {
    const char* slot = bytes_.data() + code * stride_;
    return {slot + 1, static_cast<unsigned char>(slot[0])};
  }
  const void* address(code_t code) const noexcept { return bytes_.data() + code * stride_; }
  std::size_t stride() const noexcept { return stride_; }
  code_t push_back(std::string_view value) {
    if (value.size() + 1 > stride_) throw std::invalid_argument("value longer than its VARCHAR");
    const std::size_t at = bytes_.size();
    bytes_.resize(at + stride_);
    bytes_[at] = static_cast<char>(value.size());
    std::copy(value.begin(), value.end(), bytes_.data() + at + 1);
    return static_cast<code_t>(at / stride_);
  }
  void reserve(std::size_t n) { bytes_.reserve(n * stride_); }

 private:
  std::size_t stride_;
  append_buffer<char> bytes_;
};

}  // namespace weave::column
