#pragma once
// What every benchmark's JSON lines share: the aggregates of repeated runs
// (as Google Benchmark reports them) and latency percentiles.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench/workload/median.hpp"

namespace weave::bench {

// Adds the aggregates of `samples` (one per repetition) under `metric`: the
// median as `metric` itself, then metric_mean, _stddev (sample), _min, _max.
inline void add_aggregates(nlohmann::ordered_json& row, const std::string& metric, const std::vector<double>& samples) {
  if (samples.empty()) return;
  double sum = 0;
  for (double s : samples) sum += s;
  const double mean = sum / static_cast<double>(samples.size());
  double squares = 0;
  for (double s : samples) squares += (s - mean) * (s - mean);
  const double stddev = samples.size() > 1 ? std::sqrt(squares / static_cast<double>(samples.size() - 1)) : 0.0;
  row[metric] = median(samples);
  row[metric + "_mean"] = mean;
  row[metric + "_stddev"] = stddev;
  row[metric + "_min"] = *std::min_element(samples.begin(), samples.end());
  row[metric + "_max"] = *std::max_element(samples.begin(), samples.end());
}

// p50, p90, p95, p99 and the maximum of latency samples (reordering them),
// to a thousandth: the samples are floats, whose further digits are noise.
inline nlohmann::ordered_json latency_summary(std::vector<float>& samples) {
  const auto rounded = [](double v) { return std::round(v * 1000) / 1000; };
  nlohmann::ordered_json j;
  for (const auto& [name, p] : {std::pair{"p50", 0.50}, {"p90", 0.90}, {"p95", 0.95}, {"p99", 0.99}})
    j[name] = rounded(percentile(samples, p));
  j["max"] = samples.empty() ? 0.0 : rounded(*std::max_element(samples.begin(), samples.end()));
  return j;
}

}  // namespace weave::bench
