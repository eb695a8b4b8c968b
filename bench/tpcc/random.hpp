#pragma once
// The random inputs of TPC-C (clause 4.3.2 and 2.1.6): uniform numbers,
// alphanumeric and numeric strings, NURand, and last names from syllables.

#include <cstdint>
#include <random>
#include <string>

namespace weave::tpcc {

class random_source {
 public:
  enum class phase { load, run };
  explicit random_source(std::uint64_t seed, phase p = phase::run)
      : rng_(seed), c_last_(p == phase::load ? 157 : 89) {}

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

  std::mt19937_64& engine() { return rng_; }

 private:
  std::mt19937_64 rng_;
  // The C constants of clause 2.1.6.1; C_LAST of the run differs from the
  // load's by 68 (the clause asks for 65..119, not 96 or 112).
  std::uint32_t c_last_;
  std::uint32_t c_id_ = 37, c_item_ = 5021;
};

}  // namespace weave::tpcc
