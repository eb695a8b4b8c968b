#include "bench/model_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "bench/lookup/lookup_bench.hpp"
#include "bench/mlp.hpp"
#include "bench/workload/median.hpp"
#include "weave/exec/switch_cost.hpp"
#include "bench/workload/limits.hpp"

namespace weave::bench {

namespace {

double time_per_lookup(const lookup_workload& w, variant v, std::size_t group, std::size_t first,
                       std::size_t last, std::size_t passes) {
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t p = 0; p < passes; ++p) w.run(v, group, first, last, adaptive_options{});
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(stop - start).count() /
         static_cast<double>(passes * (last - first));
}

}  // namespace

std::vector<std::size_t> probe_groups(const memory_limits& memory, std::size_t width) {
  const std::size_t slot = std::max<std::size_t>(width, 1);
  const std::size_t in_flight = std::max<std::size_t>(memory.misses_in_flight, 1);
  std::vector<std::size_t> g{in_whole_slots(in_flight / 2 + slot, slot),
                             in_whole_slots(in_flight + slot, slot)};
  g.erase(std::unique(g.begin(), g.end()), g.end());
  return g;
}

void validate_model_options(const std::vector<std::size_t>& groups, std::size_t repeat) {
  check_group_sizes(groups);
  check_repeat(repeat);
}

