#pragma once
// Bounds that every benchmark applies to the options that say how long it
// runs: a negative count read as 2^64-1, or "inf" seconds, must not turn into a
// run that never ends, nor 1e-300 seconds into an empty result that exits 0.

#include <cstddef>
#include <stdexcept>

namespace weave::bench {

inline constexpr std::size_t max_repeat = 100;
// IN lists, queries per run, values taken at random: beyond this is a typo.
inline constexpr std::size_t max_list = 100'000'000;
// Values a run of tuple reconstruction fetches (queries times columns):
// a billion is minutes a run; each option in range can still multiply to days.
inline constexpr std::size_t max_fetched_values = 1'000'000'000;
inline constexpr double min_seconds = 0.01, max_seconds = 3600;

inline void check_repeat(std::size_t repeat) {
  if (repeat < 1 || repeat > max_repeat) throw std::invalid_argument("--repeat must be 1..100");
}

inline void check_seconds(double seconds) {
  if (!(seconds >= min_seconds && seconds <= max_seconds)) {
    throw std::invalid_argument("--seconds must be in 0.01..3600");
  }
}

}  // namespace weave::bench
