#pragma once
// Runs chunks of TPC-C transactions on one worker in an execution mode:
//
//   naive        one at a time, plain loads
//   prefetch     one at a time, node lines prefetched, never suspending
//   multi-key    one at a time; long lookup runs through multi_get
//   coro-nested  B transactions interleaved, nested operations
//   coro         B transactions interleaved, flat operations
//   hybrid       coro, with multi_get for the long lookup runs

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "bench/tpcc/mix.hpp"
#include "bench/tpcc/transactions.hpp"
#include "weave/exec/latency_target_scheduler.hpp"
#include "weave/txn/contention_scheduler.hpp"

namespace weave::tpcc {

enum class mode { naive, prefetch, multi_key, coro_nested, coro, hybrid };

mode parse_mode(const std::string& name);
const char* mode_name(mode m);
// Whether the mode interleaves transactions (and so has a batch size).
bool interleaves(mode m);

struct tally {
  std::array<std::size_t, kinds> commits{}, rollbacks{}, write_conflicts{}, serialization_failures{};
  std::size_t retries = 0;  // runs again after an abort
  std::array<std::vector<float>, kinds> latency_us;  // of each finished transaction, by kind
  std::size_t done() const;  // committed or rolled back
  void add(const tally& o);
};

// Runs `count` transactions drawn from `percent` on the calling thread,
// each run again after an abort up to `retries` times. With `pipeline`, a
// finished transaction's slot is refilled at once instead of in strict
// batches. With `tuned` (or `contended`), an interleaved mode runs on it
// instead, and its controller chooses the batch.
void run_chunk(mode m, worker_state& ws, std::size_t batch, bool pipeline, std::size_t retries,
               std::size_t count, const std::array<unsigned, kinds>& percent, tally& out,
               latency_target_scheduler* tuned = nullptr, txn::contention_scheduler* contended = nullptr);

}  // namespace weave::tpcc
