#pragma once
// What the transaction benchmarks share for `--latency-target-us`: the
// option's bounds, a label for progress lines, and what the workers'
// controllers chose, for the JSON.

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "bench/workload/auto_batch.hpp"
#include "weave/exec/latency_controller.hpp"

namespace weave::bench {

// A target outside this range is a typo: a latency target of an hour, or
// one shorter than any transaction takes.
inline constexpr double min_latency_target_us = 1;
inline constexpr double max_latency_target_us = 1e7;

inline void check_latency_target(double us) {
  if (!(us >= min_latency_target_us && us <= max_latency_target_us)) {
    throw std::invalid_argument(fmt::format("--latency-target-us {} is outside 1..10000000", us));
  }
}

// The options of a `--latency-target-us` run. As with auto_batch_options,
// where commits wait for the disk (durability sync) a group of one stays a
// ring, whose parked commits let the next transaction run.
inline latency_target_options target_options(double p99_us, bool commits_wait) {
  latency_target_options o{.p99_us = p99_us};
  o.sequential_at_one = !commits_wait;
  return o;
}

// Transactions a worker runs between two epoch boundaries when its batch
// follows a target: about one controller window.
inline constexpr std::size_t tuned_chunk = 1024;

inline std::string batch_label(std::size_t batch, double target_us) {
  if (target_us > 0) return fmt::format("p99 <= {} us", target_us);
  return batch == auto_batch ? std::string("batch auto") : fmt::format("batch {}", batch);
}

// The groups the workers' controllers chose, summed over workers and runs.
struct chosen_groups {
  double group_sum = 0;  // of each worker's mean group
  std::size_t workers = 0, windows = 0, missed = 0, changes = 0;

  void add(const latency_controller& c) {
    group_sum += c.mean_group();
    ++workers;
    windows += c.windows();
    missed += c.missed();
    changes += c.changes();
  }
  void add(const chosen_groups& o) {
    group_sum += o.group_sum;
    workers += o.workers;
    windows += o.windows;
    missed += o.missed;
    changes += o.changes;
  }
  // group_mean: the batch the workers ran at, on average; windows_missed:
  // the controller windows (about 1,000 transactions each) whose p99 was
  // over the target.
  // None if no controller ran a window: a fixed batch, or a cached table,
  // which runs in order.
  void describe(nlohmann::ordered_json& j) const {
    if (windows == 0) return;
    j["group_mean"] = std::round(group_sum / static_cast<double>(workers) * 100) / 100;
    j["windows"] = windows;
    j["windows_missed"] = missed;
    j["group_changes"] = changes;
  }
};

}  // namespace weave::bench
