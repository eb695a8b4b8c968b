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
  std::size_t interleaved_group = 0;
  std::size_t adaptive_group = 0;  // 1: auto ran sequentially
};

figures figures_of(const std::vector<nlohmann::ordered_json>& rows, const char* key) {
  figures f;
  for (const auto& r : rows) {
    const std::string v = r["variant"];
    const double t = r[key];
    if (v == "sequential") f.sequential = t;
    if (v == "interleaved") {
      f.interleaved = t;
      f.interleaved_group = r["group"];
    }
    if (v == "auto") {
      f.adaptive = t;
      f.adaptive_group = r["group"];
    }
  }
  return f;
}

constexpr const char* row_format = "{:<34} {:>10} | {:>10} {:>11} {:>8} {:>10} | {:>8} {:>6}\n";

void print_header(const char* unit) {
  fmt::print(row_format, "query", "dictionary", fmt::format("seq {}", unit), fmt::format("intl {}", unit),
             fmt::format("auto {}", unit), "auto ran", "intl/seq", "auto/seq");
}

// Each time is a median; "intl" is interleaved with the group shown, "auto
// ran" says what the adaptive scheduler chose; the speedups are of the
// times on the same row.
void print_row(const std::string& what, std::size_t dictionary_bytes, const figures& f) {
  const std::string chose = f.adaptive_group > 1 ? fmt::format("G={}", f.adaptive_group) : "sequential";
  fmt::print(row_format, what, format_bytes(dictionary_bytes), fmt::format("{:.2f}", f.sequential),
             fmt::format("{:.2f} G={}", f.interleaved, f.interleaved_group), fmt::format("{:.2f}", f.adaptive), chose,
             fmt::format("{:.2f}x", f.sequential / f.interleaved), fmt::format("{:.2f}x", f.sequential / f.adaptive));
  std::fflush(stdout);
}

struct in_case {
  const char* label;
  const char* type;
  std::size_t distinct;
  column::fragment_kind fragment;
};

std::vector<in_case> in_cases(const demo_options& options) {
  return {
      {"IN (10K values), INTEGER Main", "int", scaled_size(options, std::size_t{1} << 27), column::fragment_kind::main},
      {"IN (10K values), INTEGER Delta", "int", scaled_size(options, std::size_t{1} << 25), column::fragment_kind::delta},
      {"IN (10K values), VARCHAR(24) Main", "varchar", scaled_size(options, std::size_t{1} << 24),
       column::fragment_kind::main},
  };
}

in_predicate_options in_options(const demo_options& options, const in_case& c) {
  in_predicate_options o;
  o.recipe.rows = scaled_size(options, 1'000'000);
  o.recipe.distinct = c.distinct;
  o.recipe.types = parse_column_types(c.type);
  o.recipe.fragment = c.fragment;
  o.type = c.type;
  o.repeat = options.repeat;
  o.verbose = progress_wanted();
  return o;
}

reconstruct_options reconstruct_options_for(const demo_options& options, const char* types) {
  reconstruct_options o;
  o.recipe.rows = scaled_size(options, 1'000'000);
  o.recipe.distinct = o.recipe.rows;
  o.recipe.columns = 200;
  o.recipe.types = parse_column_types(types);
  o.types = types;
  o.queries = 500;
  o.repeat = options.repeat;
  o.verbose = progress_wanted();
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
  print_header("ms");

  for (const in_case& c : in_cases(options)) {
    const in_predicate_options o = in_options(options, c);
    const column::table t = make_bench_table(o.recipe, progress_wanted());
    print_row(c.label, t.dictionary_bytes(), figures_of(run_in_predicate_bench(o, t), "ms_per_query"));
  }

  print_header("us");
  for (const char* types : {"int", "mixed"}) {
    const reconstruct_options o = reconstruct_options_for(options, types);
    const column::table t = make_bench_table(o.recipe, progress_wanted());
    const std::string label = fmt::format("SELECT * (200 {} columns)", std::string(types) == "int" ? "INTEGER" : "mixed");
    print_row(label, t.dictionary_bytes(), figures_of(run_reconstruct_bench(o, t), "us_per_query"));
  }
  fmt::print("\nIN: the list is encoded with locate (binary search in Main, the code B+-tree in Delta), then\n"
             "the code vector is scanned. SELECT *: one code and one dictionary access per column, the\n"
             "columns fetched one after the other or interleaved. Every variant returns the same answer.\n");
}

}  // namespace weave::bench
