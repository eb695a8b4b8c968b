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
  CLI::Option* list_option = nullptr;

  // --scheduler asked for by name (--pipeline has its own check).
  bool given() const { return list_option != nullptr && list_option->count() > 0; }

  std::vector<bench::scheduler_choice> chosen() const {
    return pipeline ? std::vector{bench::scheduler_choice::pipeline} : parse_schedulers(list);
  }
};

void add_scheduler_options(CLI::App* cmd, scheduler_cli& s) {
  CLI::Option* flag = cmd->add_flag(
      "--pipeline", s.pipeline,
      "refill a finished transaction's slot at once instead of strict batches (--scheduler pipeline)");
  s.list_option = cmd->add_option("--scheduler", s.list,
                  "comma-separated schedulers of the interleaved modes, each run in turn in one process: "
                  "batch (strict batches) | pipeline (a finished transaction's slot refilled at once)")
      ->check(scheduler_list)
      ->excludes(flag)
      ->capture_default_str();
}

// What `bench ycsb` and `bench tpcc` share: how they run (workers, batches,
// schedulers, time, modes, isolation, retries, seed) and what they keep and
// write (durability, plot, progress).
struct txn_run_cli {
  std::string threads = "1";
  // auto: the full batch (8) where nothing conflicts, smaller while
  // transactions do, so that the default never interleaves into a loss.
  std::string batches = "auto";
  bool batch_given = false;
  std::string latency_targets;
  scheduler_cli schedulers;
  double seconds = 2;
  std::size_t repeat = 3;
  std::string modes;
  std::string isolation = "si";
  std::size_t retries = 0;
  std::uint64_t seed = 42;
  bench::durability_choice durability;
  std::string plot;
  bool quiet = false;
};

