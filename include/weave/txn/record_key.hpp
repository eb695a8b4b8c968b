#pragma once
// What an application names a record by: an integer (as 8 unsigned bytes)
// or a byte string (std::string, std::string_view, a literal, or the
// byte_key a scan returned), and how each maps to the key of a table's
// index.

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>

#include "weave/index/byte_key.hpp"

namespace weave::txn {

template <class K>
concept record_key =
    std::integral<K> || std::convertible_to<const K&, std::string_view> || std::same_as<K, byte_key>;

namespace detail {
template <class K>
struct record_key_traits {  // integers
  using index_key = std::uint64_t;
  using scan_key = std::uint64_t;
  static std::uint64_t to_index(K k) noexcept { return static_cast<std::uint64_t>(k); }
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
