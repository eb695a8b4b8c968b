#pragma once
// A code vector: one dictionary code per row, each `bits` wide, packed.
//
// A code is read with one unaligned 8-byte load at the byte that holds its
// first bit and a shift, so codes up to 32 bits never need a second load. The
// buffer keeps 8 bytes of slack at the end for that load. Storage comes from
// huge_buffer (a row fetch is a random access into a large vector) and grows
// by doubling for the append-only Delta fragment.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "weave/memory/huge_buffer.hpp"

namespace weave::column {

using code_t = std::uint32_t;

class bit_packed_vector {
 public:
  static constexpr unsigned max_bits = 32;

  // Bits needed for codes 0 .. distinct - 1 (at least 1).
  static unsigned bits_for(std::size_t distinct) noexcept {
    return distinct <= 2 ? 1u : static_cast<unsigned>(std::bit_width(distinct - 1));
  }

  bit_packed_vector() = default;
  explicit bit_packed_vector(unsigned bits, std::size_t capacity = 0) : bits_(bits) {
    if (bits < 1 || bits > max_bits) throw std::invalid_argument("code width must be 1..32 bits");
    mask_ = (std::uint64_t{1} << bits) - 1;
    reserve(capacity);
  }

  std::size_t size() const noexcept { return size_; }
  unsigned bits() const noexcept { return bits_; }
  std::size_t bytes() const noexcept { return (size_ * bits_ + 7) / 8; }

  code_t operator[](std::size_t row) const noexcept {
    const std::size_t bit = row * bits_;
    std::uint64_t word;
    std::memcpy(&word, bytes_.data() + bit / 8, sizeof word);
    return static_cast<code_t>((word >> (bit % 8)) & mask_);
  }

  // The first byte of `row`'s code, for prefetching (the code may reach
  // into the next line; the caller prefetches `span_bytes()` from here).
  const void* address_of(std::size_t row) const noexcept { return bytes_.data() + row * bits_ / 8; }
  static constexpr std::size_t span_bytes() noexcept { return 8; }

  // Grows to `rows` codes; new codes are 0.
  void resize(std::size_t rows) {
    reserve(rows);
    size_ = rows;
  }

  void push_back(code_t code) {
    if (size_ == capacity_) reserve(std::max<std::size_t>(64, capacity_ * 2));
    ++size_;
    set(size_ - 1, code);
  }

  void set(std::size_t row, code_t code) noexcept {
    const std::size_t bit = row * bits_;
    std::uint64_t word;
    std::memcpy(&word, bytes_.data() + bit / 8, sizeof word);
    word &= ~(mask_ << (bit % 8));
    word |= (static_cast<std::uint64_t>(code) & mask_) << (bit % 8);
    std::memcpy(bytes_.data() + bit / 8, &word, sizeof word);
  }

  void reserve(std::size_t rows) {
    if (rows <= capacity_) return;
    huge_buffer<unsigned char> grown((rows * bits_ + 7) / 8 + sizeof(std::uint64_t));
    if (size_ > 0) std::memcpy(grown.data(), bytes_.data(), bytes());
    bytes_ = std::move(grown);
    capacity_ = rows;
  }

 private:
  huge_buffer<unsigned char> bytes_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  unsigned bits_ = 1;
  std::uint64_t mask_ = 1;
};

}  // namespace weave::column
