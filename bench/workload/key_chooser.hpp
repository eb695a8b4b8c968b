#pragma once
// Picks which of n stored items a lookup asks for: uniformly, or Zipf-skewed
// with exponent theta (YCSB's generator, after Gray et al.). Zipf ranks are
// scattered over the items by a bijective hash so that hot items are not
// neighbours in memory.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>

#include "weave/index/hash_table.hpp"

namespace weave::bench {

// A bijection on [0, 2^64): spreads neighbouring integers over the whole range.
inline std::uint64_t scramble(std::uint64_t x) noexcept { return hash_table::hash(x); }

class key_chooser {
 public:
  enum class distribution { uniform, zipf };

  key_chooser(std::size_t n, distribution d, double theta, std::uint64_t seed)
      : n_(n), distribution_(d), theta_(theta), rng_(seed), uniform_(0, n == 0 ? 0 : n - 1) {
    if (n == 0) throw std::invalid_argument("cannot choose among zero items");
    if (d == distribution::zipf) {
      if (!(theta > 0 && theta < 1)) throw std::invalid_argument("zipf theta must be in (0, 1)");
      zeta_n_ = zeta(n, theta);
      alpha_ = 1 / (1 - theta);
      eta_ = (1 - std::pow(2.0 / static_cast<double>(n), 1 - theta)) / (1 - zeta(2, theta) / zeta_n_);
    }
  }

  std::size_t next() {
    if (distribution_ == distribution::uniform) return uniform_(rng_);
    const double u = std::uniform_real_distribution<double>(0, 1)(rng_);
    const double uz = u * zeta_n_;
    std::size_t rank;
    if (uz < 1) {
      rank = 0;
    } else if (uz < 1 + std::pow(0.5, theta_)) {
      rank = 1;
    } else {
      rank = static_cast<std::size_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1, alpha_));
      if (rank >= n_) rank = n_ - 1;
    }
    return scramble(rank) % n_;
  }

 private:
  // sum_{i=1..n} i^-theta: exact for the first terms, then the Euler-Maclaurin
  // integral, so that n = 2^30 costs microseconds instead of seconds.
  static double zeta(std::size_t n, double theta) {
    const std::size_t exact = n < 1'000'000 ? n : 1'000'000;
    double sum = 0;
    for (std::size_t i = 1; i <= exact; ++i) sum += std::pow(static_cast<double>(i), -theta);
    if (exact == n) return sum;
    const double a = static_cast<double>(exact);
    const double b = static_cast<double>(n);
    sum += (std::pow(b, 1 - theta) - std::pow(a, 1 - theta)) / (1 - theta);
    sum += 0.5 * (std::pow(b, -theta) - std::pow(a, -theta));
    return sum;
  }

  std::size_t n_;
  distribution distribution_;
  double theta_;
  std::mt19937_64 rng_;
  std::uniform_int_distribution<std::size_t> uniform_;
  double zeta_n_ = 0, alpha_ = 0, eta_ = 0;
};

}  // namespace weave::bench
