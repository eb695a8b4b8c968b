// Columns against a row-store oracle (one std::vector of values per column):
// inserts into Delta, merges into Main, row fetches in every execution mode
// and IN-predicate counts under each scheduler, for every storage type.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/every_mode.hpp"
#include "weave/column/column.hpp"
#include "weave/column/in_predicate.hpp"
#include "weave/exec/adaptive_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"

namespace weave::column {
namespace {

template <class T>
T value_from(std::uint64_t x) {
  if constexpr (std::is_same_v<T, std::string>) {
    return "customer-" + std::to_string(x);
  } else {
    return static_cast<T>(static_cast<std::int64_t>(x) * 7 - 1000);
  }
}

template <class T>
class columns : public ::testing::Test {};
using storage_types = ::testing::Types<std::int32_t, std::int64_t, std::string>;
TYPED_TEST_SUITE(columns, storage_types);

// Rows with values from `distinct` choices appended to both the column and the oracle.
template <class T>
void append(basic_column<T>& column, std::vector<T>& oracle, std::size_t rows, std::size_t distinct,
            std::mt19937_64& rng) {
  for (std::size_t r = 0; r < rows; ++r) {
    const T v = value_from<T>(rng() % distinct);
    column.insert(key_t<T>(v));
    oracle.push_back(v);
  }
}

template <class T>
void expect_same_rows(const basic_column<T>& column, const std::vector<T>& oracle) {
  ASSERT_EQ(column.rows(), oracle.size());
  for (std::size_t r = 0; r < oracle.size(); ++r) ASSERT_EQ(column.at(r), oracle[r]) << "row " << r;
  testing::expect_every_mode<T>(oracle.size(), [&](auto policy, std::size_t r) {
    return fetch<decltype(policy)>(column, r);
  }, oracle);
}

template <class T, class Scheduler>
void expect_counts(const basic_column<T>& column, const std::vector<T>& oracle, std::size_t distinct,
                   Scheduler&& scheduler, std::mt19937_64& rng) {
  for (std::size_t k : {0u, 1u, 10u, 300u}) {
    // Values from twice the range: about half are absent; some repeat.
    std::vector<T> list;
    for (std::size_t i = 0; i < k; ++i) list.push_back(value_from<T>(rng() % (2 * distinct)));
    std::vector<key_t<T>> keys(list.begin(), list.end());
    std::size_t expected = 0;
    for (const T& v : oracle) expected += std::find(list.begin(), list.end(), v) != list.end() ? 1 : 0;
    EXPECT_EQ(count_in(column, std::span<const key_t<T>>(keys), scheduler), expected) << k << " values";
  }
}

TYPED_TEST(columns, match_a_row_store_through_inserts_and_merges) {
  using T = TypeParam;
  std::mt19937_64 rng(5);
  for (std::size_t distinct : {1u, 40u, 3000u}) {
    basic_column<T> column;
    std::vector<T> oracle;
    append(column, oracle, 500, distinct, rng);  // Delta only
    expect_same_rows(column, oracle);
    column.merge();  // Main only
    EXPECT_EQ(column.main_rows(), oracle.size());
    expect_same_rows(column, oracle);
    append(column, oracle, 2500, distinct * 2, rng);  // both, with new values in Delta
    expect_same_rows(column, oracle);

    expect_counts(column, oracle, distinct, sequential_scheduler{}, rng);
    expect_counts(column, oracle, distinct, interleaved_scheduler{8}, rng);
    adaptive_options small;
    small.window = 16;
    expect_counts(column, oracle, distinct, adaptive_scheduler{small}, rng);

    column.merge();  // both folded into a new Main
    EXPECT_EQ(column.delta().size(), 0u);
    expect_same_rows(column, oracle);
    expect_counts(column, oracle, distinct, interleaved_scheduler{16}, rng);
  }
}

}  // namespace
}  // namespace weave::column

namespace weave::column {
namespace {

TEST(code_set, bitmap_and_hash_table_agree_with_a_set) {
  std::mt19937_64 rng(8);
  for (std::size_t codes : {std::size_t{100}, code_set::max_bitmap_codes + 1, std::size_t{1} << 31}) {
    code_set set(codes, 50);  // more inserts than expected: the table grows
    std::set<code_t> oracle;
    for (int i = 0; i < 3000; ++i) {
      const auto c = static_cast<code_t>(rng() % codes);
      set.insert(c);
      oracle.insert(c);
    }
    EXPECT_EQ(set.is_bitmap(), codes <= code_set::max_bitmap_codes);
    EXPECT_EQ(set.size(), oracle.size());
    for (int i = 0; i < 3000; ++i) {
      const auto c = static_cast<code_t>(rng() % codes);
      ASSERT_EQ(set.contains(c), oracle.count(c) == 1) << codes << " codes, code " << c;
    }
    for (code_t c : oracle) ASSERT_TRUE(set.contains(c));
  }
}

}  // namespace
}  // namespace weave::column
