#pragma once
// `weave bench in-predicate` and `weave bench reconstruct`: the column
// store's two queries, every variant on the same table and the same query
// arguments, medians of repeats, and the answer (count or checksum) checked
// equal across variants.
//
//   sequential   the queries' tasks under sequential_scheduler
//   interleaved  under interleaved_scheduler, for each group size
//   auto         under adaptive_scheduler (one per configuration, calibrated on the first
//                queries: a query shorter than its windows is timed whole)

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "weave/column/table.hpp"

namespace weave::bench {

enum class column_variant { sequential, interleaved, adaptive };
column_variant parse_column_variant(const std::string& name);
const char* column_variant_name(column_variant v);

// Column types by benchmark name: int, bigint, decimal (DECIMAL(18,2)),
// varchar (VARCHAR(24)), mixed (INTEGER, DECIMAL, VARCHAR in turn), or an
// SQL type name.
std::vector<column::column_type> parse_column_types(const std::string& name);

struct column_bench_options {
  std::vector<column_variant> variants{column_variant::sequential, column_variant::interleaved,
                                       column_variant::adaptive};
  std::vector<std::size_t> groups{16};
  bool group_auto = false;  // interleaved takes the group auto chose
  std::size_t repeat = 3;
  // Progress on stderr; callers set it from progress_wanted(). Off unless
  // asked, so that a caller that forgets writes none into a log or a pipe.
  bool verbose = false;
  // Gets each configuration's line as each repetition ends; the functions
  // below return the aggregate lines.
  std::function<void(const nlohmann::ordered_json&)> each_repetition;
};

struct in_predicate_options : column_bench_options {
  column::table_recipe recipe;  // one column
  std::string type = "int";
  std::size_t values = 10'000;
};

struct reconstruct_options : column_bench_options {
  column::table_recipe recipe;
  std::string types = "int";
  std::size_t queries = 1000;
};

void validate(const in_predicate_options& options);
void validate(const reconstruct_options& options);

// One JSON object per (variant, group).
std::vector<nlohmann::ordered_json> run_in_predicate_bench(const in_predicate_options& options,
                                                           const column::table& table);
std::vector<nlohmann::ordered_json> run_reconstruct_bench(const reconstruct_options& options,
                                                          const column::table& table);

// What reconstruct writes before each timed run to push the last run's
// lines out of the caches: twice the last cache (the larger of the OS's and
// the figure in use), 64 MiB to 1 GiB.
std::size_t cache_eviction_bytes();

// Builds the benchmark's table, with progress on stderr when verbose.
column::table make_bench_table(const column::table_recipe& recipe, bool verbose);

}  // namespace weave::bench
