#pragma once
// A byte-string key of up to 47 bytes, held inline in fixed 48 bytes so that
// an ordered index compares keys without chasing pointers.
//
// The bytes are packed big-endian into six 64-bit words, zero-padded, with
// the length in the last byte. Comparing the words as unsigned integers, in
// order, then compares the strings byte by byte, and a string before any
// longer string it is a prefix of (zero padding ties; the length breaks it).

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace weave {

class byte_key {
 public:
  static constexpr unsigned words = 6;
  static constexpr std::size_t capacity = words * 8 - 1;

  byte_key() = default;
  // Throws std::length_error for a key longer than `capacity`.
  explicit byte_key(std::string_view s) {
    if (s.size() > capacity) {
      throw std::length_error("key of " + std::to_string(s.size()) + " bytes; keys are at most " +
                              std::to_string(capacity) + " bytes");
    }
    for (std::size_t i = 0; i < s.size(); ++i) {
      w_[i / 8] |= std::uint64_t{static_cast<unsigned char>(s[i])} << (56 - 8 * (i % 8));
    }
    w_[words - 1] |= s.size();
  }
  // From words as stored by word().
  static byte_key from_words(const std::array<std::uint64_t, words>& w) noexcept {
    byte_key k;
    k.w_ = w;
    return k;
  }

  // The key no other key follows: `capacity` bytes of 0xff. Built from its
  // words: an unbounded scan asks for it every time.
  static byte_key largest() noexcept {
    byte_key k;
    k.w_.fill(~std::uint64_t{0});
    k.w_[words - 1] = (~std::uint64_t{0} << 8) | capacity;
    return k;
  }

  std::uint64_t word(unsigned i) const noexcept { return w_[i]; }
  std::size_t size() const noexcept { return w_[words - 1] & 0xff; }
  // Writes the key's size() bytes to `out`.
  void copy_to(char* out) const noexcept {
    for (std::size_t i = 0, n = size(); i < n; ++i) out[i] = static_cast<char>(w_[i / 8] >> (56 - 8 * (i % 8)));
  }
  // Whether this key and `other` have the same first `bytes` bytes (both
  // being at least that long).
  bool same_prefix(const byte_key& other, std::size_t bytes) const noexcept {
    if (bytes > capacity || size() < bytes || other.size() < bytes) return false;
    const std::size_t whole = bytes / 8;
    for (std::size_t i = 0; i < whole; ++i) {
      if (w_[i] != other.w_[i]) return false;
    }
    const std::size_t rest = bytes % 8;
    if (rest == 0) return true;
    const std::uint64_t mask = ~std::uint64_t{0} << (64 - 8 * rest);
    return ((w_[whole] ^ other.w_[whole]) & mask) == 0;
  }
  std::string str() const {
    std::string s(size(), '\0');
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>(w_[i / 8] >> (56 - 8 * (i % 8)));
    return s;
  }

  friend std::strong_ordering operator<=>(const byte_key&, const byte_key&) = default;
  friend bool operator==(const byte_key&, const byte_key&) = default;

 private:
  std::array<std::uint64_t, words> w_{};
};

}  // namespace weave
