#pragma once
// A table: named, typed columns of equal length. Each column holds one of
// three storage types behind a variant, so a query dispatches on the type
// once per column and then runs that type's own code path.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "weave/column/column.hpp"
#include "weave/column/types.hpp"

namespace weave::column {

using any_column = std::variant<basic_column<std::int32_t>, basic_column<std::int64_t>, basic_column<std::string>>;

struct table_column {
  std::string name;
  column_type type;
  any_column data;
};

class table {
 public:
  // Rows every column holds; 0 while some columns have their data and
  // others not yet (a table being loaded column by column).
  std::size_t rows() const noexcept { return filled_ == columns_.size() ? rows_ : 0; }
  std::size_t column_count() const noexcept { return columns_.size(); }
  const table_column& column(std::size_t i) const noexcept { return columns_[i]; }
  // The column named `name`; throws std::invalid_argument if there is none.
  const table_column& column(std::string_view name) const;
  std::size_t dictionary_bytes() const noexcept;
  std::size_t bytes() const noexcept;

  // Adds an empty column; only before any column holds a row.
  table_column& add_column(std::string name, column_type type);
  // Appends a row to every column's Delta; values must match the column
  // types. Throws std::logic_error while the columns are being set, or for
  // a table without columns.
  void insert(std::span<const value> row);
  void merge();
  // Replaces column i's data, whose storage must be the column type's and
  // whose row count that of every other column that holds rows. Throws
  // std::out_of_range or std::invalid_argument, leaving the table as it was.
  void set_column_data(std::size_t i, any_column data);
  // The values of `row`, read without suspending (for oracles and tests).
  // Throws std::out_of_range past the last row.
  std::vector<value> row(std::size_t r) const;

 private:
  std::vector<table_column> columns_;
  std::unordered_map<std::string, std::size_t> index_;  // name -> position: wide CSV headers stay linear
  std::size_t rows_ = 0;    // of each column that holds rows
  std::size_t filled_ = 0;  // columns that hold rows
};

// Throws std::invalid_argument unless `v` is a value of the column's type
// (its kind, a DECIMAL's scale, a VARCHAR's length).
void check_fits(const table_column& column, const value& v);

// What a column of storage type T stores or compares for `v`, a value that
// fits it: the integer, a DECIMAL's units, or a view of the string.
template <class T>
key_t<T> key_of(const value& v) noexcept {
  if constexpr (std::is_same_v<T, std::int64_t>) {
    if (const auto* d = std::get_if<decimal>(&v)) return d->units;
    return *std::get_if<std::int64_t>(&v);
  } else {
    return *std::get_if<T>(&v);
  }
}

// Converts a stored value to the API's value for a column of `type`. Inline:
// fetch_row converts every column of a row.
inline value to_value(const column_type&, std::int32_t v) { return v; }
inline value to_value(const column_type& type, std::int64_t v) {
  if (type.kind == type_kind::decimal) return decimal{v, type.scale};
  return v;
}
inline value to_value(const column_type&, const std::string& v) { return v; }
inline value to_value(const column_type&, std::string&& v) { return std::move(v); }

// A table made up from a recipe, for benchmarks and the demo. Column i has
// type types[i % types.size()] and `distinct` distinct values (capped by
// what the type can hold), every row's code drawn uniformly. With
// fragment::delta the columns are Delta fragments (values in a shuffled
// arrival order, the B+-tree bulk-loaded), else Main fragments.
// Columns of a table, generated or loaded: wider than any schema in use.
inline constexpr std::size_t max_columns = 100'000;

struct table_recipe {
  std::size_t rows = 1'000'000;
  std::size_t columns = 1;
  std::vector<column_type> types{column_type::integer()};
  std::size_t distinct = 1'000'000;
  fragment_kind fragment = fragment_kind::main;
  std::uint64_t seed = 42;
};
void validate(const table_recipe& recipe);
// The distinct values generate_table can give a column of `type` (a column
// asked for more gets this many).
std::size_t generated_capacity(const column_type& type);
// Memory the table will take, roughly (to refuse what cannot fit).
std::size_t estimated_bytes(const table_recipe& recipe);
// `progress` gets the share done, 0..1, now and then.
table generate_table(const table_recipe& recipe, const std::function<void(double)>& progress = {});

// The i-th smallest value (i modulo the distinct count) in the dictionary
// that generate_table(recipe) makes for `column`, for queries that need
// values known to be present.
value generated_value(const table_recipe& recipe, std::size_t column, std::size_t i);

}  // namespace weave::column
