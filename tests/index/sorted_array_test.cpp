#include "weave/index/sorted_array.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "support/every_mode.hpp"
#include "weave/index/fixed_string.hpp"

namespace weave {
namespace {

// Sorted keys drawn from a small range, so there are duplicates; lookups cover
// present keys, gaps between keys and keys beyond both ends.
std::vector<int> sorted_keys(std::size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> d(-1000, static_cast<int>(3 * n));
  std::vector<int> keys(n);
  for (int& k : keys) k = d(rng);
  std::sort(keys.begin(), keys.end());
  return keys;
}

void check_int_array(std::size_t n, unsigned hot_levels, std::mt19937_64& rng) {
  const std::vector<int> keys = sorted_keys(n, rng);
  sorted_array<int> array{std::span<const int>(keys)};
  array.set_hot_levels(hot_levels);
  std::uniform_int_distribution<int> d(-1100, static_cast<int>(3 * n) + 100);
  std::vector<int> lookups(600);
  for (int& k : lookups) k = d(rng);
  std::vector<std::size_t> expected(lookups.size());
  for (std::size_t i = 0; i < lookups.size(); ++i) {
    expected[i] = static_cast<std::size_t>(std::lower_bound(keys.begin(), keys.end(), lookups[i]) - keys.begin());
  }
  testing::expect_every_mode<std::size_t>(lookups.size(), [&](auto policy, std::size_t i) {
    return lower_bound<decltype(policy)>(array, lookups[i]);
  }, expected);
  testing::expect_every_mode<std::size_t>(
      lookups.size(),
      streamed([&](auto policy, auto requests) { return lower_bound<decltype(policy)>(array, requests); },
               [&](std::size_t i) { return lookups[i]; }),
      expected);
}

TEST(sorted_array, lower_bound_matches_std_lower_bound_in_every_mode) {
  std::mt19937_64 rng(1);
  // Sizes around powers of two and cache-line widths; hot_levels 0 makes every level suspend.
  for (std::size_t n : {1u, 2u, 3u, 15u, 16u, 17u, 31u, 64u, 100u, 1023u, 1024u, 1025u, 65'537u}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    check_int_array(n, 0, rng);
    check_int_array(n, 3, rng);
  }
}

TEST(sorted_array, lower_bound_of_an_empty_array_is_zero) {
  sorted_array<int> empty;
  EXPECT_EQ(sync_wait(lower_bound<interleaved_policy>(empty, 5)), 0u);
  EXPECT_EQ(sync_wait(lower_bound<sequential_policy>(empty, 5)), 0u);
}

key16 random_key(std::mt19937_64& rng, int alphabet) {
  std::string s(16, 'a');
  std::uniform_int_distribution<int> d(0, alphabet - 1);
  for (char& c : s) c = static_cast<char>('a' + d(rng));
  return key16{s};
}

TEST(sorted_array, lower_bound_over_16_byte_strings_matches_std_lower_bound) {
  std::mt19937_64 rng(2);
  for (std::size_t n : {1u, 7u, 64u, 1000u, 4097u}) {
    std::vector<key16> keys(n);
    for (auto& k : keys) k = random_key(rng, 3);  // a 3-letter alphabet gives shared prefixes
    std::sort(keys.begin(), keys.end());
    sorted_array<key16> array{std::span<const key16>(keys)};
    array.set_hot_levels(0);
    std::vector<key16> lookups(300);
    for (std::size_t i = 0; i < lookups.size(); ++i) lookups[i] = i % 3 == 0 ? keys[i % n] : random_key(rng, 3);
    std::vector<std::size_t> expected(lookups.size());
    for (std::size_t i = 0; i < lookups.size(); ++i) {
      expected[i] = static_cast<std::size_t>(std::lower_bound(keys.begin(), keys.end(), lookups[i]) - keys.begin());
    }
    testing::expect_every_mode<std::size_t>(lookups.size(), [&](auto policy, std::size_t i) {
      return lower_bound<decltype(policy)>(array, lookups[i]);
    }, expected);
    testing::expect_every_mode<std::size_t>(
        lookups.size(),
        streamed([&](auto policy, auto requests) { return lower_bound<decltype(policy)>(array, requests); },
                 [&](std::size_t i) { return lookups[i]; }),
        expected);
  }
}

}  // namespace
}  // namespace weave
