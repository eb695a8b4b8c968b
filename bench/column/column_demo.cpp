#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/column/column_bench.hpp"
#include "bench/demo.hpp"
#include "bench/workload/progress.hpp"
#include "bench/workload/size.hpp"

namespace weave::bench {

namespace {

struct figures {
  double sequential = 0, interleaved = 0, adaptive = 0;
  std::size_t group = 0;
};

figures figures_of(const std::vector<nlohmann::ordered_json>& rows, const char* key) {
  figures f;
  for (const auto& r : rows) {
    const std::string v = r["variant"];
    const double t = r[key];
    if (v == "sequential") f.sequential = t;
    if (v == "interleaved") f.interleaved = t;
    if (v == "auto") {
      f.adaptive = t;
      f.group = r["group"];
    }
  }
  return f;
}

void print_row(const std::string& what, std::size_t dictionary_bytes, const figures& f, const char* unit) {
  fmt::print("{:<34} {:>10} | {:>10.2f} {:>11.2f} {:>8.2f} {:<2} | {:>6.2f}x {:>4}\n", what,
             format_bytes(dictionary_bytes), f.sequential, f.interleaved, f.adaptive, unit,
             f.sequential / f.interleaved, f.group);
  std::fflush(stdout);
}

std::size_t scaled(const demo_options& options, std::size_t n) {
  return std::max<std::size_t>(1024, static_cast<std::size_t>(static_cast<double>(n) * options.scale));
}

struct in_case {
  const char* label;
  const char* type;
  std::size_t distinct;
  column::fragment_kind fragment;
};

std::vector<in_case> in_cases(const demo_options& options) {
  return {
      {"IN (10K values), INTEGER Main", "int", scaled(options, std::size_t{1} << 27), column::fragment_kind::main},
      {"IN (10K values), INTEGER Delta", "int", scaled(options, std::size_t{1} << 25), column::fragment_kind::delta},
      {"IN (10K values), VARCHAR(24) Main", "varchar", scaled(options, std::size_t{1} << 24),
       column::fragment_kind::main},
  };
}

in_predicate_options in_options(const demo_options& options, const in_case& c) {
  in_predicate_options o;
  o.recipe.rows = scaled(options, 1'000'000);
  o.recipe.distinct = c.distinct;
  o.recipe.types = parse_column_types(c.type);
  o.recipe.fragment = c.fragment;
  o.type = c.type;
  o.repeat = options.repeat;
  return o;
}

reconstruct_options reconstruct_options_for(const demo_options& options, const char* types) {
  reconstruct_options o;
  o.recipe.rows = scaled(options, 1'000'000);
  o.recipe.distinct = o.recipe.rows;
  o.recipe.columns = 200;
  o.recipe.types = parse_column_types(types);
  o.types = types;
  o.queries = 500;
  o.repeat = options.repeat;
  return o;
}

}  // namespace

std::size_t column_demo_bytes(const demo_options& options) {
  std::size_t peak = 0;
  for (const in_case& c : in_cases(options)) peak = std::max(peak, column::estimated_bytes(in_options(options, c).recipe));
  for (const char* types : {"int", "mixed"})
    peak = std::max(peak, column::estimated_bytes(reconstruct_options_for(options, types).recipe));
  return peak;
}

void run_column_demo(const demo_options& options) {
  fmt::print("\ncolumn store: dictionary-encoded columns, interleaved across lookups and columns\n");
  fmt::print("{:<34} {:>10} | {:>10} {:>11} {:>8} {:<2} | {:>7} {:>4}\n", "query", "dictionary", "sequential",
             "interleaved", "auto", "", "speedup", "G");

  for (const in_case& c : in_cases(options)) {
    const in_predicate_options o = in_options(options, c);
    const column::table t = make_bench_table(o.recipe, progress_wanted());
    print_row(c.label, t.dictionary_bytes(), figures_of(run_in_predicate_bench(o, t), "ms_per_query"), "ms");
  }

  for (const char* types : {"int", "mixed"}) {
    const reconstruct_options o = reconstruct_options_for(options, types);
    const column::table t = make_bench_table(o.recipe, progress_wanted());
    const std::string label = fmt::format("SELECT * (200 {} columns)", std::string(types) == "int" ? "INTEGER" : "mixed");
    print_row(label, t.dictionary_bytes(), figures_of(run_reconstruct_bench(o, t), "us_per_query"), "us");
  }
  fmt::print("\nIN: the list is encoded with locate (binary search in Main, the code B+-tree in Delta), then\n"
             "the code vector is scanned. SELECT *: one code and one dictionary access per column, the\n"
             "columns fetched one after the other or interleaved. Every variant returns the same answer.\n");
}

}  // namespace weave::bench
