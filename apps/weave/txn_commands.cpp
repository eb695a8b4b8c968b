// The transaction engine's commands: `weave bench ycsb` and `weave bench tpcc`.

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>

#include "bench/plot.hpp"
#include "bench/tpcc/schema.hpp"
#include "bench/tpcc/tpcc_bench.hpp"
#include "bench/workload/progress.hpp"
#include "bench/workload/size.hpp"
#include "bench/ycsb/ycsb_bench.hpp"
#include "bench_context.hpp"
#include "cli_support.hpp"

namespace weave::cli {

namespace {

void add_durability_options(CLI::App* cmd, bench::durability_choice& d) {
  cmd->add_option("--durability", d.mode, "off | async | sync: keep no log, or log every commit (acknowledged at once, or once durable)")
      ->capture_default_str();
  cmd->add_option("--data", d.data, "the data directory of a durable engine (new or empty)");
  cmd->add_option("--group-commit-us", d.group_commit_us, "the log's group window in microseconds")
      ->check(unsigned_in(1, 1000000))
      ->each([&d](const std::string&) { d.window_given = true; })
      ->capture_default_str();
  cmd->add_option("--acks", d.acks,
                  "park | deferred: under --durability sync, a coroutine mode's commit parks until "
                  "durable, or its worker goes on and acknowledges it once durable")
      ->check(CLI::IsMember({"park", "deferred"}))
      ->each([&d](const std::string&) { d.acks_given = true; })
      ->capture_default_str();
}

// `--scheduler batch,pipeline` runs the interleaved modes under each in turn;
// `--pipeline` is short for `--scheduler pipeline`.
struct scheduler_cli {
  bool pipeline = false;
  std::string list = "batch";

