// The transaction engine's commands: `weave bench ycsb`.

#include <fmt/format.h>

#include <memory>
#include <string>

#include "bench/workload/size.hpp"
#include "bench/ycsb/ycsb_bench.hpp"
#include "cli_support.hpp"

namespace weave::cli {

void add_txn_commands(CLI::App& bench_app, command_table& commands) {
  struct ycsb_cli {
    std::string records = "1M";
    std::size_t key_bytes = 8;
    std::size_t value_bytes = 8;
    std::string workload = "read";
    std::size_t ops_per_txn = 10;
    std::size_t scan_length = 10;
    double theta = 0;
    std::string threads = "1";
    std::string batches = "8";
    bool pipeline = false;
    double seconds = 2;
    std::size_t repeat = 3;
    std::string modes = "naive,prefetch,multi-key,coro-nested,coro";
    std::string isolation = "si";
    std::uint64_t seed = 42;
    bool quiet = false;
  };
  auto y = std::make_shared<ycsb_cli>();
  auto* cmd = bench_app.add_subcommand("ycsb", "YCSB transactions in every execution mode");
  cmd->add_option("--records", y->records, "records in the table")->capture_default_str();
  cmd->add_option("--key-bytes", y->key_bytes, "8: integer keys; 9 to 47: byte-string keys \"user\" and digits")->capture_default_str();
  cmd->add_option("--value-bytes", y->value_bytes, "value size")->capture_default_str();
  cmd->add_option("--workload", y->workload, "read | update | rmw | mixed | scan")->capture_default_str();
  cmd->add_option("--ops-per-txn", y->ops_per_txn, "operations per transaction")->capture_default_str();
  cmd->add_option("--scan-length", y->scan_length, "records per scan")->capture_default_str();
  cmd->add_option("--theta", y->theta, "Zipf exponent in (0, 1); 0 is uniform")->capture_default_str();
  cmd->add_option("--threads", y->threads, "comma-separated worker thread counts")->capture_default_str();
  cmd->add_option("--batch", y->batches, "comma-separated batch sizes (transactions in flight per worker)")
      ->capture_default_str();
  cmd->add_flag("--pipeline", y->pipeline, "refill a finished transaction's slot at once instead of strict batches");
  cmd->add_option("--seconds", y->seconds, "run time per configuration and repeat")->capture_default_str();
  cmd->add_option("--repeat", y->repeat, "runs of each configuration, in turn; the median is reported")
      ->capture_default_str();
  cmd->add_option("--modes", y->modes, "naive,prefetch,multi-key,coro-nested,coro")->capture_default_str();
  cmd->add_option("--isolation", y->isolation, "si | ssn")->capture_default_str();
  cmd->add_option("--seed", y->seed, "random seed")->capture_default_str();
  cmd->add_flag("--quiet", y->quiet, "no progress on stderr");
  commands.add(cmd, [y] {
    bench::ycsb_options o;
    o.records = bench::parse_size(y->records);
    o.key_bytes = y->key_bytes;
    o.value_bytes = y->value_bytes;
    o.workload = bench::parse_ycsb_workload(y->workload);
    o.ops_per_txn = y->ops_per_txn;
    o.scan_length = y->scan_length;
    o.theta = y->theta;
    o.threads = parse_sizes(y->threads);
    o.batches = parse_sizes(y->batches);
    o.pipeline = y->pipeline;
    o.seconds = y->seconds;
    o.repeat = y->repeat;
    o.modes.clear();
    for (const auto& m : split(y->modes)) o.modes.push_back(bench::parse_ycsb_mode(m));
    o.isolation = y->isolation;
    o.seed = y->seed;
    o.verbose = !y->quiet;
    bench::validate(o);
    require_memory(bench::estimated_bytes(o), "this benchmark");
    bench::run_ycsb_bench(o, [](const nlohmann::ordered_json& j) { print(j); });
    return 0;
  });
}

}  // namespace weave::cli
