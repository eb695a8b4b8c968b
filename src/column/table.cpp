#include "weave/column/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include "weave/memory/saturating.hpp"

namespace weave::column {

namespace {

std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::size_t distinct_for(const column_type& type, std::size_t distinct) {
  return std::max<std::size_t>(1, std::min(distinct, generated_capacity(type)));
}

// The i-th of `d` sorted distinct integers spread over [low, low + span).
std::int64_t spread(std::int64_t low, std::uint64_t span, std::size_t d, std::size_t i, std::uint64_t h) {
  const std::uint64_t gap = std::max<std::uint64_t>(1, span / d);
  return low + static_cast<std::int64_t>(i * gap + h % gap);
}

std::string generated_string(unsigned length, std::size_t d, std::size_t i, std::uint64_t h) {
  // A fixed-width base-26 rank keeps the strings sorted and distinct and
  // gives neighbours shared prefixes; a random tail varies their lengths.
  unsigned width = 1;
  for (std::size_t x = d - 1; x >= 26; x /= 26) ++width;
  std::string s(width, 'a');
  for (std::size_t x = i, k = width; k-- > 0; x /= 26) s[k] = static_cast<char>('a' + x % 26);
  const std::size_t tail = length > width ? h % (length - width + 1) : 0;
  for (std::size_t k = 0; k < tail; ++k) s.push_back(static_cast<char>('a' + (h >> (k % 8 * 8)) % 26));
  return s;
}

template <class T>
T stored_value(const column_type& type, std::size_t d, std::size_t i, std::uint64_t seed) {
  const std::uint64_t h = mix(seed ^ mix(i));
  if constexpr (std::is_same_v<T, std::string>) {
    return generated_string(type.length, d, i, h);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return static_cast<std::int32_t>(spread(std::numeric_limits<std::int32_t>::min(), std::uint64_t{1} << 32, d, i, h));
  } else if (type.kind == type_kind::decimal) {
    const auto top = static_cast<std::uint64_t>(pow10(type.precision)) - 1;
    return spread(-static_cast<std::int64_t>(top), 2 * top + 1, d, i, h);
  } else {
    return spread(-(std::int64_t{1} << 61), std::uint64_t{1} << 62, d, i, h);
  }
}

// Values of codes 0..d-1 made on the fly, in the order `order(c)` gives.
template <class T, class Order>
struct generated_values {
  const column_type* type;
  std::size_t d;
  std::uint64_t seed;
  Order order;

  struct iterator {
    const generated_values* range;
    std::size_t c;
    T operator*() const { return stored_value<T>(*range->type, range->d, range->order(c), range->seed); }
    iterator& operator++() {
      ++c;
      return *this;
    }
    bool operator!=(const iterator& o) const { return c != o.c; }
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, d}; }
  std::size_t size() const { return d; }
};

// A bijection of [0, d): an odd multiplier and an offset modulo the next
// power of two, walked until it lands below d.
struct shuffle {
  std::uint64_t mask, mul, add, d;
  shuffle(std::size_t d_, std::uint64_t seed)
      : mask(std::bit_ceil(std::max<std::uint64_t>(d_, 2)) - 1), mul(mix(seed) | 1), add(mix(seed + 1)), d(d_) {}
  std::size_t operator()(std::size_t c) const {
    std::uint64_t x = c;
    do x = (x * mul + add) & mask;
    while (x >= d);
    return x;
  }
};

template <class T>
basic_column<T> generate_column(const column_type& type, const table_recipe& recipe, std::uint64_t seed,
                                const std::function<void(double)>& progress, double done, double share) {
  const std::size_t d = distinct_for(type, recipe.distinct);
  basic_column<T> column(type.kind == type_kind::varchar ? type.length : 255);
  bit_packed_vector codes(bit_packed_vector::bits_for(d), recipe.rows);
  std::uint64_t state = mix(seed ^ 0x5eed);
  for (std::size_t r = 0; r < recipe.rows; ++r) {
    state = mix(state);
    __extension__ using u128 = unsigned __int128;
    codes.push_back(static_cast<code_t>((static_cast<u128>(state) * d) >> 64));
    if (progress && r % (1 << 22) == 0) progress(done + share * 0.3 * static_cast<double>(r) / static_cast<double>(recipe.rows));
  }
  const auto identity = [](std::size_t c) { return c; };
  if (recipe.fragment == fragment_kind::main) {
    if constexpr (std::is_same_v<T, std::string>) {
      column.set_main(front_coded_dictionary(generated_values<T, decltype(identity)>{&type, d, seed, identity}),
                      std::move(codes));
    } else {
      huge_buffer<T> values(d);
      for (std::size_t i = 0; i < d; ++i) values[i] = stored_value<T>(type, d, i, seed);
      column.set_main(sorted_dictionary<T>(std::move(values)), std::move(codes));
    }
  } else {
    const shuffle arrival(d, seed);
    std::vector<code_t> by_value(d);
    for (std::size_t c = 0; c < d; ++c) by_value[arrival(c)] = static_cast<code_t>(c);
    if (progress) progress(done + share * 0.5);
    column.set_delta(generated_values<T, shuffle>{&type, d, seed, arrival}, by_value, std::move(codes));
  }
  return column;
}

}  // namespace