  std::vector<bench::scheduler_choice> chosen() const {
    return pipeline ? std::vector{bench::scheduler_choice::pipeline} : parse_schedulers(list);
  }
};

void add_scheduler_options(CLI::App* cmd, scheduler_cli& s) {
  CLI::Option* flag = cmd->add_flag(
      "--pipeline", s.pipeline,
      "refill a finished transaction's slot at once instead of strict batches (--scheduler pipeline)");
  cmd->add_option("--scheduler", s.list,
                  "comma-separated schedulers of the interleaved modes, each run in turn in one process: "
                  "batch (strict batches) | pipeline (a finished transaction's slot refilled at once)")
      ->check(scheduler_list)
      ->excludes(flag)
      ->capture_default_str();
}

}  // namespace

void add_txn_commands(CLI::App& bench_app, command_table& commands) {
  struct ycsb_cli {
    std::string records = "1M";
    std::size_t key_bytes = 8;
    std::size_t value_bytes = 8;
    std::string inline_values = "on";
    bool inline_values_given = false;
    std::string workload = "read";
    std::size_t ops_per_txn = 10;
    std::size_t scan_length = 10;
    bool scan_length_given = false;
    double theta = 0;
    std::string threads = "1";
    std::string batches = "8";
    bool batch_given = false;
    std::string latency_targets;
    scheduler_cli schedulers;
    double seconds = 2;
    std::size_t repeat = 3;
    std::string modes = "naive,prefetch,multi-key,coro-nested,coro";
    std::string isolation = "si";
    std::size_t retries = 0;
    std::uint64_t seed = 42;
    bench::durability_choice durability;
    std::string plot;
    bool quiet = false;
  };
  auto y = std::make_shared<ycsb_cli>();
  auto* cmd = bench_app.add_subcommand("ycsb", "YCSB transactions in every execution mode");
  cmd->add_option("--records", y->records, "records in the table")->capture_default_str()
        ->check(size_value);
  cmd->add_option("--key-bytes", y->key_bytes, "8: integer keys; any other length up to 47: byte-string keys, \"user\" and the record number's digits")->capture_default_str();
  cmd->add_option("--value-bytes", y->value_bytes, "value size")->capture_default_str();
  cmd->add_option(
         "--inline-values", y->inline_values,
         fmt::format("on: each record keeps its loaded version in its indirection slot (one miss less a read "
                     "until it is overwritten; values up to {} bytes); off: slots hold a pointer only",
                     txn::table::max_inline_value_bytes))
      ->check(CLI::IsMember({"on", "off"}))
      ->each([y](const std::string&) { y->inline_values_given = true; })
      ->capture_default_str();
  cmd->add_option("--workload", y->workload, "read | update | rmw | mixed | scan")->capture_default_str();
  cmd->add_option("--ops-per-txn", y->ops_per_txn, "operations per transaction")->capture_default_str();
  cmd->add_option("--scan-length", y->scan_length, "records per scan (--workload scan)")
      ->each([y](const std::string&) { y->scan_length_given = true; })
      ->capture_default_str();
  cmd->add_option("--theta", y->theta, "Zipf exponent in (0, 1); 0 is uniform")->capture_default_str();
  cmd->add_option("--threads", y->threads, "comma-separated worker thread counts")->capture_default_str()
        ->check(size_list);
  cmd->add_option(
         "--batch", y->batches,
         "comma-separated batch sizes (transactions in flight per worker); auto: chosen at run time, "
         "smaller while transactions conflict")
      ->capture_default_str()
      ->check(batch_list)
      ->each([y](const std::string&) { y->batch_given = true; });
  cmd->add_option("--latency-target-us", y->latency_targets,
                  "comma-separated p99 latency targets: each also runs the interleaved modes with the batch "
                  "(or pipeline depth) chosen at run time to meet it");
  add_scheduler_options(cmd, y->schedulers);
  cmd->add_option("--seconds", y->seconds, "run time per configuration and repeat")->capture_default_str();
  cmd->add_option("--repeat", y->repeat, "runs of each configuration, in turn: a line each, then their median and other aggregates")
      ->capture_default_str();
  cmd->add_option("--modes", y->modes, "naive,prefetch,multi-key,coro-nested,coro")->capture_default_str();
  cmd->add_option("--isolation", y->isolation, "si | ssn")->capture_default_str();
  cmd->add_option("--retry", y->retries, "run an aborted transaction again, up to this many times")
      ->check(unsigned_in(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--seed", y->seed, "random seed")->capture_default_str();
  add_durability_options(cmd, y->durability);
  cmd->add_option("--plot", y->plot, "write a PNG of throughput against p99 latency (batch sizes and latency targets)")
      ->check(plot_path);
  cmd->add_flag("--quiet", y->quiet, "no progress on stderr");
  commands.add(cmd, [y] {
    bench::ycsb_options o;
    o.records = bench::parse_size(y->records);
    o.key_bytes = y->key_bytes;
    o.value_bytes = y->value_bytes;
    o.inline_values = y->inline_values == "on";
    // By default values too long for a slot go out of line; asked for by
    // name, they are refused rather than silently not inlined.
    if (y->inline_values_given && o.inline_values && o.value_bytes > txn::table::max_inline_value_bytes) {
      throw std::invalid_argument(fmt::format("--inline-values on holds values of up to {} bytes, not {}",
                                              txn::table::max_inline_value_bytes, o.value_bytes));
    }
    o.workload = bench::parse_ycsb_workload(y->workload);
    o.ops_per_txn = y->ops_per_txn;
    o.scan_length = y->scan_length;
    if (y->scan_length_given && o.workload != bench::ycsb_workload::scan) {
      throw std::invalid_argument("--scan-length needs --workload scan");
    }
    o.theta = y->theta;
    o.threads = parse_sizes(y->threads);
    o.batches = parse_batches(y->batches);
    o.latency_targets_us = parse_latency_targets(y->latency_targets);
    o.schedulers = y->schedulers.chosen();
    o.seconds = y->seconds;
    o.repeat = y->repeat;
    o.modes.clear();
    for (const auto& m : split(y->modes, "--modes")) o.modes.push_back(bench::parse_ycsb_mode(m));
    // The default batch size serves whichever modes use it; one asked for by
    // name must be used.
    if (y->batch_given && std::none_of(o.modes.begin(), o.modes.end(), bench::interleaves)) {
      throw std::invalid_argument("--batch needs an interleaved mode (coro or coro-nested)");
    }
    o.isolation = y->isolation;
    o.retries = y->retries;
    o.seed = y->seed;
    o.durability = y->durability;
    o.verbose = bench::progress_wanted(y->quiet);
    bench::validate(o);
    warn_if_more_threads_than_cpus(o.threads);
    require_memory(bench::estimated_bytes(o), "this benchmark");
    print(bench_context(*std::max_element(o.threads.begin(), o.threads.end())));
    const auto rows = bench::run_ycsb_bench(o, [](const nlohmann::ordered_json& j) { print(j); });
    if (!y->plot.empty()) bench::plot_latency_sweep(rows, y->plot);
    return 0;
  });

  struct tpcc_cli {
    std::uint32_t warehouses = 4;
    std::string mix = "tpcc";
    std::uint32_t suppliers = 100;
    std::string threads = "1";
    std::string batches = "8";
    bool batch_given = false;
    std::string latency_targets;
    scheduler_cli schedulers;
    double seconds = 2;
    std::size_t repeat = 3;
    std::string modes = "naive,prefetch,multi-key,coro-nested,coro,hybrid";
    std::string isolation = "si";
    std::size_t retries = 0;
    bool check = false;
    bool reload = false;
    std::uint64_t seed = 42;
    std::size_t reserve_mib = 0;
    std::string inline_values = "on";
    bench::durability_choice durability;
    std::string plot;
    bool quiet = false;
  };
  auto c = std::make_shared<tpcc_cli>();
  auto* tpcc_cmd = bench_app.add_subcommand("tpcc", "TPC-C, TPC-CR or TPC-CH in every execution mode");
  tpcc_cmd->add_option("--warehouses", c->warehouses, "warehouses (about 130 MB each)")
      ->check(unsigned_in(1, tpcc::max_warehouses))
      ->capture_default_str();
  tpcc_cmd->add_option("--mix", c->mix, "tpcc | tpccr (read-only) | tpcch (with Q2*) | percentages by kind, e.g. q2=100")->capture_default_str();
  tpcc_cmd->add_option("--suppliers", c->suppliers, "suppliers a Q2* transaction reads")
      ->check(unsigned_in(1, 1900))
      ->capture_default_str();
  tpcc_cmd->add_option("--threads", c->threads, "comma-separated worker thread counts")->capture_default_str()
        ->check(size_list);
  tpcc_cmd
      ->add_option(
          "--batch", c->batches,
          "comma-separated batch sizes; auto: chosen at run time, smaller while transactions conflict")
      ->capture_default_str()
      ->check(batch_list)
      ->each([c](const std::string&) { c->batch_given = true; });
  tpcc_cmd->add_option("--latency-target-us", c->latency_targets,
                       "comma-separated p99 latency targets: each also runs the interleaved modes with the batch "
                       "(or pipeline depth) chosen at run time to meet it");
  add_scheduler_options(tpcc_cmd, c->schedulers);
  tpcc_cmd->add_option("--seconds", c->seconds, "run time per configuration and repeat")->capture_default_str();
  tpcc_cmd
      ->add_option("--repeat", c->repeat,
                   "runs of each configuration, in turn, each repeat starting one configuration later (the "
                   "database grows): a line each, then their median and other aggregates")
      ->capture_default_str();
  tpcc_cmd->add_option("--modes", c->modes, "naive,prefetch,multi-key,coro-nested,coro,hybrid")
      ->capture_default_str();
  tpcc_cmd->add_option("--isolation", c->isolation, "si | ssn")->capture_default_str();
  tpcc_cmd->add_option("--retry", c->retries, "run an aborted transaction again (same inputs), up to this many times")
      ->check(unsigned_in(0, 1000000))
      ->capture_default_str();
  tpcc_cmd->add_flag("--check", c->check, "check the consistency conditions after the runs (exit 1 if one fails)");
  tpcc_cmd->add_flag("--reload", c->reload,
                     "load the database again before every run, so that none runs on what earlier runs added "
                     "(slower: a load per run; with --check, every database is checked)");
  tpcc_cmd->add_option("--seed", c->seed, "random seed")->capture_default_str();
  tpcc_cmd
      ->add_option("--reserve-mib", c->reserve_mib,
                   "MiB of memory touched after the load for the versions the runs make (their page faults "
                   "paid before the runs, not in them)")
      ->check(unsigned_in(0, bench::max_reserve_mib))
      ->capture_default_str();
  tpcc_cmd
      ->add_option("--inline-values", c->inline_values,
                   "on: the tables whose rows are rarely overwritten keep each row's first version in its "
                   "indirection slot (one miss less a read); off: slots hold a pointer only")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  add_durability_options(tpcc_cmd, c->durability);
  tpcc_cmd->add_option("--plot", c->plot, "write a PNG of throughput against p99 latency (batch sizes and latency targets)")
      ->check(plot_path);
  tpcc_cmd->add_flag("--quiet", c->quiet, "no progress on stderr");
  commands.add(tpcc_cmd, [c] {
    bench::tpcc_options o;
    o.warehouses = c->warehouses;
    o.mix = tpcc::parse_mix(c->mix);
    o.suppliers = c->suppliers;
    o.threads = parse_sizes(c->threads);
    o.batches = parse_batches(c->batches);
    o.latency_targets_us = parse_latency_targets(c->latency_targets);
    o.schedulers = c->schedulers.chosen();
    o.seconds = c->seconds;
    o.repeat = c->repeat;
    o.modes.clear();
    for (const auto& m : split(c->modes, "--modes")) o.modes.push_back(tpcc::parse_mode(m));
    if (c->batch_given && std::none_of(o.modes.begin(), o.modes.end(), tpcc::interleaves)) {
      throw std::invalid_argument("--batch needs an interleaved mode (coro, coro-nested or hybrid)");
    }
    o.isolation = c->isolation;
    o.retries = c->retries;
    o.check = c->check;
    o.reload = c->reload;
    o.seed = c->seed;
    o.reserve_bytes = c->reserve_mib << 20;
    o.inline_values = c->inline_values == "on";
    o.durability = c->durability;
    o.verbose = bench::progress_wanted(c->quiet);
    bench::validate(o);
    warn_if_more_threads_than_cpus(o.threads);
    require_memory(bench::estimated_bytes(o), "this benchmark");
    print(bench_context(*std::max_element(o.threads.begin(), o.threads.end())));
    const auto rows = bench::run_tpcc_bench(o, [](const nlohmann::ordered_json& j) { print(j); });
    if (!c->plot.empty()) bench::plot_latency_sweep(rows, c->plot);
    return 0;
  });
}

}  // namespace weave::cli
