#include "weave/index/hash_table.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "support/every_mode.hpp"

namespace weave {
namespace {

void check_against_unordered_map(std::size_t n, double load_factor, std::mt19937_64& rng) {
  hash_table table(n, load_factor);
  std::unordered_map<std::uint64_t, std::uint32_t> oracle;
  std::uniform_int_distribution<std::uint64_t> d(0, 4 * n + 10);  // repeats give duplicate inserts
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t k = d(rng);
    const auto v = static_cast<std::uint32_t>(rng());
    const bool inserted = table.insert(k, v);
    EXPECT_EQ(inserted, oracle.emplace(k, v).second) << "key " << k;
  }
  EXPECT_EQ(table.size(), oracle.size());

  std::vector<std::uint64_t> lookups(800);
  for (auto& k : lookups) k = d(rng);
  lookups.push_back(~std::uint64_t{0});
  std::vector<std::optional<std::uint32_t>> expected;
  for (auto k : lookups) {
    auto it = oracle.find(k);
    expected.push_back(it == oracle.end() ? std::nullopt : std::optional(it->second));
  }
  testing::expect_every_mode<std::optional<std::uint32_t>>(lookups.size(), [&](auto policy, std::size_t i) {
    return find<decltype(policy)>(table, lookups[i]);
  }, expected);
  testing::expect_every_mode<std::optional<std::uint32_t>>(
      lookups.size(),
      streamed([&](auto policy, auto requests) { return find<decltype(policy)>(table, requests); },
               [&](std::size_t i) { return lookups[i]; }),
      expected);
}

TEST(hash_table, find_matches_unordered_map_in_every_mode) {
  std::mt19937_64 rng(3);
  for (double lf : {0.5, 1.0, 4.0}) {
    for (std::size_t n : {1u, 2u, 17u, 1000u, 20'000u}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", load factor " + std::to_string(lf));
      check_against_unordered_map(n, lf, rng);
    }
  }
}

TEST(hash_table, refuses_sizes_its_32_bit_indexes_cannot_name) {
  EXPECT_THROW(hash_table(std::size_t{1} << 63), std::length_error);
  EXPECT_THROW(hash_table(~std::size_t{0}), std::length_error);
  EXPECT_THROW(hash_table(10, 1e-300), std::length_error);
  EXPECT_THROW(hash_table(10, 0.0), std::invalid_argument);
  EXPECT_THROW(hash_table(10, -1.0), std::invalid_argument);
  EXPECT_EQ(hash_table(0).bucket_count(), 1u);
}

TEST(hash_table, long_chains_are_followed_to_the_end) {
  // One bucket for 64 keys: every probe walks the overflow chain.
  hash_table table(64, 64.0);
  ASSERT_EQ(table.bucket_count(), 1u);
  for (std::uint32_t k = 0; k < 64; ++k) ASSERT_TRUE(table.insert(k * 3, k));
  std::vector<std::optional<std::uint32_t>> expected;
  for (std::uint32_t k = 0; k < 200; ++k) expected.push_back(k % 3 == 0 && k / 3 < 64 ? std::optional(k / 3) : std::nullopt);
  testing::expect_every_mode<std::optional<std::uint32_t>>(expected.size(), [&](auto policy, std::size_t i) {
    return find<decltype(policy)>(table, i);
  }, expected);
  testing::expect_every_mode<std::optional<std::uint32_t>>(
      expected.size(),
      streamed([&](auto policy, auto requests) { return find<decltype(policy)>(table, requests); },
               [](std::size_t i) { return std::uint64_t{i}; }),
      expected);
}

TEST(hash_table, a_full_table_refuses_inserts_and_an_empty_one_finds_nothing) {
  hash_table table(2, 1.0);
  EXPECT_TRUE(table.insert(1, 1));
  EXPECT_TRUE(table.insert(2, 2));
  std::size_t refused = 0;
  for (std::uint64_t k = 3; k < 10; ++k) refused += table.insert(k, 0) ? 0 : 1;
  EXPECT_GT(refused, 0u);
  hash_table none;
  EXPECT_FALSE(none.insert(1, 1));
  EXPECT_EQ(sync_wait(find<interleaved_policy>(none, 1)), std::nullopt);
  EXPECT_THROW(hash_table(10, 0.0), std::invalid_argument);
}

}  // namespace
}  // namespace weave
