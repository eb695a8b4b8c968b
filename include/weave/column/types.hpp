#pragma once
// SQL column types and the values a query hands in and gets back.
//
//   INTEGER        int32, stored as int32
//   BIGINT         int64, stored as int64
//   DECIMAL(p,s)   p <= 18 digits, s of them after the point, stored as the
//                  int64 number of 10^-s units (12.30 in DECIMAL(5,2) is 1230)
//   VARCHAR(n)     up to n <= 255 bytes, stored as the bytes
//
// Values cross the API as `value`; inside a column every type is one of
// three storage types (int32, int64, string), which is what the dictionaries
// and code paths are written for.

#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

namespace weave::column {

enum class type_kind { integer, bigint, decimal, varchar };

struct column_type {
  type_kind kind = type_kind::integer;
  unsigned precision = 0;  // DECIMAL
  unsigned scale = 0;      // DECIMAL
  unsigned length = 0;     // VARCHAR

  static column_type integer() { return {type_kind::integer}; }
  static column_type bigint() { return {type_kind::bigint}; }
  static column_type decimal(unsigned precision, unsigned scale);
  static column_type varchar(unsigned length);
  // "INTEGER", "INT", "BIGINT", "DECIMAL(p,s)", "VARCHAR(n)" (any case).
  static column_type parse(std::string_view text);

  std::string name() const;
  bool operator==(const column_type&) const = default;
};

// DECIMAL's most digits: 10^18 still fits an int64.
inline constexpr unsigned max_decimal_digits = 18;

// 10^digits, for a DECIMAL's precision or scale; throws
// std::invalid_argument past max_decimal_digits (it would overflow).
constexpr std::int64_t pow10(unsigned digits) {
  if (digits > max_decimal_digits) throw std::invalid_argument("more than 18 decimal digits");
  std::int64_t p = 1;
  for (unsigned i = 0; i < digits; ++i) p *= 10;
  return p;
}

// Throws std::invalid_argument for a type no column holds (one built as an
// aggregate rather than by the functions above): a kind out of range, a
// DECIMAL's precision outside 1..18 or scale above it, a VARCHAR's length
// outside 1..255.
void validate(const column_type& type);

struct decimal {
  std::int64_t units = 0;  // in 10^-scale
  unsigned scale = 0;
  // Orders values of one scale (units first).
  auto operator<=>(const decimal&) const = default;
};

using value = std::variant<std::int32_t, std::int64_t, decimal, std::string>;

// Parses `text` as a value of `type`; throws std::invalid_argument saying why.
value parse_value(const column_type& type, std::string_view text);
std::string format_value(const value& v);

// The storage type of each kind.
template <type_kind K>
using storage_t = std::conditional_t<K == type_kind::integer, std::int32_t,
                                     std::conditional_t<K == type_kind::varchar, std::string, std::int64_t>>;

}  // namespace weave::column
