#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "bench/blink/blink_bench.hpp"
#include "bench/demo.hpp"

namespace weave::bench {

namespace {

blink_options demo_blink(const demo_options& options) {
  blink_options o;
  o.records = scaled_size(options, 10'000'000, 10'000);
  o.workload = blink_workload::c;
  o.prefetch_distances = {0, 3};
  o.baselines = {blink_baseline::threads, blink_baseline::coro};
  o.seconds = 1;
  o.repeat = 1;
  o.verbose = false;
  return o;
}

}  // namespace

std::size_t tasks_demo_bytes(const demo_options& options) { return estimated_bytes(demo_blink(options)); }

void run_tasks_demo(const demo_options& options) {
  const blink_options o = demo_blink(options);
  fmt::print("\ntasks: a Blink-tree whose lookups are chains of one-node tasks, YCSB C (Zipf {}), {} records, one "
             "worker:\n",
             o.theta, o.records);
  double off = 0;
  const char* separator = "";
  run_blink_bench(o, [&](const nlohmann::ordered_json& j) {
    if (j["run_type"] != "aggregate") return;
    const double mops = double(j["ops_per_s"]) / 1e6;
    std::string what;
    if (j["variant"] == "tasks") {
      const std::size_t d = j["prefetch_distance"];
      if (d == 0) off = mops;
      what = d == 0 ? "prefetching off" : fmt::format("prefetch distance {}", d);
    } else {
      what = std::string(j["variant"]) + " baseline";
    }
    const bool faster_than_off = j["variant"] == "tasks" && off > 0 && mops != off;
    fmt::print("{}{} {:.2f} M ops/s{}", separator, what, mops, faster_than_off ? fmt::format(" ({:.2f}x)", mops / off) : "");
    separator = ", ";
  });
  fmt::print("\n(the runtime prefetches each task's node a few tasks ahead; the baselines run the same lookups on the\n"
             "transaction engine's B+-tree, one at a time per thread or interleaved by coroutines)\n");
}

}  // namespace weave::bench
