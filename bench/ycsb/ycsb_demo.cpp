#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "bench/demo.hpp"
#include "bench/tpcc/tpcc_bench.hpp"
#include "bench/workload/progress.hpp"
#include "bench/ycsb/ycsb_bench.hpp"

namespace weave::bench {

namespace {

ycsb_options demo_ycsb(const demo_options& options) {
  ycsb_options o;
  o.records = scaled_size(options, 20'000'000, 10'000);
  o.seconds = 1;
  o.verbose = progress_wanted();
  return o;
}

tpcc_options demo_tpcc(const demo_options& options) {
  tpcc_options t;
  t.warehouses = std::clamp<std::uint32_t>(static_cast<std::uint32_t>(4 * options.scale), 1, tpcc::max_warehouses);
  // Modes take turns and the median of three counts: the first run after
  // the load is sometimes much faster than any later one, whatever its mode.
  t.seconds = 0.4;
  t.repeat = 3;
  t.modes = {tpcc::mode::prefetch, tpcc::mode::coro, tpcc::mode::hybrid};
  t.check = true;
  t.verbose = progress_wanted();
  return t;
}

}  // namespace

std::size_t txn_demo_bytes(const demo_options& options) {
  return std::max(estimated_bytes(demo_ycsb(options)), estimated_bytes(demo_tpcc(options)));
}

void run_txn_demo(const demo_options& options) {
  const ycsb_options o = demo_ycsb(options);
  fmt::print("\ntransactions: YCSB, 10 reads per transaction, {} records, one worker, batches of {}\n", o.records,
             o.batches.front());
  fmt::print("{:<12} {:>12} {:>9} {:>9} {:>9}\n", "mode", "txn/s", "vs naive", "p50 us", "p99 us");
  double naive = 0;
  run_ycsb_bench(o, [&](const nlohmann::ordered_json& j) {
    if (j["run_type"] != "aggregate") return;
    const double tps = j["txn_per_s"];
    if (j["mode"] == "naive") naive = tps;
    fmt::print("{:<12} {:>12.0f} {:>8.2f}x {:>9.1f} {:>9.1f}\n", std::string(j["mode"]), tps, naive > 0 ? tps / naive : 0.0,
               double(j["p50_us"]), double(j["p99_us"]));
    std::fflush(stdout);
  });
  fmt::print("\nprefetch: each index node's lines prefetched, no switching; multi-key: a transaction's reads\n"
             "interleaved inside multi_get; coro: whole transactions interleaved (latency grows with the batch).\n");

  const tpcc_options t = demo_tpcc(options);
  fmt::print("\nTPC-C, {} warehouse{}, standard mix, one worker:", t.warehouses, t.warehouses == 1 ? "" : "s");
  double prefetch = 0;
  const char* separator = " ";
  run_tpcc_bench(t, [&](const nlohmann::ordered_json& j) {
    if (j["run_type"] != "aggregate") return;
    const double tps = j["txn_per_s"];
    if (j["mode"] == "prefetch") prefetch = tps;
    fmt::print("{}{} {:.0f} txn/s{}", separator, std::string(j["mode"]), tps,
               prefetch > 0 && j["mode"] != "prefetch" ? fmt::format(" ({:.2f}x)", tps / prefetch) : "");
    separator = ", ";
  });
  fmt::print("; consistency checks pass\n");
}

}  // namespace weave::bench
