#pragma once
// `weave bench blink`: the Blink-tree on the task runtime, YCSB-style, one
// JSON line per (workers, synchronization, prefetch distance), and the same
// keys on the thread-based optimistic B+-tree of the transaction engine
// (baseline threads: one operation at a time per thread; baseline coro:
// the same tree's lookups interleaved by coroutines).
//
//   insert  the load phase: records inserted into an empty tree, in
//           scattered key order
//   a       50% lookups, 50% updates of loaded records
//   c       lookups only

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "weave/tasks/annotations.hpp"
#include "weave/tasks/blink_tree.hpp"

namespace weave::bench {

enum class blink_workload { insert, a, c };
enum class blink_baseline { threads, coro };

blink_workload parse_blink_workload(const std::string& name);
const char* blink_workload_name(blink_workload w);
tasks::sync_kind parse_sync_kind(const std::string& name);
blink_baseline parse_blink_baseline(const std::string& name);

struct blink_options {
  std::size_t records = 1'000'000;
  blink_workload workload = blink_workload::c;
  double theta = 0.99;  // 0: uniform
  std::vector<std::size_t> workers{1};
  std::vector<std::size_t> prefetch_distances{0, 3};
  std::vector<std::size_t> prefetch_lines{tasks::blink_tree::default_prefetch_lines};  // of a node's 16
  std::vector<tasks::sync_kind> syncs{tasks::sync_kind::optimistic_latch};
  // KiB of the tree's top that count as cached (blink_tree::set_cached_bytes).
  std::vector<std::size_t> cached_kib{0};
  std::vector<blink_baseline> baselines;
  std::size_t in_flight = 32;  // operations in the air per worker
  std::size_t group = 16;      // coroutine baseline: lookups interleaved per thread
  double seconds = 2;          // a and c: per configuration and repeat
  std::size_t repeat = 3;
  std::uint64_t seed = 42;
  // Progress on stderr; callers set it from progress_wanted(). Off unless
  // asked, so that a caller that forgets writes none into a log or a pipe.
  bool verbose = false;
};

void validate(const blink_options& o);
std::size_t estimated_bytes(const blink_options& o);
// Runs every configuration `repeat` times, taking turns; `each` gets a line
// per repetition as it ends ("run_type":"repetition") and then one per
// configuration ("run_type":"aggregate"), which are also returned.
std::vector<nlohmann::ordered_json> run_blink_bench(const blink_options& o,
                                                    const std::function<void(const nlohmann::ordered_json&)>& each = {});

}  // namespace weave::bench
