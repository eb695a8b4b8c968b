#pragma once
// `weave bench model`: measures the analytical model's inputs on a workload,
// predicts the best group and speedup, and compares with a group sweep.
//
// Per suspension point (stage) of a lookup:
//   T_compute = sequential time on lookups whose lines are all cached / stages
//   T_stall   = (sequential time on cold lookups - the cached time) / stages
//   T_switch  = (interleaved time on cached lookups - sequential cached) / stages
// The cached runs repeat a small set of lookups that fits in L2, so the path
// through the structure is the same as in the cold runs.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <vector>

#include "bench/lookup/workload.hpp"
#include "weave/exec/model.hpp"

namespace weave::bench {

struct model_report {
  stage_costs costs;
  double stages_per_lookup = 0;
  double sequential_ns = 0;          // cold, per lookup
  std::size_t predicted_group = 1;   // Formula 3.2
  double predicted_speedup = 1;      // Formula 3.4
  std::vector<std::size_t> groups;
  std::vector<double> measured_ns;   // coro per lookup at each group
  std::vector<double> predicted_ns;  // the model's time at each group
  std::size_t measured_group = 1;
  double measured_speedup = 1;
};

// Throws std::invalid_argument, with a one-line reason, for a sweep that cannot run.
void validate_model_options(const std::vector<std::size_t>& groups, std::size_t repeat);

model_report measure_model(const lookup_workload& workload, const std::vector<std::size_t>& groups,
                           std::size_t repeat, double ns_per_miss, bool verbose);

std::vector<nlohmann::ordered_json> to_json(const lookup_workload& workload, std::size_t keys,
                                            const model_report& report);

}  // namespace weave::bench
