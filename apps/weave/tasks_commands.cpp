// The task runtime's command: `weave bench blink`.

#include <algorithm>
#include <memory>
#include <string>

#include "bench/blink/blink_bench.hpp"
#include "bench/workload/progress.hpp"
#include "bench/workload/size.hpp"
#include "bench_context.hpp"
#include "cli_support.hpp"

namespace weave::cli {

void add_tasks_commands(CLI::App& bench_app, command_table& commands) {
  struct blink_cli {
    std::string records = "1M";
    std::string workload = "c";
    double theta = 0.99;
    bool theta_given = false;
    std::string workers = "1";
    std::string distances = "0,3";
    std::string lines = std::to_string(tasks::blink_tree::default_prefetch_lines);
    std::string syncs = "optimistic-latch";
    std::string cached_kib = "0";
    std::string baselines;
    std::size_t in_flight = 32;
    std::size_t group = 16;
    bool group_given = false;
    double seconds = 2;
    bool seconds_given = false;
    std::size_t repeat = 3;
    std::uint64_t seed = 42;
    bool quiet = false;
  };
  auto b = std::make_shared<blink_cli>();
  auto* cmd = bench_app.add_subcommand("blink", "the Blink-tree on the task runtime, YCSB-style");
  cmd->add_option("--records", b->records, "records (a and c load them first)")->capture_default_str()
        ->check(size_value);
  cmd->add_option("--workload", b->workload, "insert (the load phase) | a (50% updates) | c (lookups)")
      ->capture_default_str();
  cmd->add_option("--theta", b->theta, "a and c: Zipf exponent in (0, 1); 0 is uniform")
      ->each([b](const std::string&) { b->theta_given = true; })
      ->capture_default_str();
  cmd->add_option("--workers", b->workers, "comma-separated worker counts (one per core)")->capture_default_str()
        ->check(size_list);
  cmd->add_option("--prefetch-distance", b->distances, "comma-separated prefetch distances; 0 is off")
        ->check(size_list)
      ->capture_default_str();
  cmd->add_option("--prefetch-lines", b->lines,
                  "comma-separated: lines of each 16-line node prefetched before a task on it")
      ->check(size_list)
      ->capture_default_str();
  cmd->add_option("--sync", b->syncs,
                  "comma-separated: latch, rwlatch, schedule, optimistic, optimistic-latch")
      ->capture_default_str();
  cmd->add_option(
         "--cached-kib", b->cached_kib,
         "comma-separated: KiB at the top of the tree that count as cached; tasks on those nodes run "
         "on at once instead of queueing (0: none)")
      ->check(size_list)
      ->capture_default_str();
  cmd->add_option("--baseline", b->baselines,
                  "comma-separated: threads (the optimistic B+-tree, one operation at a time per thread), "
                  "coro (the same tree, lookups interleaved by coroutines)");
  cmd->add_option("--in-flight", b->in_flight, "operations in the air per worker")->capture_default_str();
  cmd->add_option("--group", b->group, "coro baseline: operations interleaved per thread")
      ->each([b](const std::string&) { b->group_given = true; })
      ->capture_default_str();
  cmd->add_option("--seconds", b->seconds, "a and c: run time per configuration and repeat")
      ->each([b](const std::string&) { b->seconds_given = true; })
      ->capture_default_str();
  cmd->add_option("--repeat", b->repeat, "runs of each configuration, in turn: a line each, then their median and other aggregates")
      ->capture_default_str();
  cmd->add_option("--seed", b->seed, "random seed")->capture_default_str();
  cmd->add_flag("--quiet", b->quiet, "no progress on stderr");
  commands.add(cmd, [b] {
    bench::blink_options o;
    o.records = bench::parse_size(b->records);
    o.workload = bench::parse_blink_workload(b->workload);
    o.theta = b->theta;
    o.workers = parse_sizes(b->workers);
    o.prefetch_distances = parse_sizes(b->distances);
    o.prefetch_lines = parse_sizes(b->lines);
    o.cached_kib = parse_sizes(b->cached_kib);
    o.syncs.clear();
    for (const auto& s : split(b->syncs, "--sync")) o.syncs.push_back(bench::parse_sync_kind(s));
    if (!b->baselines.empty()) {
      for (const auto& s : split(b->baselines, "--baseline")) o.baselines.push_back(bench::parse_blink_baseline(s));
    }
    // Asked for by name, an option must change what runs.
    if (b->theta_given && o.workload == bench::blink_workload::insert) {
      throw std::invalid_argument("--theta applies to workloads a and c: insert loads every key once");
    }
    if (b->seconds_given && o.workload == bench::blink_workload::insert) {
      throw std::invalid_argument("--seconds applies to workloads a and c: insert runs until every key is loaded");
    }
    if (b->group_given && std::find(o.baselines.begin(), o.baselines.end(), bench::blink_baseline::coro) ==
                              o.baselines.end()) {
      throw std::invalid_argument("--group needs --baseline coro (the only variant that interleaves by groups)");
    }
    o.in_flight = b->in_flight;
    o.group = b->group;
    o.seconds = b->seconds;
    o.repeat = b->repeat;
    o.seed = b->seed;
    o.verbose = bench::progress_wanted(b->quiet);
    bench::validate(o);
    require_memory(bench::estimated_bytes(o), "this benchmark");
    print(bench_context(*std::max_element(o.workers.begin(), o.workers.end())));
    bench::run_blink_bench(o, [](const nlohmann::ordered_json& j) { print(j); });
    return 0;
  });
}

}  // namespace weave::cli
