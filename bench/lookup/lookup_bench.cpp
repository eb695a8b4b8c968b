#include "bench/lookup/lookup_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "bench/workload/median.hpp"
#include "bench/workload/report.hpp"
#include "bench/workload/parallel.hpp"
#include "bench/workload/limits.hpp"

namespace weave::bench {

namespace {

bool is_coro(variant v) { return v == variant::coro || v == variant::coro_task; }

struct config {
  variant v;
  std::size_t group;
  std::size_t threads;
  std::vector<double> ns;
  std::uint64_t checksum = 0;
  std::size_t stages = 0;
  bool interleaved = false;
  std::size_t chosen_group = 1;
};

// The group a row reports: lookups in flight. coro's ring holds whole slots,
// so its group is rounded up to a multiple of the lookups a slot runs; auto
// reports the group it chose.
std::size_t reported_group(const config& cfg) {
  return cfg.v == variant::adaptive || cfg.v == variant::coro ? cfg.chosen_group : cfg.group;
}

}  // namespace

std::size_t in_whole_slots(std::size_t group, std::size_t width) {
  return (std::max<std::size_t>(group, 1) + width - 1) / width * width;
}

std::vector<std::size_t> whole_slot_groups(const std::vector<std::size_t>& asked, std::size_t width, bool say_so) {
  std::vector<std::size_t> out;
  std::string rounded;
  for (std::size_t g : asked) {
    const std::size_t in_flight = in_whole_slots(g, width);
    if (in_flight != g) rounded += fmt::format("{}{} runs {}", rounded.empty() ? "" : ", ", g, in_flight);
    if (std::find(out.begin(), out.end(), in_flight) == out.end()) out.push_back(in_flight);
  }
  if (say_so && !rounded.empty()) {
    std::fprintf(stderr, "weave: coro's ring runs whole slots of %zu lookups: group %s%s\n", width, rounded.c_str(),
                 out.size() < asked.size() ? " (each group of lookups in flight runs once)" : "");
  }
  return out;
}

bool uses_group(variant v) { return v == variant::gp || v == variant::amac || is_coro(v); }

void check_group_sizes(const std::vector<std::size_t>& groups) {
  for (std::size_t g : groups)
    if (g < 1 || g > detail::max_group)
      throw std::invalid_argument(fmt::format("--group {} is outside 1..{}", g, detail::max_group));
}

void validate(const lookup_options& options) {
  validate(options.spec);
  check_repeat(options.repeat);
  for (std::size_t t : options.threads)
    if (t < 1 || t > 1024) throw std::invalid_argument(fmt::format("--threads {} is outside 1..1024", t));
  if (!options.group_auto) check_group_sizes(options.groups);
}

std::size_t model_group(const lookup_workload& workload) {
  adaptive_options options;
  options.recheck_interval = workload.lookups();  // calibrate once, try no neighbours
  const std::size_t sample = std::min<std::size_t>(workload.lookups(), 8 * options.window);
  const variant_result r = workload.run(variant::adaptive, 1, 0, sample, options);
  return r.interleaved ? r.group : 1;
}

std::vector<lookup_row> run_lookup_bench(const lookup_options& options, const lookup_workload& workload,
                                         bool verbose, const std::function<void(const lookup_row&)>& each_repetition) {
  validate(options);
  std::vector<std::size_t> groups = options.groups;
  if (options.group_auto) groups = {model_group(workload)};

  // coro's groups as they run; the hand-written variants run any group.
  const bool runs_coro = std::find(options.variants.begin(), options.variants.end(), variant::coro) !=
                         options.variants.end();
  const std::vector<std::size_t> coro_groups =
      runs_coro && !options.group_auto
          ? whole_slot_groups(groups, workload.lookups_per_slot(), options.say_rounding)
          : groups;
  std::vector<config> configs;
  for (std::size_t t : options.threads) {
    for (variant v : options.variants) {
      if (uses_group(v)) {
        for (std::size_t g : v == variant::coro ? coro_groups : groups) configs.push_back({v, g, t, {}});
      } else {
        configs.push_back({v, 1, t, {}});
      }
    }
  }

  const adaptive_options adaptive{};
  const std::size_t lookups = workload.lookups();
  for (std::size_t r = 0; r < options.repeat; ++r) {
    for (std::size_t c = 0; c < configs.size(); ++c) {
      config& cfg = configs[c];
      if (verbose) {
        std::fprintf(stderr, "\rrepeat %zu/%zu, configuration %zu/%zu   ", r + 1, options.repeat, c + 1,
                     configs.size());
      }
      std::vector<variant_result> results(cfg.threads);
      const double ns = run_threads(cfg.threads, lookups, [&](std::size_t t, std::size_t first, std::size_t last) {
        results[t] = workload.run(cfg.v, cfg.group, first, last, adaptive);
      });
      std::uint64_t checksum = 0;
      std::size_t stages = 0;
      for (const auto& res : results) {
        checksum += res.checksum;
        stages += res.stages;
      }
      if (r > 0 && checksum != cfg.checksum) {
        throw std::runtime_error(fmt::format("{} gave checksum {} and then {}", variant_name(cfg.v),
                                             cfg.checksum, checksum));
      }
      cfg.checksum = checksum;
      cfg.stages = stages;
      cfg.interleaved = results[0].interleaved;
      cfg.chosen_group = results[0].group;
      cfg.ns.push_back(ns / static_cast<double>(lookups));
      if (each_repetition) {
        const bool is_auto = cfg.v == variant::adaptive;
        lookup_row row{cfg.v, reported_group(cfg), cfg.threads, cfg.ns.back(), cfg.checksum,
                       static_cast<double>(cfg.stages) / static_cast<double>(lookups),
                       is_auto ? cfg.interleaved : is_coro(cfg.v), r + 1, {}};
        each_repetition(row);
      }
    }
  }
  if (verbose) std::fprintf(stderr, "\r%60s\r", "");

  std::vector<lookup_row> rows;
  for (const config& cfg : configs) {
    if (cfg.checksum != configs.front().checksum) {
      throw std::runtime_error(fmt::format("checksum mismatch: {} (group {}) gave {}, {} gave {}",
                                           variant_name(cfg.v), cfg.group, cfg.checksum,
                                           variant_name(configs.front().v), configs.front().checksum));
    }
    const bool is_auto = cfg.v == variant::adaptive;
    rows.push_back({cfg.v, reported_group(cfg), cfg.threads, median(cfg.ns), cfg.checksum,
                    static_cast<double>(cfg.stages) / static_cast<double>(lookups),
                    is_auto ? cfg.interleaved : is_coro(cfg.v), 0, cfg.ns});
  }
  return rows;
}

nlohmann::ordered_json to_json(const lookup_options& options, const lookup_workload& workload,
                               const lookup_row& row) {
  nlohmann::ordered_json j;
  j["bench"] = "lookup";
  j["structure"] = workload.structure();
  j["variant"] = variant_name(row.v);
  j["group"] = row.group;
  // coro's and auto's group counts lookups in flight; a slot of their ring holds this many.
  if (row.v == variant::coro || row.v == variant::adaptive) j["lookups_per_slot"] = workload.lookups_per_slot();
  j["threads"] = row.threads;
  j["keys"] = options.spec.keys;
  j["bytes"] = workload.bytes();
  j["lookups"] = workload.lookups();
  j["distribution"] = options.spec.distribution == key_chooser::distribution::zipf ? "zipf" : "uniform";
  if (options.spec.distribution == key_chooser::distribution::zipf) j["theta"] = options.spec.theta;
  j["seed"] = options.spec.seed;
  j["repeat"] = options.repeat;
  if (row.repetition > 0) {
    j["run_type"] = "repetition";
    j["repetition"] = row.repetition;
    j["ns_per_lookup"] = row.ns_per_lookup;
  } else {
    j["run_type"] = "aggregate";
    add_aggregates(j, "ns_per_lookup", row.ns_samples);
  }
  j["checksum"] = row.checksum;
  if (row.v == variant::adaptive) j["interleaved"] = row.interleaved;
  if (is_coro(row.v)) {
    j["misses_per_lookup"] = row.stages_per_lookup;
    if (options.ns_per_miss > 0) {
      // Each thread has its own core and its own misses in flight.
      j["ceiling_ns_per_lookup"] =
          row.stages_per_lookup * options.ns_per_miss / static_cast<double>(row.threads);
    }
  }
  return j;
}

}  // namespace weave::bench
