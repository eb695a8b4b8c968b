// The weave command: `weave demo` and `weave bench ...`. Results go to stdout
// as one JSON object per line; progress and errors go to stderr. Bad input
// (std::invalid_argument) gets one line on stderr and exit status 2, and is
// checked before any slow set-up; a failure while running gets exit status 1.

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/demo.hpp"
#include "bench/lookup/lookup_bench.hpp"
#include "bench/mlp.hpp"
#include "bench/model_bench.hpp"
#include "bench/plot.hpp"
#include "bench/workload/size.hpp"
#include "weave/memory/machine.hpp"

namespace {

using namespace weave::bench;

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma == start) throw std::invalid_argument(fmt::format("empty item in list '{}'", list));
    out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::vector<std::size_t> parse_sizes(const std::string& list) {
  std::vector<std::size_t> out;
  for (const auto& item : split(list)) out.push_back(parse_size(item));
  return out;
}

void require_memory(std::size_t bytes, const std::string& what) {
  const std::size_t available = weave::machine::available_bytes();
  if (available > 0 && bytes > available / 10 * 9) {
    throw std::invalid_argument(fmt::format("{} needs about {} but only {} of memory is available", what,
                                  format_bytes(bytes), format_bytes(available)));
  }
}

void print(const nlohmann::ordered_json& j) {
  std::cout << j.dump() << '\n' << std::flush;
}

struct lookup_cli {
  std::string structure = "binary-search";
  std::string keys = "16Mi";
  std::string lookups = "1M";
  std::string threads = "1";
  std::string variants = "naive,gp,amac,coro,auto";
  std::string groups = "1,2,4,8,12,16,24,32";
  std::string distribution = "uniform";
  double theta = 0.99;
  std::uint64_t seed = 42;
  std::size_t repeat = 3;
  std::string plot;
  std::string ceiling_bytes = "1Gi";
  bool quiet = false;

  void add(CLI::App& app) {
    app.add_option("--structure", structure, "binary-search | binary-search-str | hash | btree")
        ->capture_default_str();
    app.add_option("--keys", keys, "keys in the structure (suffixes: K M G, Ki Mi Gi)")->capture_default_str();
    app.add_option("--lookups", lookups, "lookups per run")->capture_default_str();
    app.add_option("--threads", threads, "comma-separated thread counts")->capture_default_str();
    app.add_option("--variants", variants, "naive,gp,amac,coro,coro-sequential,auto")->capture_default_str();
    app.add_option("--group", groups, "comma-separated group sizes, or 'auto' for the model's")
        ->capture_default_str();
    app.add_option("--distribution", distribution, "uniform | zipf")->capture_default_str();
    app.add_option("--theta", theta, "Zipf exponent, in (0, 1)")->capture_default_str();
    app.add_option("--seed", seed, "random seed")->capture_default_str();
    app.add_option("--repeat", repeat, "runs per configuration; the median is reported")->capture_default_str();
    app.add_option("--plot", plot, "write a PNG of ns per lookup against group size");
    app.add_option("--ceiling-bytes", ceiling_bytes, "buffer for the MLP ceiling probe; 0 skips it")
        ->capture_default_str();
    app.add_flag("--quiet", quiet, "no progress on stderr");
  }

  workload_spec spec() const {
    workload_spec s;
    s.structure = structure;
    s.keys = parse_size(keys);
    s.lookups = parse_size(lookups);
    if (distribution == "zipf") {
      s.distribution = key_chooser::distribution::zipf;
    } else if (distribution != "uniform") {
      throw std::invalid_argument(fmt::format("unknown distribution '{}' (choose uniform or zipf)", distribution));
    }
    s.theta = theta;
    s.seed = seed;
    return s;
  }
};

