#pragma once
// `weave bench model`: measures the analytical model's inputs on a workload,
// predicts the best group and speedup, and compares with a group sweep.
//
// Every input is measured on cold lookups over the whole structure, as the
// adaptive scheduler calibrates (a stage is one lookup's step from one likely
// miss to the next; a suspension of a slot that runs k lookups ends k):
//   T_compute + T_switch = coro's time at the probe groups, the faster of
//               two, / stages: the misses the memory system overlaps plus one
//               slot, and half as many (a group that large hides every stall
//               the memory can overlap, so what is left is what a stage costs
//               out of cache; on an Intel VM every variant slowed past 24-32
//               in flight, hence the smaller one)
//   T_switch  = the switch microbenchmark (exec/switch_cost.hpp), shared by a slot
//   T_stall   = sequential time on the same lookups / stages - T_compute
//   T_miss    = one miss alone: a pointer chase through a buffer of the
//               structure's size (the longest stall, which sizes G); the
//               ceiling and the misses worth having in flight come from
//               chases with many chains through the same buffer
// Cached runs are not used: on cached data a stage pays each cached load's
// latency in turn and none of the page walks or the memory's queues, so it
// cost more than an interleaved cold stage on one CPU and less on another
// (docs/results/lookups.md). The predicted group is Formula 3.2's for slots
// of the structure's width with T_miss, capped by the misses the memory
// system overlaps; the predicted speedup is Formula 3.4's.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <vector>

#include "bench/lookup/workload.hpp"
#include "weave/exec/model.hpp"

namespace weave::bench {

// What the memory system allows, measured by pointer chases (mlp.hpp).
struct memory_limits {
  double ns_per_miss = 0;       // the best time per miss with many in flight (the ceiling)
  std::size_t misses_in_flight = 256;  // the chain count that reached it: more do not pay
  double miss_latency_ns = 0;   // one miss alone over a buffer of the structure's size
};

struct model_report {
  stage_costs costs;
  double stages_per_lookup = 0;
  double sequential_ns = 0;          // cold, per lookup
  std::vector<std::size_t> probe_groups;  // the interleaved runs the stage cost comes from
  std::vector<double> probe_measured_ns;  // coro per lookup at each of them, cold
  memory_limits memory;              // what it was given
  std::size_t predicted_group = 1;   // Formula 3.2
  double predicted_speedup = 1;      // Formula 3.4
  std::vector<std::size_t> groups;   // lookups in flight, ascending
  std::vector<double> measured_ns;   // coro per lookup at each group
  std::vector<double> predicted_ns;  // the model's time at each group
  std::size_t measured_group = 1;    // the fastest of `groups`
  std::size_t knee_group = 1;        // the smallest of `groups` within near_best of the fastest
  double sweep_sequential_ns = 0;    // cold, per lookup, timed in the sweep's rounds
  double measured_speedup = 1;       // sweep_sequential_ns / best_ns
  double best_ns = 0;             // coro per lookup at measured_group
  double predicted_group_ns = 0;  // and at predicted_group (always swept)
};

// Past the group that hides every stall the sweep's curve is flat, and which
// group runs fastest there is up to noise. Formula 3.2 names the smallest
// group that hides every stall, so the sweep's counterpart is the smallest
// group within 5% of the fastest: the knee.
inline constexpr double near_best = 1.05;

// The groups a stage's out-of-cache cost is measured at: the misses the
// memory system overlaps plus one slot, and half as many, in whole slots.
std::vector<std::size_t> probe_groups(const memory_limits& memory, std::size_t width);

// Throws std::invalid_argument, with a one-line reason, for a sweep that cannot run.
void validate_model_options(const std::vector<std::size_t>& groups, std::size_t repeat);

model_report measure_model(const lookup_workload& workload, const std::vector<std::size_t>& groups,
                           std::size_t repeat, const memory_limits& memory, bool verbose,
                           bool say_rounding = false);
// What the memory system allows over a buffer of `structure_bytes` (at most
// 4 GiB): pointer chases through it, page walks included, so that the
// ceiling and the longest stall are those of the structure's size (on an
// Intel VM a chase over 2 GiB took 10% longer a miss than over 1 GiB, and
// one miss alone 20% longer).
memory_limits measure_memory(std::size_t structure_bytes, bool verbose);

std::vector<nlohmann::ordered_json> to_json(const lookup_workload& workload, std::size_t keys,
                                            const model_report& report);

}  // namespace weave::bench
