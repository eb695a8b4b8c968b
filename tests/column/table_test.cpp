// Tables against a row-store oracle (a vector of rows): both queries under
// each scheduler, across Main and Delta, every type; generated tables hold
// the values generated_value names; CSV loading and its errors.

#include "weave/column/table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "weave/column/csv.hpp"
#include "weave/column/query.hpp"
#include "weave/exec/adaptive_scheduler.hpp"
#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/latency_target_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"

namespace weave::column {
namespace {

const std::vector<column_type> every_type{column_type::integer(), column_type::bigint(),
                                          column_type::decimal(9, 2), column_type::varchar(12)};

value random_value(const column_type& type, std::size_t distinct, std::mt19937_64& rng) {
  const std::int64_t x = static_cast<std::int64_t>(rng() % distinct) * 37 - 500;
  switch (type.kind) {
    case type_kind::integer: return static_cast<std::int32_t>(x);
    case type_kind::bigint: return x * 1'000'000'007;
    case type_kind::decimal: return decimal{x * 13, type.scale};
    case type_kind::varchar: return "v" + std::to_string(x);
  }
  return 0;
}

// Runs `check(scheduler, name)` under each scheduler.
template <class Check>
void for_each_scheduler(Check check) {
  sequential_scheduler seq;
  check(seq, "sequential");
  for (std::size_t g : {1u, 4u, 16u}) {
    interleaved_scheduler inter{g};
    check(inter, "interleaved-" + std::to_string(g));
    batched_scheduler batch{g};
    check(batch, "batched-" + std::to_string(g));
  }
  adaptive_options small;
  small.window = 16;
  adaptive_scheduler adaptive{small};
  check(adaptive, "adaptive");
  latency_target_options target;
  target.p99_us = 50;
  target.window = 100;
  latency_target_scheduler latency{target};
  check(latency, "latency-target");  // times each request: fetch_row gives it one task per column
}

TEST(table, queries_match_a_row_store_across_main_and_delta) {
  std::mt19937_64 rng(6);
  for (std::size_t distinct : {3u, 200u}) {
    table t;
    // Eleven columns of mixed types: a slot's lockstep batches (columns_per_slot
    // a time) then mix integers with strings, and the last batch is short.
    for (std::size_t c = 0; c < 11; ++c)
      t.add_column("c" + std::to_string(c), every_type[c % every_type.size()]);
    std::vector<std::vector<value>> oracle;
    const auto add_rows = [&](std::size_t n) {
      for (std::size_t r = 0; r < n; ++r) {
        std::vector<value> row;
        for (std::size_t c = 0; c < t.column_count(); ++c) row.push_back(random_value(t.column(c).type, distinct, rng));
        t.insert(row);
        oracle.push_back(row);
      }
    };
    add_rows(700);
    t.merge();
    add_rows(300);  // rows 700.. are in Delta
    ASSERT_EQ(t.rows(), oracle.size());

    for_each_scheduler([&](auto& scheduler, const std::string& name) {
      std::vector<value> got;
      for (std::size_t r : {0u, 1u, 350u, 699u, 700u, 701u, 999u}) {
        fetch_row(t, r, scheduler, got);
        ASSERT_EQ(got, oracle[r]) << name << ", row " << r;
      }
      for (std::size_t c = 0; c < t.column_count(); ++c) {
        std::vector<value> list;
        for (int k = 0; k < 5; ++k) list.push_back(random_value(t.column(c).type, 2 * distinct, rng));
        std::size_t expected = 0;
        for (const auto& row : oracle) expected += std::count(list.begin(), list.end(), row[c]) > 0 ? 1 : 0;
        EXPECT_EQ(count_in(t, t.column(c).name, list, scheduler), expected) << name << ", column " << c;

        const value key = list.front();
        const auto it = std::find_if(oracle.begin(), oracle.end(), [&](const auto& row) { return row[c] == key; });
        const auto found = find_row(t, t.column(c).name, key, scheduler);
        if (it == oracle.end()) {
          EXPECT_FALSE(found) << name;
        } else {
          ASSERT_TRUE(found) << name;
          EXPECT_EQ(*found, static_cast<std::size_t>(it - oracle.begin())) << name;
        }
      }
    });
  }
}

// Strings are read block by block (16 a block, front-coded): every row of
// Main, with dictionaries whose last block is short or holds one string, and
// strings long enough that a block spans many lines; then a table all in
// Delta. The oracle is the inserted strings themselves.
TEST(table, every_varchar_row_matches_in_main_and_in_delta) {
  std::mt19937_64 rng(11);
  for (std::size_t distinct : {1u, 17u, 33u}) {
    std::vector<std::string> strings;  // shared prefixes of varied length, as front coding meets them
    for (std::size_t i = 0; i < distinct; ++i) {
      strings.push_back(std::string(rng() % 180, 'p') + std::to_string(rng()) + std::string(rng() % 40, 'x'));
    }
    for (const bool merged : {true, false}) {
      table t;
      t.add_column("id", column_type::integer());
      t.add_column("s", column_type::varchar(255));
      std::vector<std::string> oracle;
      for (std::size_t r = 0; r < 3 * distinct + 5; ++r) {
        oracle.push_back(strings[rng() % distinct]);
        t.insert(std::vector<value>{static_cast<std::int32_t>(r), oracle.back()});
      }
      if (merged) t.merge();
      for_each_scheduler([&](auto& scheduler, const std::string& name) {
        std::vector<value> got;
        for (std::size_t r = 0; r < oracle.size(); ++r) {
          fetch_row(t, r, scheduler, got);
          ASSERT_EQ(got.size(), 2u);
          ASSERT_EQ(got[1], value(oracle[r])) << name << ", row " << r << (merged ? " (Main)" : " (Delta)");
        }
      });
    }
  }
}

TEST(table, a_refused_column_leaves_no_name_behind) {
  table t;
  EXPECT_THROW(t.add_column("v", column_type{type_kind::varchar, 0, 0, 0}), std::invalid_argument);
  t.add_column("v", column_type::varchar(4));
  t.add_column("n", column_type::integer());
  EXPECT_EQ(t.column("v").name, "v");
  EXPECT_EQ(t.column("n").name, "n");
}

TEST(table, column_data_of_another_type_or_row_count_is_refused) {
  const auto ints = [](std::size_t rows) {
    basic_column<std::int32_t> c;
    for (std::size_t r = 0; r < rows; ++r) c.insert(static_cast<std::int32_t>(r));
    return any_column(std::move(c));
  };
  table t;
  t.add_column("a", column_type::integer());
  t.add_column("b", column_type::integer());
  t.add_column("s", column_type::varchar(4));
  EXPECT_THROW(t.set_column_data(3, ints(3)), std::out_of_range);
  EXPECT_THROW(t.set_column_data(2, ints(3)), std::invalid_argument);  // integers as VARCHAR
  EXPECT_THROW(t.set_column_data(0, any_column(basic_column<std::int64_t>())), std::invalid_argument);
  // Any column may come first; until every one has its rows the table has none.
  t.set_column_data(1, ints(3));
  EXPECT_EQ(t.rows(), 0u);
  sequential_scheduler seq;
  std::vector<value> got;
  EXPECT_THROW(fetch_row(t, 0, seq, got), std::invalid_argument);
  EXPECT_THROW(t.row(0), std::out_of_range);
  const std::vector<value> row{std::int32_t{9}, std::int32_t{9}, std::string("z")};
  EXPECT_THROW(t.insert(row), std::logic_error);
  // Queries see the rows the table has: none yet, though column b holds three.
  EXPECT_EQ(count_in(t, "b", std::vector<value>{std::int32_t{1}}, seq), 0u);
  EXPECT_FALSE(find_row(t, "b", value(std::int32_t{1}), seq).has_value());
  EXPECT_THROW(t.set_column_data(0, ints(2)), std::invalid_argument);
  EXPECT_THROW(t.add_column("late", column_type::integer()), std::logic_error);
  t.set_column_data(0, ints(3));
  basic_column<std::string> text(4);
  for (const char* v : {"x", "yy", "x"}) text.insert(v);
  t.set_column_data(2, std::move(text));
  ASSERT_EQ(t.rows(), 3u);
  fetch_row(t, 1, seq, got);
  EXPECT_EQ(got, (std::vector<value>{std::int32_t{1}, std::int32_t{1}, std::string("yy")}));
  // A column replaced keeps the table's row count; one emptied takes its rows away.
  EXPECT_THROW(t.set_column_data(1, ints(4)), std::invalid_argument);
  t.set_column_data(1, ints(3));
  EXPECT_EQ(t.rows(), 3u);
  t.set_column_data(1, ints(0));
  EXPECT_EQ(t.rows(), 0u);
  t.set_column_data(1, ints(3));
  t.insert(row);
  EXPECT_EQ(t.rows(), 4u);
  EXPECT_EQ(t.row(3), row);
}

TEST(table, a_table_without_columns_takes_no_rows) {
  table t;
  EXPECT_THROW(t.insert(std::vector<value>{}), std::logic_error);
  EXPECT_EQ(t.rows(), 0u);
  t.add_column("a", column_type::integer());  // still before the first row
  t.insert(std::vector<value>{std::int32_t{4}});
  EXPECT_EQ(t.rows(), 1u);
  EXPECT_EQ(t.row(0), (std::vector<value>{std::int32_t{4}}));
}

TEST(table, a_row_past_the_last_is_out_of_range) {
  table t;
  t.add_column("a", column_type::integer());
  t.insert(std::vector<value>{std::int32_t{7}});
  EXPECT_EQ(t.row(0).size(), 1u);
  EXPECT_THROW(t.row(1), std::out_of_range);
  EXPECT_THROW(t.row(~std::size_t{0}), std::out_of_range);
}

TEST(table, rejects_values_that_do_not_fit_and_inserts_nothing) {
  table t;
  t.add_column("id", column_type::integer());
  t.add_column("price", column_type::decimal(6, 2));
  t.add_column("name", column_type::varchar(3));
  EXPECT_THROW(t.insert(std::vector<value>{std::int32_t{1}, decimal{100, 2}, std::string("long")}), std::invalid_argument);
  EXPECT_THROW(t.insert(std::vector<value>{std::int32_t{1}, decimal{100, 1}, std::string("ok")}), std::invalid_argument);
  // DECIMAL(6,2) holds up to 9999.99: six digits in all.
  EXPECT_THROW(t.insert(std::vector<value>{std::int32_t{1}, decimal{1000000, 2}, std::string("ok")}), std::invalid_argument);
  EXPECT_THROW(t.insert(std::vector<value>{std::int32_t{1}, decimal{-1000000, 2}, std::string("ok")}), std::invalid_argument);
  EXPECT_THROW(t.insert(std::vector<value>{std::int32_t{1}, decimal{std::numeric_limits<std::int64_t>::min(), 2}, std::string("ok")}), std::invalid_argument);
  EXPECT_THROW(t.add_column("wide", column_type{type_kind::decimal, 40, 30, 0}), std::invalid_argument);
  EXPECT_THROW(t.insert(std::vector<value>{std::int32_t{1}}), std::invalid_argument);
  EXPECT_EQ(t.rows(), 0u);
  EXPECT_EQ(t.column_count(), 3u);
  for (std::size_t c = 0; c < t.column_count(); ++c) {
    EXPECT_EQ(std::visit([](const auto& col) { return col.rows(); }, t.column(c).data), 0u);
  }
  sequential_scheduler seq;
  EXPECT_THROW(count_in(t, "nope", std::vector<value>{}, seq), std::invalid_argument);
  EXPECT_THROW(count_in(t, "id", std::vector<value>{std::string("x")}, seq), std::invalid_argument);
  t.insert(std::vector<value>{std::int32_t{1}, decimal{999999, 2}, std::string("ok")});
  t.insert(std::vector<value>{std::int32_t{2}, decimal{-999999, 2}, std::string("ok")});
  EXPECT_EQ(t.rows(), 2u);
}

TEST(table, generated_tables_hold_the_generated_values) {
  for (const auto fragment : {fragment_kind::main, fragment_kind::delta}) {
    table_recipe recipe;
    recipe.rows = 3000;
    recipe.columns = 5;
    recipe.types = {column_type::integer(), column_type::decimal(12, 2), column_type::varchar(10),
                    column_type::bigint()};
    recipe.distinct = 500;
    recipe.fragment = fragment;
    const table t = generate_table(recipe);
    ASSERT_EQ(t.rows(), recipe.rows);
    interleaved_scheduler inter{8};
    for (std::size_t c = 0; c < recipe.columns; ++c) {
      // Every generated value is present; their counts add up to all rows.
      std::vector<value> all;
      for (std::size_t i = 0; i < recipe.distinct; ++i) all.push_back(generated_value(recipe, c, i));
      EXPECT_TRUE(std::is_sorted(all.begin(), all.end())) << "column " << c;
      EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "column " << c;
      EXPECT_EQ(count_in(t, t.column(c).name, all, inter), recipe.rows) << "column " << c;
    }
    std::vector<value> got;
    for (std::size_t r : {0u, 1u, 1500u, 2999u}) {
      fetch_row(t, r, inter, got);
      EXPECT_EQ(got, t.row(r));
    }
  }
}

std::string write_temp(const std::string& text) {
  char name[] = "/tmp/weave-csv-XXXXXX";
  const int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  std::FILE* f = fdopen(fd, "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return name;
}

TEST(csv, loads_and_infers_types) {
  const std::string path = write_temp(
      "id,amount,big,name\n"
      "1,12.5,9000000000,\"Smith, J.\"\n"
      "2,-3,1,plain\r\n"
      "\n"
      "3,0.25,2,\"say \"\"hi\"\"\"\n");
  const table t = load_csv(path);
  std::remove(path.c_str());
  ASSERT_EQ(t.rows(), 3u);
  EXPECT_EQ(t.column("id").type, column_type::integer());
  EXPECT_EQ(t.column("amount").type, column_type::decimal(4, 2));
  EXPECT_EQ(t.column("big").type, column_type::bigint());
  EXPECT_EQ(t.column("name").type, column_type::varchar(9));
  EXPECT_EQ(t.row(0), (std::vector<value>{std::int32_t{1}, decimal{1250, 2}, std::int64_t{9000000000},
                                          std::string("Smith, J.")}));
  EXPECT_EQ(t.row(2)[3], value(std::string("say \"hi\"")));
  EXPECT_EQ(t.row(1)[1], value(decimal{-300, 2}));
}

TEST(csv, a_bad_line_names_its_line_and_column) {
  const std::string path = write_temp("id,price\n1,2.50\n2,x\n");
  try {
    load_csv(path, {column_type::integer(), column_type::decimal(5, 2)});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": line 3, column 'price'", 0), 0u) << e.what();
  }
  std::remove(path.c_str());
  const std::string short_line = write_temp("a,b\n1,2\n3\n");
  try {
    load_csv(short_line);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), (short_line + ": line 3: 1 field, but the header has 2 columns").c_str());
  }
  std::remove(short_line.c_str());
  EXPECT_THROW(load_csv("/nonexistent/weave.csv"), std::invalid_argument);
}

}  // namespace
}  // namespace weave::column
