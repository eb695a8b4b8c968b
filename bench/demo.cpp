#include "bench/demo.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "bench/lookup/lookup_bench.hpp"
#include "bench/mlp.hpp"
#include "bench/model_bench.hpp"
#include "bench/workload/progress.hpp"
#include "bench/workload/size.hpp"
#include "weave/memory/machine.hpp"

namespace weave::bench {

namespace {

struct demo_structure {
  const char* structure;
  std::size_t keys;
  const char* what;
};

std::vector<demo_structure> lookup_structures(const demo_options& options) {
  return {
      {"binary-search", scaled_size(options, std::size_t{1} << 27), "sorted int32 array"},
      {"binary-search-str", scaled_size(options, std::size_t{1} << 25), "sorted 16-byte strings"},
      {"hash", scaled_size(options, std::size_t{1} << 24), "chained hash table"},
      {"btree", scaled_size(options, 30'000'000), "B+-tree, 256-byte nodes"},
  };
}

constexpr std::size_t probe_bytes = std::size_t{1} << 30;

const char* llc_source(machine::cache_sizes::source source) {
  switch (source) {
    case machine::cache_sizes::source::probe: return "measured";
    case machine::cache_sizes::source::os: return "as the OS says";
    case machine::cache_sizes::source::override: return "from WEAVE_CACHE_SIZES";
    case machine::cache_sizes::source::fallback: return "a default";
  }
  return "?";
}

double ns_of(const std::vector<lookup_row>& rows, variant v) {
  for (const auto& r : rows)
    if (r.v == v) return r.ns_per_lookup;
  return 0;
}

}  // namespace

double size_factor(const demo_options& options) {
  constexpr double reference_llc = 32.0 * (1 << 20);
  return options.scale * std::max(0.25, static_cast<double>(machine::llc_bytes()) / reference_llc);
}

std::size_t scaled_size(const demo_options& options, std::size_t n, std::size_t least) {
  return std::max(least, static_cast<std::size_t>(static_cast<double>(n) * size_factor(options)));
}

std::size_t demo_bytes(const demo_options& options) {
  std::size_t peak = probe_bytes;
  for (const demo_structure& d : lookup_structures(options)) {
    workload_spec spec;
    spec.structure = d.structure;
    spec.keys = d.keys;
    spec.lookups = options.lookups;
    peak = std::max(peak, estimated_bytes(spec));
  }
  return std::max({peak, column_demo_bytes(options), txn_demo_bytes(options), tasks_demo_bytes(options)});
}

int run_demo(const demo_options& options) {
  fmt::print("weave demo: interleaved lookups on DRAM-sized structures\n");
  fmt::print("(one thread; every variant computes the same checksum; medians of {} run{})\n", options.repeat,
             options.repeat == 1 ? "" : "s");
  fmt::print("sizes: {:.2f}x the defaults: the last-level cache ({}, {}) over 32 MiB, times --scale {}\n\n",
             size_factor(options), format_bytes(machine::llc_bytes()),
             llc_source(machine::caches().llc_source),
             options.scale);

  const mlp_probe probe(probe_bytes, progress_wanted());
  const double latency = probe.ns_per_miss(1, 500'000);
  const double best_miss = best_ns_per_miss(probe);
  fmt::print("memory: one random miss takes {:.0f} ns; with many misses in flight, {:.1f} ns per miss "
             "({:.0f}x overlap)\n\n",
             latency, best_miss, latency / best_miss);


  fmt::print("{:<18} {:>9} | {:>7} {:>7} {:>7} {:>7} {:>7} | {:>8} {:>9} {:>9}\n", "ns per lookup", "size",
             "naive", "GP", "AMAC", "coro", "auto", "coro/nv", "ceiling", "model G");
  std::vector<std::string> notes;
  for (const demo_structure& d : lookup_structures(options)) {
    lookup_options o;
    o.spec.structure = d.structure;
    o.spec.keys = d.keys;
    o.spec.lookups = options.lookups;
    o.repeat = options.repeat;
    o.ns_per_miss = best_miss;
    const auto workload = make_workload(o.spec, progress_wanted());
    const std::size_t g = model_group(*workload);
    o.groups = {g};
    const auto rows = run_lookup_bench(o, *workload, progress_wanted());
    const double naive = ns_of(rows, variant::naive);
    const double coro = ns_of(rows, variant::coro);
    double stages = 0;
    for (const auto& r : rows)
      if (r.v == variant::coro) stages = r.stages_per_lookup;
    fmt::print("{:<18} {:>9} | {:>7.0f} {:>7.0f} {:>7.0f} {:>7.0f} {:>7.0f} | {:>7.2f}x {:>9.0f} {:>9}\n",
               d.structure, format_bytes(workload->bytes()), naive, ns_of(rows, variant::gp),
               ns_of(rows, variant::amac), coro, ns_of(rows, variant::adaptive), naive / coro,
               stages * best_miss, g);
    std::fflush(stdout);
  }
  fmt::print(
      "\nceiling: coro's likely misses per lookup x best ns per miss: what the memory's parallelism\n"
      "allows if every one is a DRAM miss (those that hit L2 or L3 cost less, so a variant may beat it).\n"
      "A suspension of a coroutine that runs k lookups in lockstep counts k.\n"
      "model G: the group the adaptive calibration settles on (Formula 3.2 proposes, a timed window\n"
      "checks); GP, AMAC and coro use it.\n\n");

  // The analytical model against a sweep, on the binary search.
  lookup_options o;
  o.spec.structure = "binary-search";
  o.spec.keys = lookup_structures(options).front().keys;
  o.spec.lookups = options.lookups / 2;
  const memory_limits memory = measure_memory(estimated_bytes(o.spec), progress_wanted());
  const auto workload = make_workload(o.spec, progress_wanted());
  const model_report m = measure_model(*workload, {2, 4, 8, 12, 16, 24, 32}, options.repeat, memory, progress_wanted());
  fmt::print(
      "model, binary search, out of cache: per stage compute {:.1f} ns (interleaved at G {}), "
      "stall {:.1f} ns (one miss alone {:.0f} ns), switch {:.1f} ns, {:.1f} stages\n",
      m.costs.compute_ns, fmt::join(m.probe_groups, "/"), m.costs.stall_ns, m.costs.miss_ns,
      m.costs.switch_ns, m.stages_per_lookup);
  fmt::print("  predicted: best G {} (Formula 3.2), speedup up to {:.2f}x (Formula 3.4)\n", m.predicted_group,
             m.predicted_speedup);
  fmt::print("  measured:  best G {} (the smallest within 5% of it: {}), speedup {:.2f}x\n", m.measured_group,
             m.knee_group, m.measured_speedup);
  fmt::print("  {:>5} {:>10} {:>10}\n", "G", "measured", "predicted");
  for (std::size_t k = 0; k < m.groups.size(); ++k)
    fmt::print("  {:>5} {:>10.0f} {:>10.0f}\n", m.groups[k], m.measured_ns[k], m.predicted_ns[k]);
  std::fflush(stdout);
  run_column_demo(options);
  run_txn_demo(options);
  run_tasks_demo(options);
  run_durability_demo(options);
  return 0;
}

}  // namespace weave::bench
