// `weave demo` and the lookup-layer benchmarks: `weave bench lookup`,
// `weave bench mlp`, `weave bench model`.

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/demo.hpp"
#include "bench/lookup/lookup_bench.hpp"
#include "bench/mlp.hpp"
#include "bench/model_bench.hpp"
#include "bench/plot.hpp"
#include "bench/workload/progress.hpp"
#include "bench/workload/report.hpp"
#include "bench/workload/size.hpp"
#include "bench_context.hpp"
#include "cli_support.hpp"
#include "bench/workload/limits.hpp"
#include "weave/memory/saturating.hpp"

namespace weave::cli {

namespace {

using namespace weave::bench;

struct lookup_cli {
  std::string structure = "binary-search";
  std::string keys = "16Mi";
  std::string lookups = "1M";
  std::string threads = "1";
  std::string variants = "naive,gp,amac,coro,auto";
  std::string groups = "1,2,4,8,12,16,24,32";
  std::string distribution = "uniform";
  double theta = 0.99;
  bool theta_given = false;
  std::uint64_t seed = 42;
  std::size_t repeat = 3;
  std::string plot;
  std::string ceiling_bytes = "1Gi";
  bool quiet = false;
  CLI::Option* group_option = nullptr;  // asked for: groups rounded to whole slots are said so

