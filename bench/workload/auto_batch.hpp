#pragma once
// `--batch auto` in the transaction benchmarks: each worker's batch (or
// pipeline depth) follows the conflicts its transactions meet, up to
// auto_max_batch (txn/contention_scheduler.hpp).

#include <cmath>
#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>

#include "weave/txn/contention_controller.hpp"

namespace weave::bench {

// In a list of batch sizes: the batch is chosen at run time. (Not 0, which
// stays a bad batch size, nor the placeholder of latency-target runs.)
inline constexpr std::size_t auto_batch = std::numeric_limits<std::size_t>::max();
// The batch while nothing conflicts: the fixed batches' default.
inline constexpr std::size_t auto_max_batch = 8;

// Its options. Where commits wait for the disk (durability sync) a batch of
// one stays a ring, whose parked commits let the next transaction run; else
// it runs in order, with plain loads.
inline txn::contention_options auto_batch_options(bool commits_wait) {
  txn::contention_options o{.max_group = auto_max_batch};
  o.sequential_at_one = !commits_wait;
  return o;
}

// The batch a configuration's chunks of transactions are sized for: auto's
// largest, else the batch itself.
inline constexpr std::size_t chunk_batch(std::size_t batch) {
  return batch == auto_batch ? auto_max_batch : batch;
}

// What the workers' schedulers chose, summed over workers and runs.
struct auto_choices {
  double group_sum = 0;  // of each worker's mean batch over its windows
  std::size_t workers = 0, windows = 0, changes = 0;

  void add(const txn::contention_controller& c) {
    group_sum += c.mean_group();
    ++workers;
    windows += c.windows();
    changes += c.changes();
  }
  void add(const auto_choices& o) {
    group_sum += o.group_sum;
    workers += o.workers;
    windows += o.windows;
    changes += o.changes;
  }
  // batch_mean: the mean over workers of each one's mean batch over its
  // windows (of 256 transactions); batch_changes: how often it changed.
  // None if no window ran (a cached table runs in order).
  void describe(nlohmann::ordered_json& j) const {
    if (windows == 0) return;
    j["batch_mean"] = std::round(group_sum / static_cast<double>(workers) * 100) / 100;
    j["batch_windows"] = windows;
    j["batch_changes"] = changes;
  }
};

}  // namespace weave::bench
