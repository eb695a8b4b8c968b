#pragma once
// `weave bench tpcc`: TPC-C, TPC-CR or TPC-CH on the engine, one JSON line
// per (threads, batch, mode), all on the same loaded database; the
// consistency conditions are checked after the runs when asked.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/tpcc/runner.hpp"

#include "bench/workload/durability.hpp"
#include "bench/workload/scheduler_choice.hpp"

namespace weave::bench {

// --reserve-mib's bound, 1 TiB: beyond any machine's memory (require_memory
// refuses what this one does not have).
inline constexpr std::size_t max_reserve_mib = std::size_t{1} << 20;

struct tpcc_options {
  std::uint32_t warehouses = 4;
  tpcc::mix mix = tpcc::parse_mix("tpcc");
  std::uint32_t suppliers = 100;  // per Q2*
  std::vector<std::size_t> threads{1};
  std::vector<std::size_t> batches{8};  // auto_batch: chosen at run time (the command line's default)
  // Of the interleaved modes; more than one runs each in turn.
  std::vector<scheduler_choice> schedulers{scheduler_choice::batch};
  // Each adds a configuration per interleaved mode whose batch (or pipeline
  // depth) is chosen at run time to keep the p99 latency under it.
  std::vector<double> latency_targets_us;
  double seconds = 2;
  std::size_t repeat = 3;
  std::vector<tpcc::mode> modes{tpcc::mode::naive,       tpcc::mode::prefetch, tpcc::mode::multi_key,
                                tpcc::mode::coro_nested, tpcc::mode::coro,     tpcc::mode::hybrid};
  std::string isolation = "si";
  std::size_t retries = 0;  // runs of an aborted transaction again, at most
  bool check = false;
  // Loads the database again before every run, so that none runs on what
  // earlier runs grew (New-Order adds rows); off, runs take turns instead.
  bool reload = false;
  std::uint64_t seed = 42;
  // Touched after the load for the runs' new versions (engine::reserve_version_memory).
  std::size_t reserve_bytes = 0;
  bool inline_values = true;  // tpcc::tables::create
  durability_choice durability;
  // Progress on stderr; callers set it from progress_wanted(). Off unless
  // asked, so that a caller that forgets writes none into a log or a pipe.
  bool verbose = false;
};

void validate(const tpcc_options& o);
std::size_t estimated_bytes(const tpcc_options& o);
// Loads, runs every configuration `repeat` times (taking turns), checks if
// asked. `each` gets a line as each repetition ends ("run_type":"repetition")
// and then one per configuration ("run_type":"aggregate", with the check's
// verdict), which are also returned. Latency is reported in all and by kind.
// Throws std::runtime_error if a check fails.
std::vector<nlohmann::ordered_json> run_tpcc_bench(const tpcc_options& o,
                                                   const std::function<void(const nlohmann::ordered_json&)>& each = {});

}  // namespace weave::bench
