#pragma once
// The random inputs of TPC-C (clause 4.3.2 and 2.1.6): uniform numbers,
// alphanumeric and numeric strings, NURand, and last names from syllables.
// The generator is SplitMix64: eight bytes of state, so that a copy is cheap
// (a transaction run again after an abort draws the same inputs from a copy
// of its source).

#include <cstdint>
#include <limits>
#include <string>

namespace weave::tpcc {

class random_source {
 public:
  enum class phase { load, run };
  // A uniform random bit generator, for the standard algorithms.
  class generator {
   public:
    using result_type = std::uint64_t;
    explicit generator(std::uint64_t seed) noexcept : state_(seed) {}
    static constexpr result_type min() noexcept { return 0; }
    static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }
    result_type operator()() noexcept {
      std::uint64_t z = (state_ += 0x9e3779b97f4a7c15);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
      z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
      return z ^ (z >> 31);
    }

   private:
    std::uint64_t state_;
  };

  explicit random_source(std::uint64_t seed, phase p = phase::run)
      : rng_(seed), c_last_(p == phase::load ? 157 : 89) {}

  // A source of its own for one transaction, seeded from this one.
  random_source split() {
    random_source r = *this;
    r.rng_ = generator(rng_());
    return r;
  }

  std::uint32_t uniform(std::uint32_t lo, std::uint32_t hi) {  // inclusive
    return lo + static_cast<std::uint32_t>(rng_() % (std::uint64_t{hi} - lo + 1));
  }
  // NURand(A, x, y) with the run's constant C for A.
  std::uint32_t nurand(std::uint32_t a, std::uint32_t x, std::uint32_t y) {
    const std::uint32_t c = a == 255 ? c_last_ : a == 1023 ? c_id_ : c_item_;
    return (((uniform(0, a) | uniform(x, y)) + c) % (y - x + 1)) + x;
  }
  std::string alphanumeric(std::uint32_t min_len, std::uint32_t max_len) {
    static constexpr char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string s(uniform(min_len, max_len), ' ');
    for (char& ch : s) ch = chars[uniform(0, sizeof chars - 2)];
    return s;
  }
  std::string numeric(std::uint32_t len) {
    std::string s(len, '0');
    for (char& ch : s) ch = static_cast<char>('0' + uniform(0, 9));
    return s;
  }
  // Data fields: 10% carry "ORIGINAL" somewhere.
  std::string data(std::uint32_t min_len, std::uint32_t max_len) {
    std::string s = alphanumeric(min_len, max_len);
    if (uniform(1, 10) == 1) s.replace(uniform(0, static_cast<std::uint32_t>(s.size()) - 8), 8, "ORIGINAL");
    return s;
  }
  std::string zip() { return numeric(4) + "11111"; }

  // The last name of number n in 0..999: three syllables by its digits.
  static std::string last_name(std::uint32_t n) {
    static constexpr const char* syllables[] = {"BAR", "OUGHT", "ABLE", "PRI",   "PRES",
                                                "ESE", "ANTI",  "CALLY", "ATION", "EING"};
    return std::string(syllables[n / 100]) + syllables[n / 10 % 10] + syllables[n % 10];
  }
  // A customer's last name for a transaction: NURand over the 1000 names.
  std::string random_last_name() { return last_name(nurand(255, 0, 999)); }

  generator& engine() { return rng_; }

 private:
  generator rng_;
  // The C constants of clause 2.1.6.1; C_LAST of the run differs from the
  // load's by 68 (the clause asks for 65..119, not 96 or 112).
  std::uint32_t c_last_;
  std::uint32_t c_id_ = 37, c_item_ = 5021;
};

}  // namespace weave::tpcc
