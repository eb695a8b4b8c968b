#pragma once
// A fixed-length byte string key (for example a 16-byte code), ordered like
// memcmp so that sorted arrays of them can be binary-searched.

#include <array>
#include <compare>
#include <cstddef>
#include <cstring>
#include <string_view>

namespace weave {

template <std::size_t N>
struct fixed_string {
  std::array<char, N> bytes{};

  fixed_string() = default;
  // Copies up to N bytes of `s`; shorter strings are padded with zero bytes.
  explicit fixed_string(std::string_view s) noexcept {
    std::memcpy(bytes.data(), s.data(), s.size() < N ? s.size() : N);
  }

  std::string_view view() const noexcept { return {bytes.data(), N}; }

  friend bool operator==(const fixed_string& a, const fixed_string& b) noexcept {
    return std::memcmp(a.bytes.data(), b.bytes.data(), N) == 0;
  }
  friend std::strong_ordering operator<=>(const fixed_string& a, const fixed_string& b) noexcept {
    const int c = std::memcmp(a.bytes.data(), b.bytes.data(), N);
    return c < 0 ? std::strong_ordering::less
                 : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
  }
};

using key16 = fixed_string<16>;
static_assert(sizeof(key16) == 16);

}  // namespace weave