memory_limits measure_memory(std::size_t structure_bytes, bool verbose) {
  const std::size_t bytes = std::clamp<std::size_t>(structure_bytes, mlp_probe::min_bytes, std::size_t{4} << 30);
  const mlp_probe probe(bytes, verbose);
  memory_limits m;
  std::vector<double> runs;
  for (int k = 0; k < 3; ++k) runs.push_back(probe.ns_per_miss(1, 300'000));
  m.miss_latency_ns = median(runs);
  m.ns_per_miss = best_ns_per_miss(probe, &m.misses_in_flight);
  return m;
}

model_report measure_model(const lookup_workload& w, const std::vector<std::size_t>& groups,
                           std::size_t repeat, const memory_limits& memory, bool verbose,
                           bool say_rounding) {
  validate_model_options(groups, repeat);
  model_report r;
  const std::size_t n = w.lookups();
  // A ring holds whole slots; where a slot advances several lookups per
  // resume, a suspension ends a stage of each, and they share its switch.
  const std::size_t width = w.lookups_per_slot();
  r.memory = memory;
  r.probe_groups = probe_groups(memory, width);
  if (verbose) std::fprintf(stderr, "measuring the model's inputs...\n");

  // Every input comes from cold lookups over the whole structure. The run
  // that counts the stages goes first, untimed: the first runs after a
  // structure is built were slower than the rest (the sequential one by
  // 1.8x on an Intel VM).
  const variant_result counted = w.run(variant::coro, r.probe_groups.front(), 0, n, adaptive_options{});
  r.stages_per_lookup = static_cast<double>(counted.stages) / static_cast<double>(n);
  std::vector<double> seq_cold;
  std::vector<std::vector<double>> probe_cold(r.probe_groups.size());
  for (std::size_t k = 0; k < repeat; ++k) {
    seq_cold.push_back(time_per_lookup(w, variant::coro_sequential, 1, 0, n, 1));
    for (std::size_t p = 0; p < r.probe_groups.size(); ++p)
      probe_cold[p].push_back(time_per_lookup(w, variant::coro, r.probe_groups[p], 0, n, 1));
  }
  r.sequential_ns = median(seq_cold);
  for (const auto& p : probe_cold) r.probe_measured_ns.push_back(median(p));
  const double probe_ns = *std::min_element(r.probe_measured_ns.begin(), r.probe_measured_ns.end());
  const double s = std::max(r.stages_per_lookup, 1e-9);
  r.costs = estimate_stage_costs(r.sequential_ns, probe_ns, s, switch_cost_ns() / static_cast<double>(width));
  r.costs.miss_ns = memory.miss_latency_ns;
  r.predicted_group = group_size(r.costs, memory.misses_in_flight, width);
  r.predicted_speedup = max_speedup(r.costs, memory.ns_per_miss);

  // The predicted group is always measured, so that its time can be set
  // against the best.
  r.groups = whole_slot_groups(groups, width, say_rounding);
  r.groups.push_back(r.predicted_group);
  std::sort(r.groups.begin(), r.groups.end());
  r.groups.erase(std::unique(r.groups.begin(), r.groups.end()), r.groups.end());
  // The sweep times the sequential run again in each of its rounds, so that
  // the measured speedup is of one window: the machines are shared, and the
  // window of the inputs may have been faster or slower.
  std::vector<std::vector<double>> samples(r.groups.size());
  std::vector<double> seq_sweep;
  for (std::size_t k = 0; k < repeat; ++k) {
    seq_sweep.push_back(time_per_lookup(w, variant::coro_sequential, 1, 0, n, 1));
    for (std::size_t g = 0; g < r.groups.size(); ++g) {
      if (verbose)
        std::fprintf(stderr, "\rsweeping groups: repeat %zu/%zu, group %zu   ", k + 1, repeat, r.groups[g]);
      samples[g].push_back(time_per_lookup(w, variant::coro, r.groups[g], 0, n, 1));
    }
  }
  if (verbose) std::fprintf(stderr, "\r%60s\r", "");
  const double stage = r.costs.compute_ns + r.costs.switch_ns;
  double best = 1e300;
  for (std::size_t g = 0; g < r.groups.size(); ++g) {
    const double measured = median(samples[g]);
    r.measured_ns.push_back(measured);
    // Below the group that hides every stall, a round of G lookups waits
    // for one (mean) stall besides its first slot's work; above it, each
    // stage costs what the probe showed. Neither beats the memory's ceiling.
    const double per_stage = std::max(
        {stage, (r.costs.stall_ns + static_cast<double>(width) * stage) / static_cast<double>(r.groups[g]),
         memory_ns_per_stage(r.costs, memory.ns_per_miss)});
    r.predicted_ns.push_back(r.stages_per_lookup * per_stage);
    if (r.groups[g] == r.predicted_group) r.predicted_group_ns = measured;
    if (measured < best) {
      best = measured;
      r.measured_group = r.groups[g];
    }
  }
  r.sweep_sequential_ns = median(seq_sweep);
  r.measured_speedup = r.sweep_sequential_ns / best;
  r.best_ns = best;
  for (std::size_t g = 0; g < r.groups.size(); ++g) {
    if (r.measured_ns[g] <= best * near_best) {
      r.knee_group = r.groups[g];
      break;
    }
  }
  return r;
}

std::vector<nlohmann::ordered_json> to_json(const lookup_workload& w, std::size_t keys, const model_report& r) {
  std::vector<nlohmann::ordered_json> lines;
  for (std::size_t g = 0; g < r.groups.size(); ++g) {
    nlohmann::ordered_json j;
    j["bench"] = "model";
    j["structure"] = w.structure();
    j["keys"] = keys;
    j["lookups"] = w.lookups();
    j["group"] = r.groups[g];
    j["ns_per_lookup"] = r.measured_ns[g];
    j["predicted_ns_per_lookup"] = r.predicted_ns[g];
    lines.push_back(j);
  }
  nlohmann::ordered_json s;
  s["bench"] = "model";
  s["structure"] = w.structure();
  s["keys"] = keys;
  s["lookups"] = w.lookups();
  s["lookups_per_slot"] = w.lookups_per_slot();
  s["stages_per_lookup"] = r.stages_per_lookup;
  s["probe_groups"] = r.probe_groups;
  s["probe_ns_per_lookup"] = r.probe_measured_ns;
  s["compute_ns"] = r.costs.compute_ns;
  s["stall_ns"] = r.costs.stall_ns;
  s["switch_ns"] = r.costs.switch_ns;
  s["switch_ns_microbench"] = switch_cost_ns();
  s["miss_ns"] = r.costs.miss_ns;
  s["ns_per_miss_ceiling"] = r.memory.ns_per_miss;
  s["misses_in_flight"] = r.memory.misses_in_flight;
  s["sequential_ns_per_lookup"] = r.sequential_ns;
  s["sweep_sequential_ns_per_lookup"] = r.sweep_sequential_ns;
  s["predicted_group"] = r.predicted_group;
  s["predicted_speedup"] = r.predicted_speedup;
  s["measured_group"] = r.measured_group;
  s["knee_group"] = r.knee_group;
  s["measured_speedup"] = r.measured_speedup;
  // What choosing the model's group costs against the best group swept.
  s["predicted_group_ns_per_lookup"] = r.predicted_group_ns;
  s["predicted_group_vs_best"] = r.predicted_group_ns / r.best_ns;
  lines.push_back(s);
  return lines;
}

}  // namespace weave::bench