void run_lookup(const lookup_cli& cli) {
  lookup_options o;
  o.spec = cli.spec();
  o.threads = parse_sizes(cli.threads);
  o.variants.clear();
  for (const auto& v : split(cli.variants)) o.variants.push_back(parse_variant(v));
  if (cli.groups == "auto") {
    o.group_auto = true;
  } else {
    o.groups = parse_sizes(cli.groups);
  }
  o.repeat = cli.repeat;
  validate(o);
  const std::size_t ceiling_bytes = parse_size(cli.ceiling_bytes);
  require_memory(estimated_bytes(o.spec) + ceiling_bytes, "this benchmark");

  if (ceiling_bytes > 0) {
    const mlp_probe probe(ceiling_bytes, !cli.quiet);
    o.ns_per_miss = best_ns_per_miss(probe);
  }
  const auto workload = make_workload(o.spec, !cli.quiet);
  std::vector<nlohmann::ordered_json> rows;
  for (const auto& row : run_lookup_bench(o, *workload, !cli.quiet)) {
    rows.push_back(to_json(o, *workload, row));
    print(rows.back());
  }
  if (!cli.plot.empty()) plot_group_sweep(rows, cli.plot);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weave: a main-memory database engine that hides DRAM latency by interleaving lookups"};
  app.require_subcommand(1);

  weave::bench::demo_options demo_options;
  auto* demo = app.add_subcommand("demo", "tour the lookup layer on DRAM-sized structures (about 2 minutes)");
  demo->add_option("--scale", demo_options.scale, "multiply every structure size by this")
      ->check(CLI::PositiveNumber);
  demo->add_option("--repeat", demo_options.repeat, "runs per configuration")->check(CLI::Range(1, 100));

  auto* bench = app.add_subcommand("bench", "run an experiment; one JSON object per line on stdout");
  bench->require_subcommand(1);

  lookup_cli lookup;
  auto* lookup_cmd = bench->add_subcommand("lookup", "naive, GP, AMAC, coroutine and adaptive lookups");
  lookup.add(*lookup_cmd);

  std::string mlp_bytes = "4Gi";
  std::string mlp_chains = "1,2,4,8,12,16,20,24,32,48,64";
  std::size_t mlp_repeat = 3;
  bool mlp_quiet = false;
  auto* mlp_cmd = bench->add_subcommand("mlp", "ns per DRAM miss with 1..64 independent chains");
  mlp_cmd->add_option("--bytes", mlp_bytes, "buffer size")->capture_default_str();
  mlp_cmd->add_option("--chains", mlp_chains, "comma-separated chain counts (1..64)")->capture_default_str();
  mlp_cmd->add_option("--repeat", mlp_repeat, "runs per chain count; the median is reported")
      ->capture_default_str();
  mlp_cmd->add_flag("--quiet", mlp_quiet, "no progress on stderr");

  lookup_cli model;
  model.lookups = "500K";
  model.groups = "1,2,4,6,8,10,12,16,20,24,32";
  auto* model_cmd = bench->add_subcommand("model", "the analytical model's prediction against a group sweep");
  model_cmd->add_option("--structure", model.structure, "binary-search | binary-search-str | hash | btree")
      ->capture_default_str();
  model_cmd->add_option("--keys", model.keys, "keys in the structure")->capture_default_str();
  model_cmd->add_option("--lookups", model.lookups, "lookups per run")->capture_default_str();
  model_cmd->add_option("--group", model.groups, "comma-separated group sizes to measure")->capture_default_str();
  model_cmd->add_option("--seed", model.seed, "random seed")->capture_default_str();
  model_cmd->add_option("--repeat", model.repeat, "runs per measurement")->capture_default_str();
  model_cmd->add_option("--plot", model.plot, "write a PNG of measured and predicted ns per lookup");
  model_cmd->add_flag("--quiet", model.quiet, "no progress on stderr");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "weave: %s (try --help)\n", e.what());
    return 2;
  }

  try {
    if (demo->parsed()) return weave::bench::run_demo(demo_options);
    if (lookup_cmd->parsed()) run_lookup(lookup);
    if (mlp_cmd->parsed()) {
      const std::size_t bytes = parse_size(mlp_bytes);
      const auto chains = parse_sizes(mlp_chains);
      for (std::size_t c : chains)
        if (c < 1 || c > 64) throw std::invalid_argument(fmt::format("chain count {} is outside 1..64", c));
      if (mlp_repeat == 0) throw std::invalid_argument("--repeat must be at least 1");
      require_memory(bytes, "--bytes");
      const mlp_probe probe(bytes, !mlp_quiet);
      for (std::size_t c : chains) {
        std::vector<double> ns;
        for (std::size_t r = 0; r < mlp_repeat; ++r) ns.push_back(probe.ns_per_miss(c));
        std::sort(ns.begin(), ns.end());
        nlohmann::ordered_json j;
        j["bench"] = "mlp";
        j["bytes"] = bytes;
        j["chains"] = c;
        j["repeat"] = mlp_repeat;
        j["ns_per_miss"] = ns[ns.size() / 2];
        print(j);
      }
    }
    if (model_cmd->parsed()) {
      const workload_spec spec = model.spec();
      const auto groups = parse_sizes(model.groups);
      validate(spec);
      validate_model_options(groups, model.repeat);
      const std::size_t probe_bytes = std::size_t{1} << 30;
      require_memory(estimated_bytes(spec) + probe_bytes, "this benchmark");
      double ns_per_miss = 0;
      {
        const mlp_probe probe(probe_bytes, !model.quiet);
        ns_per_miss = best_ns_per_miss(probe);
      }
      const auto workload = make_workload(spec, !model.quiet);
      const auto report = measure_model(*workload, groups, model.repeat, ns_per_miss, !model.quiet);
      const auto rows = to_json(*workload, spec.keys, report);
      for (const auto& j : rows) print(j);
      if (!model.plot.empty()) plot_group_sweep(rows, model.plot);
    }
  } catch (const std::invalid_argument& e) {  // bad input
    std::fprintf(stderr, "weave: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "weave: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weave: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
