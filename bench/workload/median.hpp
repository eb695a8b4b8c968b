#pragma once
#include <algorithm>
#include <vector>

namespace weave::bench {

// The median of repeated measurements (the mean of the middle two for an even count).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace weave::bench
