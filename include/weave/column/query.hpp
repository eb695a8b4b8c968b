#pragma once
// The two queries on a table, each run by a scheduler the caller picks
// (sequential_scheduler, interleaved_scheduler, adaptive_scheduler):
//
//   count_in   SELECT COUNT(*) FROM T WHERE C IN (values)
//   fetch_row  SELECT * FROM T WHERE rowid = r: one request per column, so
//              an interleaved scheduler overlaps the columns' misses. A
//              slot loops over columns in one frame (request_stream.hpp),
//              columns_per_slot at a time: the integers in Main are their
//              codes, then their dictionary entries, each step one
//              suspension for all of them; a string in Main is the code, its
//              block's offset and the block. A Delta row runs a task of
//              its own.
//   find_row   the first row whose column C equals a value

#include <array>
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
#include "weave/exec/load.hpp"
#include "weave/exec/request_stream.hpp"
#include "weave/exec/task.hpp"

namespace weave::column {

// Columns of one row a slot fetches in lockstep: the code loads of its
// integer columns share one suspension and their dictionary loads another.
// With one column a slot, interleaved reconstruction took 211 instructions
// a column to sequential's 71, 56 of them the ring's (callgrind); four
// take 164. A ring's group counts slots.
inline constexpr std::size_t columns_per_slot = 4;

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
//
// A policy that suspends takes columns_per_slot columns at a time and runs
// the integers of Main among them in lockstep; every other column, and every
// column under a policy that does not suspend, goes on its own (in
// lockstep, a sequential run took 20% more instructions).
template <execution_policy Policy, request_stream<std::size_t, value> Requests>
typename Requests::task_type fetch_values(const table& t, std::size_t row, Requests requests) {
  constexpr std::size_t width =
      Policy::suspends && ticketed_request_stream<Requests, std::size_t, value> ? columns_per_slot : 1;
  using narrow_column = basic_column<std::int32_t>;
  using wide_column = basic_column<std::int64_t>;
  request_batch<width, std::size_t, Requests> batch;
  for (;;) {
    std::array<bool, width> delivered{};
    if constexpr (width == 1) {
      // No batch: its bookkeeping cost a sequential run 6% more instructions
      // and about as much time, with fewer columns in the core's window.
      if (!requests.next()) break;
    } else {
      if (!batch.take(requests)) break;
      // The places whose value is a code and an entry of a Main dictionary of
      // integers, of one width or the other.
      std::array<const table_column*, width> column{};
      std::array<const narrow_column*, width> narrow{};
      std::array<const wide_column*, width> wide{};
      std::array<code_t, width> code{};
      bool any = false;
      bool all = true;
      for (std::size_t j = 0; j < batch.size(); ++j) {
        column[j] = &t.column(batch[j]);
        if (const auto* n = std::get_if<narrow_column>(&column[j]->data); n && row < n->main_rows()) {
          narrow[j] = n;
          prefetch_code(n->main_codes(), row);
        } else if (const auto* w = std::get_if<wide_column>(&column[j]->data); w && row < w->main_rows()) {
          wide[j] = w;
          prefetch_code(w->main_codes(), row);
        } else {
          all = false;
          continue;
        }
        any = delivered[j] = true;
      }
      if (any) {
        co_await next_pass<Policy>();
        // The two widths written out: a generic lambda over them took 7% more
        // instructions a column (callgrind).
        for (std::size_t j = 0; j < batch.size(); ++j) {
          if (narrow[j])
            weave::detail::prefetch_line(&narrow[j]->main().at(code[j] = narrow[j]->main_codes()[row]));
          if (wide[j])
            weave::detail::prefetch_line(&wide[j]->main().at(code[j] = wide[j]->main_codes()[row]));
        }
        co_await next_pass<Policy>();
        for (std::size_t j = 0; j < batch.size(); ++j) {
          if (narrow[j]) batch.deliver(requests, j, to_value(column[j]->type, narrow[j]->main().at(code[j])));
          if (wide[j]) batch.deliver(requests, j, to_value(column[j]->type, wide[j]->main().at(code[j])));
        }
      }
      if (all) continue;
    }
    const auto deliver = [&](std::size_t j, value&& v) {
      if constexpr (width == 1) {
        requests.deliver(std::move(v));
      } else {
        batch.deliver(requests, j, std::move(v));
      }
    };
    for (std::size_t j = 0; j < (width == 1 ? 1 : batch.size()); ++j) {
      if (delivered[j]) continue;
      const table_column& c = t.column(width == 1 ? requests.argument() : batch[j]);
      if (const auto* col = std::get_if<narrow_column>(&c.data); col && row < col->main_rows()) {
        deliver(j, to_value(c.type, co_await extract<Policy>(
                                        col->main(), co_await code_at<Policy>(col->main_codes(), row))));
      } else if (const auto* wide = std::get_if<wide_column>(&c.data); wide && row < wide->main_rows()) {
        deliver(j, to_value(c.type, co_await extract<Policy>(
                                        wide->main(), co_await code_at<Policy>(wide->main_codes(), row))));
      } else if (const auto* text = std::get_if<basic_column<std::string>>(&c.data);
                 text && row < text->main_rows()) {
        // extract(front_coded_dictionary) inline: with a task per column a
        // string took 1,248 instructions, inline 869 (callgrind).
        const front_coded_dictionary& dict = text->main();
        const code_t code = co_await code_at<Policy>(text->main_codes(), row);
        const std::size_t block = code / front_coded_dictionary::block_size;
        const std::uint64_t offset = co_await load<Policy>(dict.block_offset(block));
        co_await prefetch<Policy>(dict.data() + offset, dict.block_offset(block + 1) - offset);
        deliver(j, to_value(c.type, dict.string_at(offset, code)));
      } else {
        deliver(j, co_await fetch_value<Policy>(c, row));
      }
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
    scheduler.run(t.column_count(),
                  streamed<columns_per_slot>(
                      [&](auto policy, auto requests) {
                        return detail::fetch_values<decltype(policy)>(t, row, requests);
                      },
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