std::size_t generated_capacity(const column_type& type) {
  switch (type.kind) {
    case type_kind::integer:
      return std::size_t{1} << 32;
    case type_kind::bigint:
      return std::size_t{1} << 62;
    case type_kind::decimal:
      return 2 * static_cast<std::size_t>(pow10(type.precision)) - 1;
    case type_kind::varchar: {
      std::size_t c = 1;
      for (unsigned i = 0; i < type.length && c < (std::size_t{1} << 40); ++i) c *= 26;
      return c;
    }
  }
  return 0;
}

// --- table -------------------------------------------------------------

const table_column& table::column(std::string_view name) const {
  if (const auto it = index_.find(std::string(name)); it != index_.end()) return columns_[it->second];
  throw std::invalid_argument(fmt::format("no column '{}'", name));
}

std::size_t table::dictionary_bytes() const noexcept {
  std::size_t n = 0;
  for (const auto& c : columns_) n += std::visit([](const auto& col) { return col.dictionary_bytes(); }, c.data);
  return n;
}

std::size_t table::bytes() const noexcept {
  std::size_t n = 0;
  for (const auto& c : columns_) n += std::visit([](const auto& col) { return col.bytes(); }, c.data);
  return n;
}

namespace {
// Calls f with std::type_identity of what a column of `type` stores: the
// one mapping from types to any_column's alternatives, for add_column to
// make a column and set_column_data to check one.
template <class F>
decltype(auto) with_element_type(const column_type& type, F f) {
  switch (type.kind) {
    case type_kind::integer: return f(std::type_identity<std::int32_t>{});
    case type_kind::varchar: return f(std::type_identity<std::string>{});
    default: return f(std::type_identity<std::int64_t>{});
  }
}
}  // namespace

table_column& table::add_column(std::string name, column_type type) {
  if (filled_ > 0) throw std::logic_error("columns are added before the first row");
  validate(type);
  if (columns_.size() >= max_columns) throw std::invalid_argument("a table has at most 100000 columns");
  if (index_.contains(name)) throw std::invalid_argument(fmt::format("column '{}' appears twice", name));
  // The column is made (which can run out of memory) before its name is
  // taken: a refused column leaves no name behind.
  const unsigned length = type.kind == type_kind::varchar ? type.length : 255;
  any_column data = with_element_type(
      type, [&](auto element) -> any_column { return basic_column<typename decltype(element)::type>(length); });
  columns_.push_back(table_column{name, type, std::move(data)});
  try {
    index_.emplace(std::move(name), columns_.size() - 1);
  } catch (...) {
    columns_.pop_back();
    throw;
  }
  return columns_.back();
}

namespace {
std::size_t rows_of(const any_column& data) {
  return std::visit([](const auto& c) { return c.rows(); }, data);
}
}  // namespace

void table::set_column_data(std::size_t i, any_column data) {
  if (i >= columns_.size()) {
    throw std::out_of_range(fmt::format("column {} of a table of {} columns", i, columns_.size()));
  }
  const table_column& column = columns_[i];
  // Another storage would be read as this type's: a crash, not a value.
  const bool stored_as_type = with_element_type(column.type, [&](auto element) {
    return std::holds_alternative<basic_column<typename decltype(element)::type>>(data);
  });
  if (!stored_as_type) {
    throw std::invalid_argument(fmt::format("column '{}' is {}; the data given is stored as another type",
                                            column.name, column.type.name()));
  }
  const std::size_t rows = rows_of(data);
  const std::size_t others = filled_ - (rows_of(column.data) > 0 ? 1 : 0);  // other columns with rows
  if (rows > 0 && others > 0 && rows != rows_) {
    throw std::invalid_argument(fmt::format("column '{}' is given {} rows; the table's other columns hold {}",
                                            column.name, rows, rows_));
  }
  columns_[i].data = std::move(data);
  filled_ = others + (rows > 0 ? 1 : 0);
  if (rows > 0) rows_ = rows;
  if (filled_ == 0) rows_ = 0;
}

void table::insert(std::span<const value> row) {
  if (columns_.empty()) throw std::logic_error("a table without columns takes no rows");
  if (row.size() != columns_.size()) {
    throw std::invalid_argument(fmt::format("a row has {} values, the table {} columns", row.size(), columns_.size()));
  }
  if (filled_ != 0 && filled_ != columns_.size()) {
    throw std::logic_error("a row is inserted once every column has its data");
  }
  // Check every value first, so that a bad one leaves no half-inserted row.
  for (std::size_t i = 0; i < row.size(); ++i) check_fits(columns_[i], row[i]);
  for (std::size_t i = 0; i < row.size(); ++i) {
    std::visit(
        [&](auto& c) {
          using T = typename std::decay_t<decltype(c)>::value_type;
          c.insert(key_of<T>(row[i]));
        },
        columns_[i].data);
  }
  ++rows_;
  filled_ = columns_.size();
}