  void add(CLI::App& app) {
    app.add_option("--structure", structure, "binary-search | binary-search-str | hash | btree")
        ->capture_default_str();
    app.add_option("--keys", keys, "keys in the structure (suffixes: K M G, Ki Mi Gi)")->capture_default_str()
        ->check(size_value);
    app.add_option("--lookups", lookups, "lookups per run")->capture_default_str()
        ->check(size_value);
    app.add_option("--threads", threads, "comma-separated thread counts")->capture_default_str()
        ->check(size_list);
    app.add_option("--variants", variants, "naive,gp,amac,coro,coro-task,coro-sequential,auto")->capture_default_str();
    group_option = app.add_option("--group", groups, "comma-separated group sizes, or 'auto' for the model's")
        ->check(size_list_or_auto)
        ->capture_default_str();
    app.add_option("--distribution", distribution, "uniform | zipf")->capture_default_str();
    app.add_option("--theta", theta, "Zipf exponent, in (0, 1)")
        ->each([this](const std::string&) { theta_given = true; })
        ->capture_default_str();
    app.add_option("--seed", seed, "random seed")->capture_default_str();
    app.add_option("--repeat", repeat, "runs per configuration, in turn: a line each, then their median and other aggregates")
        ->capture_default_str();
    app.add_option("--plot", plot, "write a PNG of ns per lookup against group size")->check(plot_path);
    app.add_option("--ceiling-bytes", ceiling_bytes, "buffer for the MLP ceiling probe; 0 skips it")
        ->check(size_value)
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
    } else if (theta_given) {
      throw std::invalid_argument("--theta needs --distribution zipf (uniform keys have no exponent)");
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
  for (const auto& v : split(cli.variants, "--variants")) o.variants.push_back(parse_variant(v));
  // The default groups serve whichever variants use them; ones asked for by
  // name must be used.
  if (cli.group_option != nullptr && cli.group_option->count() > 0 &&
      std::none_of(o.variants.begin(), o.variants.end(), uses_group)) {
    throw std::invalid_argument("--group needs a variant that runs groups (gp, amac, coro or coro-task)");
  }
  if (cli.groups == "auto") {
    o.group_auto = true;
  } else {
    o.groups = parse_sizes(cli.groups);
    o.say_rounding = cli.group_option != nullptr && cli.group_option->count() > 0;
  }
  o.repeat = cli.repeat;
  validate(o);
  warn_if_more_threads_than_cpus(o.threads);
  const std::size_t ceiling_bytes = parse_size(cli.ceiling_bytes);
  if (ceiling_bytes > 0 && ceiling_bytes < mlp_probe::min_bytes)
    throw std::invalid_argument("--ceiling-bytes must be 0 or at least 64 KiB");
  require_memory(saturating_add(estimated_bytes(o.spec), ceiling_bytes), "this benchmark");
  print(bench_context(*std::max_element(o.threads.begin(), o.threads.end())));

  if (ceiling_bytes > 0) {
    const mlp_probe probe(ceiling_bytes, bench::progress_wanted(cli.quiet));
    o.ns_per_miss = best_ns_per_miss(probe);
  }
  const auto workload = make_workload(o.spec, bench::progress_wanted(cli.quiet));
  std::vector<nlohmann::ordered_json> rows;
  const auto print_repetition = [&](const lookup_row& row) { print(to_json(o, *workload, row)); };
  for (const auto& row : run_lookup_bench(o, *workload, bench::progress_wanted(cli.quiet), print_repetition)) {
    rows.push_back(to_json(o, *workload, row));
    print(rows.back());
  }
  if (!cli.plot.empty()) plot_group_sweep(rows, cli.plot);
}


}  // namespace

void add_lookup_commands(CLI::App& app, CLI::App& bench, command_table& commands) {
  auto demo_options = std::make_shared<weave::bench::demo_options>();
  auto* demo = app.add_subcommand("demo", "tour weave on DRAM-sized structures (a few minutes)");
  demo->add_option("--scale", demo_options->scale, "multiply every structure size by this")
      ->check(real_in(0.001, 1000));
  demo->add_option("--repeat", demo_options->repeat, "runs per configuration")->check(unsigned_in(1, 100));
  commands.add(demo, [demo_options] {
    require_memory(demo_bytes(*demo_options), "weave demo at this --scale");
    fmt::print("{}\n", describe_context(bench_context(1)));
    return run_demo(*demo_options);
  });

  auto lookup = std::make_shared<lookup_cli>();
  auto* lookup_cmd = bench.add_subcommand("lookup", "naive, GP, AMAC, coroutine and adaptive lookups");
  lookup->add(*lookup_cmd);
  commands.add(lookup_cmd, [lookup] {
    run_lookup(*lookup);
    return 0;
  });

  struct mlp_cli {
    std::string bytes = "4Gi";
    std::string chains = "1,2,4,8,12,16,20,24,32,48,64";
    std::string prefetch_distances;
    std::size_t lines = 1;
    std::size_t repeat = 3;
    bool quiet = false;
  };
  auto mlp = std::make_shared<mlp_cli>();
  auto* mlp_cmd = bench.add_subcommand("mlp", "ns per DRAM miss with 1..64 independent chains");
  mlp_cmd->add_option("--bytes", mlp->bytes, "buffer size")->capture_default_str()
        ->check(size_value);
  mlp_cmd->add_option("--chains", mlp->chains, "comma-separated chain counts (1..64)")->capture_default_str()
        ->check(size_list);
  mlp_cmd->add_option("--prefetch-distance", mlp->prefetch_distances,
                      "comma-separated distances (0..1024): also time one chain of waited-for misses with a "
                      "software prefetch this many loads ahead (0: none), which shows whether prefetches land")
      ->check(size_list);
  mlp_cmd
      ->add_option("--lines", mlp->lines,
                   "lines each step of a chain reads (1, 2, 4, 8 or 16: an aligned block, as a B+-tree "
                   "step reads a node); the time is then per step")
      ->capture_default_str();
  mlp_cmd->add_option("--repeat", mlp->repeat, "runs per chain count: a line each, then their aggregates")
      ->capture_default_str();
  mlp_cmd->add_flag("--quiet", mlp->quiet, "no progress on stderr");
  commands.add(mlp_cmd, [mlp] {
    const std::size_t bytes = parse_size(mlp->bytes);
    if (bytes < mlp_probe::min_bytes) throw std::invalid_argument("--bytes must be at least 64 KiB");
    const auto chains = parse_sizes(mlp->chains);
    for (std::size_t c : chains)
      if (c < 1 || c > 64) throw std::invalid_argument(fmt::format("chain count {} is outside 1..64", c));
    const auto distances = mlp->prefetch_distances.empty() ? std::vector<std::size_t>{}
                                                           : parse_sizes(mlp->prefetch_distances);
    for (std::size_t d : distances)
      if (d > 1024) throw std::invalid_argument(fmt::format("prefetch distance {} is outside 0..1024", d));
    if (!mlp_probe::block_lines_supported(mlp->lines))
      throw std::invalid_argument(fmt::format("--lines {} is not 1, 2, 4, 8 or 16", mlp->lines));
    bench::check_repeat(mlp->repeat);
    require_memory(bytes, "--bytes");
    print(bench_context(1));
    const mlp_probe probe(bytes, bench::progress_wanted(mlp->quiet));
    // A line per repetition of `time`, then their aggregates.
    const auto report = [&](nlohmann::ordered_json base, const auto& time) {
      base["repeat"] = mlp->repeat;
      std::vector<double> ns;
      for (std::size_t r = 0; r < mlp->repeat; ++r) {
        ns.push_back(time());
        nlohmann::ordered_json j = base;
        j["run_type"] = "repetition";
        j["repetition"] = r + 1;
        j["ns_per_miss"] = ns.back();
        print(j);
      }
      base["run_type"] = "aggregate";
      bench::add_aggregates(base, "ns_per_miss", ns);
      print(base);
    };
    for (std::size_t c : chains) {
      report({{"bench", "mlp"}, {"bytes", bytes}, {"chains", c}, {"lines", mlp->lines}},
             [&] { return probe.ns_per_miss(c, 4'000'000, mlp->lines); });
    }
    for (std::size_t d : distances) {
      report({{"bench", "mlp"}, {"probe", "prefetch"}, {"bytes", bytes}, {"chains", 1}, {"prefetch_distance", d}},
             [&] { return probe.ns_per_prefetched_miss(d); });
    }
    return 0;
  });

  auto model = std::make_shared<lookup_cli>();
  model->lookups = "500K";
  model->groups = "1,2,4,6,8,10,12,16,20,24,32,40,48,64";
  auto* model_cmd = bench.add_subcommand("model", "the analytical model's prediction against a group sweep");
  model_cmd->add_option("--structure", model->structure, "binary-search | binary-search-str | hash | btree")
      ->capture_default_str();
  model_cmd->add_option("--keys", model->keys, "keys in the structure")->capture_default_str()
        ->check(size_value);
  model_cmd->add_option("--lookups", model->lookups, "lookups per run")->capture_default_str()
        ->check(size_value);
  model->group_option = model_cmd->add_option("--group", model->groups, "comma-separated group sizes to measure")
      ->check(size_list)
      ->capture_default_str();
  model_cmd->add_option("--seed", model->seed, "random seed")->capture_default_str();
  model_cmd->add_option("--repeat", model->repeat, "runs per measurement")->capture_default_str();
  model_cmd->add_option("--plot", model->plot, "write a PNG of measured and predicted ns per lookup")->check(plot_path);
  model_cmd->add_flag("--quiet", model->quiet, "no progress on stderr");
  commands.add(model_cmd, [model] {
    const workload_spec spec = model->spec();
    const auto groups = parse_sizes(model->groups);
    validate(spec);
    validate_model_options(groups, model->repeat);
    require_memory(estimated_bytes(spec), "this benchmark");
    print(bench_context(1));
    // Before the structure is built, so that the two never take memory at once.
    const memory_limits memory = measure_memory(estimated_bytes(spec), bench::progress_wanted(model->quiet));
    const auto workload = make_workload(spec, bench::progress_wanted(model->quiet));
    const auto report = measure_model(*workload, groups, model->repeat, memory, bench::progress_wanted(model->quiet),
                                      model->group_option->count() > 0);
    const auto rows = to_json(*workload, spec.keys, report);
    for (const auto& j : rows) print(j);
    if (!model->plot.empty()) plot_group_sweep(rows, model->plot);
    return 0;
  });
}

}  // namespace weave::cli