// The options from --threads to --seed; `repeat_help` says what a repeat runs on.
void add_run_options(CLI::App* cmd, const std::shared_ptr<txn_run_cli>& r, const std::string& repeat_help) {
  cmd->add_option("--threads", r->threads, "comma-separated worker thread counts")->capture_default_str()
      ->check(size_list);
  cmd->add_option("--batch", r->batches,
                  "comma-separated batch sizes (transactions in flight per worker); auto: chosen at run time, "
                  "smaller while transactions conflict")
      ->capture_default_str()
      ->check(batch_list)
      ->each([r](const std::string&) { r->batch_given = true; });
  cmd->add_option("--latency-target-us", r->latency_targets,
                  "comma-separated p99 latency targets: each also runs the interleaved modes with the batch "
                  "(or pipeline depth) chosen at run time to meet it");
  add_scheduler_options(cmd, r->schedulers);
  cmd->add_option("--seconds", r->seconds, "run time per configuration and repeat")->capture_default_str();
  cmd->add_option("--repeat", r->repeat, repeat_help)->capture_default_str();
  cmd->add_option("--modes", r->modes, r->modes)->capture_default_str();
  cmd->add_option("--isolation", r->isolation, "si | ssn")->capture_default_str();
  cmd->add_option("--retry", r->retries, "run an aborted transaction again (same inputs), up to this many times")
      ->check(unsigned_in(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--seed", r->seed, "random seed")->capture_default_str();
}

// --durability and its companions, --plot and --quiet.
void add_output_options(CLI::App* cmd, const std::shared_ptr<txn_run_cli>& r) {
  add_durability_options(cmd, r->durability);
  cmd->add_option("--plot", r->plot, "write a PNG of throughput against p99 latency (batch sizes and latency targets)")
      ->check(plot_path);
  cmd->add_flag("--quiet", r->quiet, "no progress on stderr");
}

// Fills what the two benches' options share, and the modes by `parse_mode`;
// a --batch no chosen mode uses is refused, naming the modes that would.
template <class Options, class ParseMode, class Interleaves>
void apply_run_options(const txn_run_cli& r, Options& o, ParseMode parse_mode, Interleaves interleaves,
                       const char* interleaved_modes) {
  o.threads = parse_sizes(r.threads);
  o.batches = parse_batches(r.batches);
  o.latency_targets_us = parse_latency_targets(r.latency_targets);
  o.schedulers = r.schedulers.chosen();
  o.seconds = r.seconds;
  o.repeat = r.repeat;
  o.modes.clear();
  for (const auto& m : split(r.modes, "--modes")) o.modes.push_back(parse_mode(m));
  // The default batch size serves whichever modes use it; one asked for by
  // name must be used.
  const bool interleaved = std::any_of(o.modes.begin(), o.modes.end(), interleaves);
  if (r.batch_given && !interleaved) {
    throw std::invalid_argument(fmt::format("--batch needs an interleaved mode ({})", interleaved_modes));
  }
  if (r.schedulers.given() && !interleaved) {
    throw std::invalid_argument(fmt::format("--scheduler needs an interleaved mode ({})", interleaved_modes));
  }
  o.isolation = r.isolation;
  o.retries = r.retries;
  o.seed = r.seed;
  o.durability = r.durability;
  o.verbose = bench::progress_wanted(r.quiet);
}

// Validates, checks the machine can hold the run, prints the context line
// and each result line, and draws the plot.
template <class Options, class Run>
int run_txn_bench(const Options& o, const txn_run_cli& r, Run run) {
  bench::validate(o);
  warn_if_more_threads_than_cpus(o.threads);
  require_memory(bench::estimated_bytes(o), "this benchmark");
  print(bench_context(*std::max_element(o.threads.begin(), o.threads.end())));
  const auto rows = run(o, [](const nlohmann::ordered_json& j) { print(j); });
  if (!r.plot.empty()) bench::plot_latency_sweep(rows, r.plot);
  return 0;
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
  };
  auto y = std::make_shared<ycsb_cli>();
  auto yr = std::make_shared<txn_run_cli>();
  yr->modes = "naive,prefetch,multi-key,coro-nested,coro";
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
  add_run_options(cmd, yr, "runs of each configuration, in turn: a line each, then their median and other aggregates");
  add_output_options(cmd, yr);
  commands.add(cmd, [y, yr] {
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
    apply_run_options(*yr, o, bench::parse_ycsb_mode, bench::interleaves, "coro or coro-nested");
    return run_txn_bench(o, *yr, bench::run_ycsb_bench);
  });

  struct tpcc_cli {
    std::uint32_t warehouses = 4;
    std::string mix = "tpcc";
    std::uint32_t suppliers = 100;
    bool check = false;
    bool reload = false;
    std::size_t reserve_mib = 0;
    std::string inline_values = "on";
    CLI::Option* suppliers_option = nullptr;
  };
  auto c = std::make_shared<tpcc_cli>();
  auto cr = std::make_shared<txn_run_cli>();
  cr->modes = "naive,prefetch,multi-key,coro-nested,coro,hybrid";
  auto* tpcc_cmd = bench_app.add_subcommand("tpcc", "TPC-C, TPC-CR or TPC-CH in every execution mode");
  tpcc_cmd->add_option("--warehouses", c->warehouses, "warehouses (about 130 MB each)")
      ->check(unsigned_in(1, tpcc::max_warehouses))
      ->capture_default_str();
  tpcc_cmd->add_option("--mix", c->mix, "tpcc | tpccr (read-only) | tpcch (with Q2*) | percentages by kind, e.g. q2=100")->capture_default_str();
  c->suppliers_option = tpcc_cmd->add_option("--suppliers", c->suppliers, "suppliers a Q2* transaction reads")
      ->check(unsigned_in(1, 1900))
      ->capture_default_str();
  add_run_options(tpcc_cmd, cr,
                  "runs of each configuration, in turn, each repeat starting one configuration later (the "
                  "database grows): a line each, then their median and other aggregates");
  tpcc_cmd->add_flag("--check", c->check, "check the consistency conditions after the runs (exit 1 if one fails)");
  tpcc_cmd->add_flag("--reload", c->reload,
                     "load the database again before every run, so that none runs on what earlier runs added "
                     "(slower: a load per run; with --check, every database is checked)");
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
  add_output_options(tpcc_cmd, cr);
  commands.add(tpcc_cmd, [c, cr] {
    bench::tpcc_options o;
    o.warehouses = c->warehouses;
    o.mix = tpcc::parse_mix(c->mix);
    o.suppliers = c->suppliers;
    if (c->suppliers_option->count() > 0 && o.mix.percent[static_cast<std::size_t>(tpcc::kind::q2)] == 0) {
      throw std::invalid_argument("--suppliers needs a mix with Q2* transactions (e.g. --mix tpcch)");
    }
    apply_run_options(*cr, o, tpcc::parse_mode, tpcc::interleaves, "coro, coro-nested or hybrid");
    o.check = c->check;
    o.reload = c->reload;
    o.reserve_bytes = c->reserve_mib << 20;
    o.inline_values = c->inline_values == "on";
    return run_txn_bench(o, *cr, bench::run_tpcc_bench);
  });
}

}  // namespace weave::cli