void table::merge() {
  for (auto& c : columns_) std::visit([](auto& col) { col.merge(); }, c.data);
}

std::vector<value> table::row(std::size_t r) const {
  if (r >= rows()) {
    throw std::out_of_range("row " + std::to_string(r) + " of a table of " + std::to_string(rows()) + " rows");
  }
  std::vector<value> out;
  for (const auto& c : columns_) {
    out.push_back(std::visit([&](const auto& col) { return to_value(c.type, col.at(r)); }, c.data));
  }
  return out;
}

void check_fits(const table_column& column, const value& v) {
  const column_type& t = column.type;
  const bool ok = (t.kind == type_kind::integer && std::holds_alternative<std::int32_t>(v)) ||
                  (t.kind == type_kind::bigint && std::holds_alternative<std::int64_t>(v)) ||
                  (t.kind == type_kind::decimal && std::holds_alternative<decimal>(v) &&
                   std::get<decimal>(v).scale == t.scale && std::get<decimal>(v).units > -pow10(t.precision) &&
                   std::get<decimal>(v).units < pow10(t.precision)) ||
                  (t.kind == type_kind::varchar && std::holds_alternative<std::string>(v) &&
                   std::get<std::string>(v).size() <= t.length);
  if (!ok) {
    throw std::invalid_argument(fmt::format("'{}' does not fit column '{}' ({})", format_value(v), column.name, t.name()));
  }
}

// --- generation ----------------------------------------------------------

void validate(const table_recipe& recipe) {
  if (recipe.rows == 0) throw std::invalid_argument("a table needs at least one row");
  if (recipe.columns == 0 || recipe.columns > max_columns) throw std::invalid_argument("a table has 1..100000 columns");
  if (recipe.types.empty()) throw std::invalid_argument("a table needs at least one column type");
  if (recipe.distinct == 0) throw std::invalid_argument("a column needs at least one distinct value");
  if (recipe.distinct > (std::size_t{1} << 32)) throw std::invalid_argument("at most 2^32 distinct values per column");
}

std::size_t estimated_bytes(const table_recipe& recipe) {
  std::size_t total = 0;
  for (std::size_t c = 0; c < recipe.columns; ++c) {
    const column_type& t = recipe.types[c % recipe.types.size()];
    const std::size_t d = distinct_for(t, recipe.distinct);
    const std::size_t value_bytes = t.kind == type_kind::integer ? 4
                                    : t.kind == type_kind::varchar ? std::size_t{t.length} + 1
                                                                   : 8;
    std::size_t dict = saturating_mul(d, value_bytes);
    // Delta: the tree (3/4 full nodes of 4-byte codes) and the arrival order while loading.
    if (recipe.fragment == fragment_kind::delta) dict = saturating_add(dict, saturating_mul(d, 4 * 4 / 3 + 4));
    total = saturating_add(total, saturating_add(dict, saturating_mul(recipe.rows, bit_packed_vector::bits_for(d)) / 8));
  }
  return total;
}

table generate_table(const table_recipe& recipe, const std::function<void(double)>& progress) {
  validate(recipe);
  table t;
  for (std::size_t c = 0; c < recipe.columns; ++c) {
    const column_type& type = recipe.types[c % recipe.types.size()];
    t.add_column(fmt::format("c{}", c), type);
  }
  const double share = 1.0 / static_cast<double>(recipe.columns);
  for (std::size_t c = 0; c < recipe.columns; ++c) {
    const column_type type = t.column(c).type;
    const std::uint64_t seed = mix(recipe.seed + c);
    const double done = share * static_cast<double>(c);
    if (progress) progress(done);
    switch (type.kind) {
      case type_kind::integer:
        t.set_column_data(c, generate_column<std::int32_t>(type, recipe, seed, progress, done, share));
        break;
      case type_kind::varchar:
        t.set_column_data(c, generate_column<std::string>(type, recipe, seed, progress, done, share));
        break;
      default:
        t.set_column_data(c, generate_column<std::int64_t>(type, recipe, seed, progress, done, share));
        break;
    }
  }
  if (progress) progress(1);
  return t;
}

value generated_value(const table_recipe& recipe, std::size_t column, std::size_t i) {
  const column_type& type = recipe.types[column % recipe.types.size()];
  const std::uint64_t seed = mix(recipe.seed + column);
  const std::size_t d = distinct_for(type, recipe.distinct);
  switch (type.kind) {
    case type_kind::integer: return stored_value<std::int32_t>(type, d, i % d, seed);
    case type_kind::varchar: return stored_value<std::string>(type, d, i % d, seed);
    default: return to_value(type, stored_value<std::int64_t>(type, d, i % d, seed));
  }
}

}  // namespace weave::column
