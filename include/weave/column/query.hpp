#pragma once
// The two queries on a table, each run by a scheduler the caller picks
// (sequential_scheduler, interleaved_scheduler, adaptive_scheduler):
//
//   count_in   SELECT COUNT(*) FROM T WHERE C IN (values)
//   fetch_row  SELECT * FROM T WHERE rowid = r: one request per column, so
//              an interleaved scheduler overlaps the columns' misses. A
//              slot loops over columns in one frame (request_stream.hpp):
//              an integer in Main is the code, then one dictionary load,
//              both awaited there; a string in Main is the code, its
//              block's offset and the block. A Delta row runs a task of
//              its own.
//   find_row   the first row whose column C equals a value

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "weave/column/in_predicate.hpp"
#include "weave/column/table.hpp"
#include "weave/exec/request_stream.hpp"
#include "weave/exec/task.hpp"

namespace weave::column {

namespace detail {

// The keys a column of storage type T compares, viewing into `values`;
// throws std::invalid_argument if a value does not fit the column.
template <class T>
std::vector<key_t<T>> keys_for(const table_column& column, std::span<const value> values) {
  std::vector<key_t<T>> keys;
  keys.reserve(values.size());
  for (const value& v : values) {
    check_fits(column, v);
    keys.push_back(key_of<T>(v));
  }
  return keys;
}

template <execution_policy Policy, class T>
task<value> fetch_value(const column_type& type, const basic_column<T>& column, std::size_t row) {
  co_return to_value(type, co_await fetch<Policy>(column, row));
}

// The value of `row` in column `c`, whatever its storage type, as a task.
template <execution_policy Policy>
task<value> fetch_value(const table_column& c, std::size_t row) {
  return std::visit([&](const auto& col) { return fetch_value<Policy>(c.type, col, row); }, c.data);
}

// The value of `row` in each requested column. A frame per column cost about
// five times the instructions of the two loads a column takes (callgrind:
// 642 a column with four nested tasks).
template <execution_policy Policy, request_stream<std::size_t, value> Requests>
typename Requests::task_type fetch_values(const table& t, std::size_t row, Requests requests) {
  while (requests.next()) {
    const table_column& c = t.column(requests.argument());
    if (const auto* col = std::get_if<basic_column<std::int32_t>>(&c.data); col && row < col->main_rows()) {
      requests.deliver(to_value(
          c.type, co_await extract<Policy>(col->main(), co_await code_at<Policy>(col->main_codes(), row))));
    } else if (const auto* wide = std::get_if<basic_column<std::int64_t>>(&c.data);
               wide && row < wide->main_rows()) {
      requests.deliver(to_value(
          c.type, co_await extract<Policy>(wide->main(), co_await code_at<Policy>(wide->main_codes(), row))));
    } else if (const auto* text = std::get_if<basic_column<std::string>>(&c.data);
               text && row < text->main_rows()) {
      // extract(front_coded_dictionary) inline: with a task per column a
      // string took 1,248 instructions, inline 869 (callgrind).
      const front_coded_dictionary& dict = text->main();
      const code_t code = co_await code_at<Policy>(text->main_codes(), row);
      const std::size_t block = code / front_coded_dictionary::block_size;
      const std::uint64_t offset = co_await load<Policy>(dict.block_offset(block));
      co_await prefetch<Policy>(dict.data() + offset, dict.block_offset(block + 1) - offset);
      requests.deliver(to_value(c.type, dict.string_at(offset, code)));
    } else {
      requests.deliver(co_await fetch_value<Policy>(c, row));
    }
  }
  co_return requests.finish();
}

}  // namespace detail

template <class Scheduler>
std::size_t count_in(const table& t, std::string_view column, std::span<const value> values, Scheduler& scheduler) {
  const table_column& c = t.column(column);
  return std::visit(
      [&](const auto& col) {
        using T = typename std::decay_t<decltype(col)>::value_type;
        const std::vector<key_t<T>> keys = detail::keys_for<T>(c, values);
        if (t.rows() == 0) return std::size_t{0};  // also while some columns have no data yet
        return count_in(col, std::span<const key_t<T>>(keys), scheduler);
      },
      c.data);
}

// Fills `out` with the values of `row`, one per column.
template <class Scheduler>
void fetch_row(const table& t, std::size_t row, Scheduler& scheduler, std::vector<value>& out) {
  if (row >= t.rows()) throw std::invalid_argument("row " + std::to_string(row) + " is past the table's end");
  out.resize(t.column_count());
  const auto sink = [&](std::size_t i, value&& v) { out[i] = std::move(v); };
  if constexpr (runs_streamed<std::remove_cvref_t<Scheduler>>) {
    scheduler.run(
        t.column_count(),
        streamed([&](auto policy,
                     auto requests) { return detail::fetch_values<decltype(policy)>(t, row, requests); },
                 [](std::size_t i) { return i; }),
        sink);
  } else {
    scheduler.run(
        t.column_count(),
        [&](auto policy, std::size_t i) { return detail::fetch_value<decltype(policy)>(t.column(i), row); },
        sink);
  }
}

template <class Scheduler>
std::optional<std::size_t> find_row(const table& t, std::string_view column, const value& key, Scheduler& scheduler) {
  const table_column& c = t.column(column);
  return std::visit(
      [&](const auto& col) -> std::optional<std::size_t> {
        using T = typename std::decay_t<decltype(col)>::value_type;
        const std::vector<key_t<T>> keys = detail::keys_for<T>(c, std::span<const value>(&key, 1));
        const std::span<const key_t<T>> list(keys);
        if (t.rows() == 0) return std::nullopt;  // also while some columns have no data yet
        const auto first_in = [](const bit_packed_vector& codes, const code_set& set) -> std::optional<std::size_t> {
          if (set.empty()) return std::nullopt;
          for (std::size_t r = 0; r < codes.size(); ++r)
            if (set.contains(codes[r])) return r;
          return std::nullopt;
        };
        if (col.main_rows() > 0) {
          if (auto r = first_in(col.main_codes(), encode(col.main(), list, scheduler))) return r;
        }
        if (col.delta_codes().size() > 0) {
          if (auto r = first_in(col.delta_codes(), encode(col.delta(), list, scheduler))) return *r + col.main_rows();
        }
        return std::nullopt;
      },
      c.data);
}

}  // namespace weave::column
