#include "weave/column/types.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <stdexcept>

namespace weave::column {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

unsigned parse_unsigned(std::string_view s, std::string_view what) {
  s = trim(s);
  unsigned v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) {
    throw std::invalid_argument(fmt::format("bad {} '{}'", what, s));
  }
  return v;
}

// The arguments inside "NAME(a,b)", or empty if there are no parentheses.
std::string_view arguments(std::string_view text, std::string_view name) {
  text = trim(text.substr(name.size()));
  if (text.empty()) return {};
  if (text.front() != '(' || text.back() != ')') {
    throw std::invalid_argument(fmt::format("bad type '{}'", text));
  }
  return text.substr(1, text.size() - 2);
}

}  // namespace

column_type column_type::decimal(unsigned precision, unsigned scale) {
  if (precision < 1 || precision > max_decimal_digits) throw std::invalid_argument("DECIMAL precision must be 1..18");
  if (scale > precision) throw std::invalid_argument("DECIMAL scale must not exceed its precision");
  return {type_kind::decimal, precision, scale, 0};
}

column_type column_type::varchar(unsigned length) {
  if (length < 1 || length > 255) throw std::invalid_argument("VARCHAR length must be 1..255");
  return {type_kind::varchar, 0, 0, length};
}

void validate(const column_type& type) {
  switch (type.kind) {
    case type_kind::integer:
    case type_kind::bigint: return;
    case type_kind::decimal: column_type::decimal(type.precision, type.scale); return;
    case type_kind::varchar: column_type::varchar(type.length); return;
  }
  throw std::invalid_argument("unknown column type kind " + std::to_string(static_cast<int>(type.kind)));
}

column_type column_type::parse(std::string_view text) {
  const std::string t = upper(trim(text));
  if (t == "INTEGER" || t == "INT") return integer();
  if (t == "BIGINT") return bigint();
  if (t.starts_with("DECIMAL")) {
    const std::string_view args = arguments(t, "DECIMAL");
    const std::size_t comma = args.find(',');
    if (args.empty() || comma == std::string_view::npos) {
      throw std::invalid_argument(fmt::format("DECIMAL needs (precision,scale): '{}'", text));
    }
    return decimal(parse_unsigned(args.substr(0, comma), "precision"),
                   parse_unsigned(args.substr(comma + 1), "scale"));
  }
  if (t.starts_with("VARCHAR")) {
    const std::string_view args = arguments(t, "VARCHAR");
    if (args.empty()) throw std::invalid_argument(fmt::format("VARCHAR needs (length): '{}'", text));
    return varchar(parse_unsigned(args, "length"));
  }
  throw std::invalid_argument(
      fmt::format("unknown type '{}' (INTEGER, BIGINT, DECIMAL(p,s) or VARCHAR(n))", text));
}

std::string column_type::name() const {
  switch (kind) {
    case type_kind::integer: return "INTEGER";
    case type_kind::bigint: return "BIGINT";
    case type_kind::decimal: return fmt::format("DECIMAL({},{})", precision, scale);
    case type_kind::varchar: return fmt::format("VARCHAR({})", length);
  }
  return "?";
}

value parse_value(const column_type& type, std::string_view text) {
  const std::string_view t = type.kind == type_kind::varchar ? text : trim(text);
  const auto integer = [&](auto& v) {
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc{} || end != t.data() + t.size()) {
      throw std::invalid_argument(fmt::format("'{}' is not a valid {}", t, type.name()));
    }
  };
  switch (type.kind) {
    case type_kind::integer: {
      std::int32_t v = 0;
      integer(v);
      return v;
    }
    case type_kind::bigint: {
      std::int64_t v = 0;
      integer(v);
      return v;
    }
    case type_kind::decimal: {
      // [-]digits[.digits], at most `scale` digits after the point and
      // `precision` digits in all.
      std::string_view s = t;
      const bool negative = !s.empty() && s.front() == '-';
      if (negative) s.remove_prefix(1);
      const std::size_t point = s.find('.');
      const std::string_view whole = s.substr(0, point);
      const std::string_view frac = point == std::string_view::npos ? std::string_view{} : s.substr(point + 1);
      const bool digits = std::all_of(whole.begin(), whole.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
                          std::all_of(frac.begin(), frac.end(), [](char c) { return c >= '0' && c <= '9'; });
      const std::size_t significant = whole.size() - std::min(whole.find_first_not_of('0'), whole.size());
      if (!digits || (whole.empty() && frac.empty()) || frac.size() > type.scale ||
          significant + type.scale > type.precision) {
        throw std::invalid_argument(fmt::format("'{}' is not a valid {}", t, type.name()));
      }
      std::int64_t units = 0;
      for (char c : whole) units = units * 10 + (c - '0');
      for (char c : frac) units = units * 10 + (c - '0');
      units *= pow10(type.scale - static_cast<unsigned>(frac.size()));
      return decimal{negative ? -units : units, type.scale};
    }
    case type_kind::varchar:
      if (t.size() > type.length) {
        throw std::invalid_argument(fmt::format("'{}' is longer than {}", t, type.name()));
      }
      return std::string(t);
  }
  throw std::invalid_argument("unknown type");
}

std::string format_value(const value& v) {
  struct {
    std::string operator()(std::int32_t x) const { return fmt::format("{}", x); }
    std::string operator()(std::int64_t x) const { return fmt::format("{}", x); }
    std::string operator()(const decimal& d) const {
      if (d.scale == 0) return fmt::format("{}", d.units);
      if (d.scale > max_decimal_digits) return fmt::format("{}e-{}", d.units, d.scale);  // no DECIMAL's value
      const std::int64_t p = pow10(d.scale);
      const std::uint64_t mag = d.units < 0 ? 0 - static_cast<std::uint64_t>(d.units) : static_cast<std::uint64_t>(d.units);
      return fmt::format("{}{}.{:0{}}", d.units < 0 ? "-" : "", mag / static_cast<std::uint64_t>(p),
                         mag % static_cast<std::uint64_t>(p), d.scale);
    }
    std::string operator()(const std::string& s) const { return s; }
  } visitor;
  return std::visit(visitor, v);
}

}  // namespace weave::column
