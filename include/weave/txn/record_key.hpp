#pragma once
// What an application names a record by: an integer (as 8 unsigned bytes)
// or a byte string (std::string, std::string_view, a literal, or the
// byte_key a scan returned), and how each maps to the key of a table's
// index.

#include <concepts>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "weave/index/byte_key.hpp"

namespace weave::txn {

// An integer key: not a bool or a character, which are rarely meant as one.
template <class K>
concept integer_key = std::integral<K> && !std::same_as<K, bool> && !std::same_as<K, char> &&
                      !std::same_as<K, signed char> && !std::same_as<K, unsigned char> &&
                      !std::same_as<K, wchar_t> && !std::same_as<K, char8_t> && !std::same_as<K, char16_t> &&
                      !std::same_as<K, char32_t>;

template <class K>
concept record_key =
    integer_key<K> || std::convertible_to<const K&, std::string_view> || std::same_as<K, byte_key>;

namespace detail {
template <class K>
struct record_key_traits {  // integers
  using index_key = std::uint64_t;
  using scan_key = std::uint64_t;
  // A negative key would become a huge one (and sort after every other):
  // std::invalid_argument instead.
  static std::uint64_t to_index(K k) {
    if constexpr (std::is_signed_v<K>) {
      if (k < 0) throw std::invalid_argument("a record key is not negative, not " + std::to_string(k));
    }
    return static_cast<std::uint64_t>(k);
  }
  static std::uint64_t to_scan(std::uint64_t k) noexcept { return k; }
};
template <class K>
  requires std::convertible_to<const K&, std::string_view>
struct record_key_traits<K> {
  using index_key = byte_key;
  using scan_key = byte_key;
  static byte_key to_index(const K& k) { return byte_key(std::string_view(k)); }
  static const byte_key& to_scan(const byte_key& k) noexcept { return k; }
};
template <>
struct record_key_traits<byte_key> {
  using index_key = byte_key;
  using scan_key = byte_key;
  static const byte_key& to_index(const byte_key& k) noexcept { return k; }
  static const byte_key& to_scan(const byte_key& k) noexcept { return k; }
};
}  // namespace detail

// The key type of the records a scan from a K returns: std::uint64_t, or
// for a byte-string table the index's own byte_key (inline, no allocation a
// record; str() gives its bytes), which a later scan can start from.
template <record_key K>
using scan_key_t = typename detail::record_key_traits<K>::scan_key;

}  // namespace weave::txn
