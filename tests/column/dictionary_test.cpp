// Every dictionary against a sorted std::vector oracle, in every execution
// mode: codes of present and missing values (locate) and values of codes
// (extract), for integer and string values, at sizes that cross blocks,
// nodes and tree levels.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/every_mode.hpp"
#include "weave/column/bit_packed.hpp"
#include "weave/column/delta_dictionary.hpp"
#include "weave/column/front_coded_dictionary.hpp"
#include "weave/column/sorted_dictionary.hpp"

namespace weave::column {
namespace {

TEST(bit_packed_vector, holds_codes_of_every_width) {
  std::mt19937_64 rng(1);
  for (unsigned bits = 1; bits <= 32; ++bits) {
    const std::uint64_t limit = (std::uint64_t{1} << bits) - 1;
    std::uniform_int_distribution<std::uint64_t> d(0, limit);
    std::vector<code_t> oracle(1000 + bits);
    bit_packed_vector v(bits);
    for (auto& c : oracle) {
      c = static_cast<code_t>(d(rng));
      v.push_back(c);
    }
    for (std::size_t i = 0; i < oracle.size(); i += 7) {  // overwrite some in place
      oracle[i] = static_cast<code_t>(d(rng));
      v.set(i, oracle[i]);
    }
    ASSERT_EQ(v.size(), oracle.size());
    for (std::size_t i = 0; i < oracle.size(); ++i) ASSERT_EQ(v[i], oracle[i]) << bits << " bits, row " << i;
  }
  EXPECT_EQ(bit_packed_vector::bits_for(1), 1u);
  EXPECT_EQ(bit_packed_vector::bits_for(2), 1u);
  EXPECT_EQ(bit_packed_vector::bits_for(3), 2u);
  EXPECT_EQ(bit_packed_vector::bits_for(1024), 10u);
  EXPECT_EQ(bit_packed_vector::bits_for(1025), 11u);
}

template <class T>
T random_value(std::mt19937_64& rng, std::size_t range) {
  if constexpr (std::is_same_v<T, std::string>) {
    // Shared prefixes of varied length, so front coding has work to do.
    static const char* prefixes[] = {"", "a", "order-", "order-item-", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"};
    std::string s = prefixes[rng() % 5];
    s += std::to_string(rng() % range);
    return s;
  } else {
    return static_cast<T>(static_cast<std::int64_t>(rng() % range) - static_cast<std::int64_t>(range / 3));
  }
}

// Distinct sorted values and lookups, half of them absent.
template <class T>
struct fixture {
  std::vector<T> sorted;
  std::vector<T> lookups;
  std::vector<std::optional<code_t>> expected_codes;  // positions in `sorted`

  fixture(std::size_t n, std::mt19937_64& rng) {
    std::set<T> distinct;
    while (distinct.size() < n) distinct.insert(random_value<T>(rng, 4 * n + 10));
    sorted.assign(distinct.begin(), distinct.end());
    for (std::size_t i = 0; i < 400; ++i) lookups.push_back(random_value<T>(rng, 4 * n + 10));
    if (!sorted.empty()) {
      lookups.push_back(sorted.front());
      lookups.push_back(sorted.back());
    }
    for (const T& k : lookups) {
      const auto it = std::lower_bound(sorted.begin(), sorted.end(), k);
      expected_codes.push_back(it != sorted.end() && *it == k ? std::optional(static_cast<code_t>(it - sorted.begin()))
                                                              : std::nullopt);
    }
  }
};

template <class T>
class dictionaries : public ::testing::Test {};
using storage_types = ::testing::Types<std::int32_t, std::int64_t, std::string>;
TYPED_TEST_SUITE(dictionaries, storage_types);

template <class T>
auto build_main(const std::vector<T>& sorted) {
  if constexpr (std::is_same_v<T, std::string>) {
    return front_coded_dictionary(sorted);
  } else {
    huge_buffer<T> values(sorted.size());
    std::copy(sorted.begin(), sorted.end(), values.data());
    return sorted_dictionary<T>(std::move(values));
  }
}

TYPED_TEST(dictionaries, main_locates_and_extracts_in_every_mode) {
  using T = TypeParam;
  std::mt19937_64 rng(2);
  for (std::size_t n : {0u, 1u, 15u, 16u, 17u, 300u, 5000u}) {
    const fixture<T> f(n, rng);
    const auto dict = build_main(f.sorted);
    ASSERT_EQ(dict.size(), n);
    testing::expect_every_mode<std::optional<code_t>>(f.lookups.size(), [&](auto policy, std::size_t i) {
      return locate<decltype(policy)>(dict, key_t<T>(f.lookups[i]));
    }, f.expected_codes);
    if (n == 0) continue;
    // A sorted dictionary's extract is an awaitable, not a task: await it in one.
    testing::expect_every_mode<T>(
        n,
        [&](auto policy, std::size_t i) -> task<T> {
          co_return co_await extract<decltype(policy)>(dict, static_cast<code_t>(i));
        },
        f.sorted);
  }
}

TYPED_TEST(dictionaries, delta_built_by_inserts_locates_and_extracts_in_every_mode) {
  using T = TypeParam;
  std::mt19937_64 rng(3);
  for (std::size_t n : {0u, 1u, 62u, 63u, 64u, 2000u, 30000u}) {
    const fixture<T> f(n, rng);
    // Insert in random order, each value twice: the second insert finds it.
    std::vector<T> order = f.sorted;
    std::shuffle(order.begin(), order.end(), rng);
    delta_dictionary<T> dict;
    std::vector<code_t> codes;
    for (const T& v : order) codes.push_back(dict.insert(v));
    for (std::size_t i = 0; i < order.size(); ++i) ASSERT_EQ(dict.insert(order[i]), codes[i]);
    ASSERT_EQ(dict.size(), n);
    // Codes are arrival positions: the expected code of a value is where it arrived.
    std::vector<std::optional<code_t>> expected;
    for (const auto& c : f.expected_codes) {
      expected.push_back(c ? std::optional(codes[static_cast<std::size_t>(
                                 std::find(order.begin(), order.end(), f.sorted[*c]) - order.begin())])
                           : std::nullopt);
    }
    testing::expect_every_mode<std::optional<code_t>>(f.lookups.size(), [&](auto policy, std::size_t i) {
      return locate<decltype(policy)>(dict, key_t<T>(f.lookups[i]));
    }, expected);
    if (n == 0) continue;
    testing::expect_every_mode<T>(n, [&](auto policy, std::size_t i) {
      return extract<decltype(policy)>(dict, static_cast<code_t>(i));
    }, order);
  }
}

TYPED_TEST(dictionaries, bulk_loaded_delta_matches_one_built_by_inserts) {
  using T = TypeParam;
  std::mt19937_64 rng(4);
  for (std::size_t n : {1u, 47u, 48u, 49u, 1200u, 40000u}) {
    const fixture<T> f(n, rng);
    std::vector<T> order = f.sorted;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<code_t> by_value(n);
    std::iota(by_value.begin(), by_value.end(), 0);
    std::sort(by_value.begin(), by_value.end(), [&](code_t a, code_t b) { return order[a] < order[b]; });
    delta_dictionary<T> dict;
    dict.bulk_load(order, by_value);
    std::vector<std::optional<code_t>> expected;
    for (const T& k : f.lookups) {
      const auto it = std::find(order.begin(), order.end(), k);
      expected.push_back(it != order.end() ? std::optional(static_cast<code_t>(it - order.begin())) : std::nullopt);
    }
    testing::expect_every_mode<std::optional<code_t>>(f.lookups.size(), [&](auto policy, std::size_t i) {
      return locate<decltype(policy)>(dict, key_t<T>(f.lookups[i]));
    }, expected);
    // Inserting after a bulk load keeps every code.
    for (std::size_t i = 0; i < order.size(); i += 3) ASSERT_EQ(dict.insert(order[i]), i);
    const T fresh = random_value<T>(rng, 1) + T{};
    if (std::find(order.begin(), order.end(), fresh) == order.end()) {
      EXPECT_EQ(dict.insert(fresh), n);
    }
  }
}

TEST(dictionaries, reject_unsorted_or_duplicate_values) {
  EXPECT_THROW(front_coded_dictionary(std::vector<std::string>{"b", "a"}), std::invalid_argument);
  EXPECT_THROW(front_coded_dictionary(std::vector<std::string>{"a", "a"}), std::invalid_argument);
  huge_buffer<std::int32_t> v(2);
  v[0] = 5;
  v[1] = 5;
  EXPECT_THROW(sorted_dictionary<std::int32_t>(std::move(v)), std::invalid_argument);
  delta_dictionary<std::int64_t> d;
  const std::vector<std::int64_t> values{3, 1, 2};
  const std::vector<code_t> wrong{0, 1, 2};
  EXPECT_THROW(d.bulk_load(values, wrong), std::invalid_argument);
}

}  // namespace
}  // namespace weave::column
