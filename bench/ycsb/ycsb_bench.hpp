#pragma once
// `weave bench ycsb`: YCSB-style transactions on the engine, one JSON line
// per execution mode, all modes on the same loaded table.
//
//   naive        one transaction at a time, plain loads
//   prefetch     one at a time, each node's lines prefetched, never suspending
//   multi-key    one at a time; a transaction's reads go through multi_get,
//                which interleaves them
//   coro-nested  transactions interleaved by a scheduler (batches of B),
//                operations as nested tasks (index lookup, then chain walk)
//   coro         the same with flat single-level operations
//
// With latency targets, the interleaved modes also run with a batch size
// that a latency_target_scheduler chooses (exec/latency_target_scheduler.hpp).
// A batch of `auto` (auto_batch) follows the conflicts the worker's
// transactions meet, from 8 down to 1 (txn/contention_scheduler.hpp).
//
// While the table and its index stay cached nothing would suspend, and the
// interleaved modes run their transactions in order instead.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/workload/durability.hpp"
#include "bench/workload/scheduler_choice.hpp"

namespace weave::bench {

enum class ycsb_mode { naive, prefetch, multi_key, coro_nested, coro };
enum class ycsb_workload { read, update, rmw, mixed, scan };

ycsb_mode parse_ycsb_mode(const std::string& name);
const char* ycsb_mode_name(ycsb_mode m);
// Whether the mode interleaves transactions (and so has a batch size).
bool interleaves(ycsb_mode m);
ycsb_workload parse_ycsb_workload(const std::string& name);
const char* ycsb_workload_name(ycsb_workload w);

struct ycsb_options {
  std::size_t records = 1'000'000;
  std::size_t key_bytes = 8;
  std::size_t value_bytes = 8;
  // Records keep their loaded version in their slots (table.hpp), where
  // the values are short enough.
  bool inline_values = true;
  ycsb_workload workload = ycsb_workload::read;
  std::size_t ops_per_txn = 10;
  std::size_t scan_length = 10;
  double theta = 0;  // 0: uniform keys, else Zipf
  std::vector<std::size_t> threads{1};
  std::vector<std::size_t> batches{8};  // auto_batch: chosen at run time (the command line's default)
  // Of the interleaved modes; more than one runs each in turn.
  std::vector<scheduler_choice> schedulers{scheduler_choice::batch};
  // Each adds a configuration per interleaved mode whose batch (or pipeline
  // depth) is chosen at run time to keep the p99 latency under it.
  std::vector<double> latency_targets_us;
  double seconds = 2;      // per configuration and repeat
  std::size_t repeat = 3;  // runs of each configuration, in turn; the median is reported
  std::vector<ycsb_mode> modes{ycsb_mode::naive, ycsb_mode::prefetch, ycsb_mode::multi_key, ycsb_mode::coro_nested,
                               ycsb_mode::coro};
  std::string isolation = "si";
  std::size_t retries = 0;  // runs of an aborted transaction again, at most
  std::uint64_t seed = 42;
  durability_choice durability;
  // Progress on stderr; callers set it from progress_wanted(). Off unless
  // asked, so that a caller that forgets writes none into a log or a pipe.
  bool verbose = false;
};

void validate(const ycsb_options& o);
std::size_t estimated_bytes(const ycsb_options& o);
// The usertable's inline_value_bytes: the value size, if inline_values and it fits.
std::size_t inline_value_bytes(const ycsb_options& o);
// Loads the table and runs every (threads, batch, mode) `repeat` times, the
// configurations taking turns. `each` gets a line as each repetition ends
// ("run_type":"repetition") and then one per configuration
// ("run_type":"aggregate": the median and the other aggregates), which are
// also returned.
std::vector<nlohmann::ordered_json> run_ycsb_bench(const ycsb_options& o,
                                                   const std::function<void(const nlohmann::ordered_json&)>& each = {});

}  // namespace weave::bench
