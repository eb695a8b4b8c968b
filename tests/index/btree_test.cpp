#include "weave/index/btree.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/every_mode.hpp"

namespace weave {
namespace {

void check_against_multimap(std::size_t n, double fill, std::mt19937_64& rng) {
  // Keys from a range of about n/2 values: many duplicates, some spanning leaves.
  std::uniform_int_distribution<std::uint64_t> d(0, n / 2 + 1);
  std::multimap<std::uint64_t, std::uint64_t> oracle;
  for (std::size_t i = 0; i < n; ++i) oracle.emplace(d(rng) * 2, i);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs(oracle.begin(), oracle.end());
  const btree tree = btree::bulk_load(pairs, fill);
  EXPECT_EQ(tree.size(), n);

  std::vector<std::uint64_t> lookups(700);
  for (auto& k : lookups) k = d(rng) + d(rng);  // even keys may be present, odd ones never
  lookups.push_back(0);
  lookups.push_back(~std::uint64_t{0});
  std::vector<std::optional<std::uint64_t>> expected;
  for (auto k : lookups) {
    auto it = oracle.lower_bound(k);
    expected.push_back(it != oracle.end() && it->first == k ? std::optional(it->second) : std::nullopt);
  }
  testing::expect_every_mode<std::optional<std::uint64_t>>(lookups.size(), [&](auto policy, std::size_t i) {
    return find<decltype(policy)>(tree, lookups[i]);
  }, expected);
  testing::expect_every_mode<std::optional<std::uint64_t>>(
      lookups.size(),
      streamed([&](auto policy, auto requests) { return find<decltype(policy)>(tree, requests); },
               [&](std::size_t i) { return lookups[i]; }),
      expected);
}

TEST(btree, find_matches_multimap_in_every_mode) {
  std::mt19937_64 rng(4);
  // Sizes around one leaf (15), one inner node of leaves (480) and two levels (15360).
  for (std::size_t n : {0u, 1u, 14u, 15u, 16u, 479u, 480u, 481u, 15'359u, 15'361u, 40'000u}) {
    for (double fill : {1.0, 0.6}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", fill " + std::to_string(fill));
      check_against_multimap(n, fill, rng);
    }
  }
}

TEST(btree, levels_grow_with_the_key_count) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
  for (std::uint64_t k = 0; k < 15; ++k) pairs.emplace_back(k, k);
  EXPECT_EQ(btree::bulk_load(pairs).inner_levels(), 0u);
  for (std::uint64_t k = 15; k < 16; ++k) pairs.emplace_back(k, k);
  EXPECT_EQ(btree::bulk_load(pairs).inner_levels(), 1u);
  for (std::uint64_t k = 16; k < 15 * 32 + 1; ++k) pairs.emplace_back(k, k);
  EXPECT_EQ(btree::bulk_load(pairs).inner_levels(), 2u);
}

TEST(btree, the_largest_key_value_is_found) {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs{{5, 1}, {~std::uint64_t{0}, 2}};
  const btree tree = btree::bulk_load(pairs);
  EXPECT_EQ(sync_wait(find<interleaved_policy>(tree, ~std::uint64_t{0})), 2u);
  EXPECT_EQ(sync_wait(find<sequential_policy>(tree, 5)), 1u);
}

TEST(btree, bulk_load_rejects_unsorted_input_and_bad_fill) {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> unsorted{{5, 1}, {3, 2}};
  EXPECT_THROW(btree::bulk_load(unsorted), std::invalid_argument);
  EXPECT_THROW(btree::bulk_load(unsorted, 0.0), std::invalid_argument);
}

TEST(btree, bulk_load_refuses_counts_past_its_node_ids_before_reading_a_pair) {
  std::size_t read = 0;
  const auto pair_at = [&](std::size_t i) {
    ++read;
    return std::pair<std::uint64_t, std::uint64_t>{i, i};
  };
  for (const std::size_t count : {~std::size_t{0}, ~std::size_t{0} - 1, std::size_t{1} << 62}) {
    EXPECT_THROW(btree::bulk_load(count, pair_at), std::length_error) << count;
  }
  EXPECT_EQ(read, 0u);
  const btree t = btree::bulk_load(1000, pair_at);
  EXPECT_EQ(t.size(), 1000u);
  EXPECT_EQ(read, 1000u);
}

}  // namespace
}  // namespace weave
