#include "weave/durability/exposure.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace weave::durability {
namespace {

using h = exposure_histogram;

TEST(exposure_histogram, a_bucket_bounds_every_value_in_it_within_an_eighth) {
  std::mt19937_64 rng(5);
  std::vector<std::uint64_t> values;
  for (std::uint64_t v = 0; v < 5000; ++v) values.push_back(v);
  for (int i = 0; i < 100000; ++i) values.push_back(rng() >> (rng() % 64));
  for (std::uint64_t v : values) {
    const std::size_t b = h::bucket_of(v);
    ASSERT_LT(b, h::buckets);
    if (b == h::buckets - 1) continue;  // everything above the last bound
    ASSERT_LE(v, h::upper_us(b)) << v;
    ASSERT_LE(static_cast<double>(h::upper_us(b)), static_cast<double>(v) * 1.125 + 1) << v;
    if (b > 0) {
      ASSERT_GT(v, h::upper_us(b - 1)) << v;
    }
  }
  for (std::size_t b = 1; b < h::buckets; ++b) ASSERT_GT(h::upper_us(b), h::upper_us(b - 1));
}

TEST(exposure_histogram, percentiles_match_a_sorted_oracle_to_the_bucket) {
  std::mt19937_64 rng(9);
  for (int round = 0; round < 50; ++round) {
    h hist;
    std::vector<std::uint64_t> us;
    const int n = 1 + static_cast<int>(rng() % 2000);
    for (int i = 0; i < n; ++i) {
      us.push_back(std::uniform_int_distribution<std::uint64_t>(0, 1 + rng() % 20000)(rng));
      hist.record(std::chrono::microseconds(us.back()));
    }
    std::sort(us.begin(), us.end());
    const auto counts = hist.snapshot();
    for (double q : {0.0, 0.01, 0.5, 0.9, 0.99, 1.0}) {
      // The q-quantile as the rank ceil(q n), counted from 1.
      const std::size_t rank = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(q * n)));
      const std::uint64_t exact = us[rank - 1];
      EXPECT_EQ(h::percentile_us(counts, q), h::upper_us(h::bucket_of(exact))) << "q " << q << " n " << n;
    }
  }
  EXPECT_EQ(h::percentile_us(h{}.snapshot(), 0.99), 0u);
}

TEST(exposure_histogram, a_negative_or_sub_microsecond_exposure_counts_as_zero) {
  h hist;
  hist.record(std::chrono::nanoseconds(-5));
  hist.record(std::chrono::nanoseconds(999));
  const auto counts = hist.snapshot();
  EXPECT_EQ(counts[0], 2u);
}

}  // namespace
}  // namespace weave::durability
