// The column store's commands: `weave bench in-predicate`, `weave bench
// reconstruct`, `weave query in` and `weave query row`.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <ios>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/column/column_bench.hpp"
#include "bench/plot.hpp"
#include "bench/workload/limits.hpp"
#include "bench/workload/progress.hpp"
#include "bench/workload/size.hpp"
#include "bench_context.hpp"
#include "cli_support.hpp"
#include "weave/column/csv.hpp"
#include "weave/column/query.hpp"
#include "weave/exec/adaptive_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/memory/machine.hpp"
#include "weave/memory/saturating.hpp"

namespace weave::cli {

namespace {

using bench::column_variant;
using bench::parse_size;
using column::column_type;
using column::fragment_kind;

// Splits at `sep` outside parentheses, so "DECIMAL(12,2),INT" is two items.
std::vector<std::string> split_outside_parentheses(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (char c : s) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == sep && depth == 0) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  for (const auto& item : out)
    if (item.empty()) throw std::invalid_argument(fmt::format("empty item in '{}'", s));
  return out;
}

fragment_kind parse_fragment(const std::string& name) {
  if (name == "main") return fragment_kind::main;
  if (name == "delta") return fragment_kind::delta;
  throw std::invalid_argument(fmt::format("unknown fragment '{}' (main or delta)", name));
}

std::vector<column_type> parse_type_list(const std::string& list, char sep) {
  std::vector<column_type> types;
  for (const auto& name : split_outside_parentheses(list, sep)) {
    for (const auto& t : bench::parse_column_types(name)) types.push_back(t);
  }
  return types;
}

// A distinct count that a column's type cannot hold is a mistake, not a
// request for fewer: the table would be labelled with a count it lacks.
// `option` names it in the message ("--distinct", "--generate: distinct=").
void check_distinct(const std::vector<column::column_type>& types, const std::vector<std::size_t>& sweep,
                    std::string_view option = "--distinct ") {
  for (const std::size_t d : sweep) {
    for (const column::column_type& t : types) {
      if (d > column::generated_capacity(t)) {
        throw std::invalid_argument(fmt::format("{}{} is more than {} holds ({} values)", option, d,
                                                t.name(), column::generated_capacity(t)));
      }
    }
  }
}

// What --generate has read so far.
struct recipe_parse {
  column::table_recipe r;
  bool distinct_given = false;
};

// The keys of --generate and what each sets: the one list that parsing and
// the unknown-key message read.
using recipe_setter = void (*)(recipe_parse&, const std::string&);
constexpr std::pair<std::string_view, recipe_setter> recipe_keys[] = {
    {"rows", [](recipe_parse& p, const std::string& v) { p.r.rows = parse_size(v); }},
    {"columns", [](recipe_parse& p, const std::string& v) { p.r.columns = parse_size(v); }},
    {"types", [](recipe_parse& p, const std::string& v) { p.r.types = parse_type_list(v, '+'); }},
    {"distinct",
     [](recipe_parse& p, const std::string& v) {
       p.r.distinct = parse_size(v);
       p.distinct_given = true;
     }},
    {"fragment", [](recipe_parse& p, const std::string& v) { p.r.fragment = parse_fragment(v); }},
    {"seed", [](recipe_parse& p, const std::string& v) { p.r.seed = parse_size(v); }},
};

// --generate rows=1M,columns=4,types=int+decimal+varchar,distinct=1000,fragment=main,seed=42
column::table_recipe parse_recipe(const std::string& spec) {
  recipe_parse parsed;
  std::vector<std::string> seen;
  for (const auto& item : split_outside_parentheses(spec, ',')) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument(fmt::format("'{}' in --generate is not key=value", item));
    const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw std::invalid_argument(fmt::format("--generate gives '{}' twice", key));
    seen.push_back(key);
    const auto* known = std::find_if(std::begin(recipe_keys), std::end(recipe_keys),
                                     [&](const auto& k) { return k.first == key; });
    if (known == std::end(recipe_keys)) {
      std::string names;
      for (const auto& k : recipe_keys) names += fmt::format("{}{}", names.empty() ? "" : ", ", k.first);
      throw std::invalid_argument(fmt::format("unknown key '{}' in --generate ({})", key, names));
    }
    try {
      known->second(parsed, val);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("--generate {}={}: {}", key, val, e.what()));
    }
  }
  column::table_recipe& r = parsed.r;
  const bool distinct_given = parsed.distinct_given;
  if (!distinct_given) {
    if (r.rows > (std::size_t{1} << 32)) {
      throw std::invalid_argument(
          "--generate: rows above 2^32 needs distinct= (at most 2^32 distinct values per column)");
    }
    r.distinct = r.rows;
  }
  // No columns at all is validate()'s to report, as a range.
  if (r.columns > 0 && r.types.size() > r.columns) {
    throw std::invalid_argument(fmt::format("--generate lists {} types for {} columns", r.types.size(), r.columns));
  }
  // As in the benchmarks; without distinct=, each type holds as many as it can.
  if (distinct_given) check_distinct(r.types, {r.distinct}, "--generate: distinct=");
  return r;
}

// Where a query's table comes from: --generate SPEC or --csv FILE [--types ...].
struct table_source {
  std::string generate;
  std::string csv;
  std::string types;
  bool quiet = false;

  void add(CLI::App& app) {
    app.add_option("--generate", generate,
                   "make a table: rows=N,columns=C,types=int+decimal+varchar,distinct=D,fragment=main|delta,seed=S");
    app.add_option("--csv", csv, "load a table from a CSV file with a header line");
    app.add_option("--types", types, "column types of the CSV file, comma-separated (default: inferred)");
    app.add_flag("--quiet", quiet, "no progress or timing on stderr");
  }

  // For --generate, the column a query names (empty: the first) and its
  // type, checked before the table is made; nothing for --csv.
  std::optional<column_type> generated_type(const std::string& column) const {
    if (generate.empty() == csv.empty()) throw std::invalid_argument("give exactly one of --generate and --csv");
    if (generate.empty()) return std::nullopt;
    const column::table_recipe recipe = parse_recipe(generate);
    column::validate(recipe);
    std::size_t index = 0;
    if (!column.empty()) {
      while (index < recipe.columns && fmt::format("c{}", index) != column) ++index;
      if (index == recipe.columns) throw std::invalid_argument(fmt::format("no column '{}'", column));
    }
    return recipe.types[index % recipe.types.size()];
  }

  column::table load() const {
    if (generate.empty() == csv.empty()) throw std::invalid_argument("give exactly one of --generate and --csv");
    if (!csv.empty()) {
      std::vector<column_type> t;
      if (!types.empty()) {
        for (const auto& name : split_outside_parentheses(types, ',')) t.push_back(column_type::parse(name));
      }
      return column::load_csv(csv, t);
    }
    if (!types.empty()) throw std::invalid_argument("--types goes with --csv; --generate takes types=...");
    const column::table_recipe recipe = parse_recipe(generate);
    column::validate(recipe);
    require_memory(column::estimated_bytes(recipe), "this table");
    return bench::make_bench_table(recipe, bench::progress_wanted(quiet));
  }
};

// The scheduler a query runs under.
struct execution {
  std::string variant = "auto";
  std::size_t group = 16;
  CLI::Option* group_option = nullptr;

  void add(CLI::App& app) {
    app.add_option("--variant", variant, "sequential | interleaved | auto")->capture_default_str();
    group_option = app.add_option("--group", group,
                                  "slots of the interleaved variant's ring (in row, each fetches up to 4 "
                                  "integer columns at once)")
                       ->check(unsigned_in(1, interleaved_scheduler::max_group))
                       ->capture_default_str();
  }

  // Bad input, before the slow part: an unknown variant, or a group size
  // that the chosen variant would not use.
  void validate() const {
    if (bench::parse_column_variant(variant) != column_variant::interleaved && group_option->count() > 0) {
      throw std::invalid_argument("--group goes with --variant interleaved (auto picks its own)");
    }
  }

  // Calls f(scheduler) under the chosen scheduler; returns a description.
  template <class F>
  std::string run(F&& f) const {
    const column_variant v = bench::parse_column_variant(variant);
    switch (v) {
      case column_variant::sequential: {
        sequential_scheduler s;
        f(s);
        return "sequential";
      }
      case column_variant::interleaved: {
        interleaved_scheduler s{group};
        f(s);
        return fmt::format("interleaved, G={}", group);
      }
      case column_variant::adaptive: {
        adaptive_scheduler s;
        f(s);
        // A query too short for the calibration's windows ran before any
        // comparison: say so rather than present it as a choice.
        const std::string when = s.calibrated() ? "" : " (not calibrated: too few requests to time)";
        return s.decision().interleave ? fmt::format("auto: interleaved, G={}{}", s.decision().group, when)
                                       : fmt::format("auto: sequential{}", when);
      }
    }
    return "";
  }
};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// The lines of a --values file, one value each (a CR before the LF is
// dropped). A directory, an empty file, a line longer than a CSV record or
// more lines than an IN list may hold is bad input.
std::vector<std::string> read_value_lines(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw std::invalid_argument(fmt::format("'{}' is a directory", path));
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::invalid_argument(fmt::format("cannot read '{}'", path));
  // The lines, then the values parsed from them: about twice the text, and
  // a few dozen bytes a line. A file's size is known; a pipe's is checked as
  // it is read, so that a source without end (/dev/urandom) stops with a
  // message, not with the machine out of memory.
  constexpr std::size_t per_line = sizeof(std::string) + sizeof(column::value);
  if (const auto size = std::filesystem::file_size(path, ec); !ec) {
    // At most a line per two bytes ("1\n").
    require_memory(saturating_add(saturating_mul(size, 2), saturating_mul(size / 2 + 1, per_line)),
                   fmt::format("--values {}", path));
  }
  constexpr std::size_t check_every = std::size_t{64} << 20;
  std::size_t bytes = 0;
  std::vector<std::string> lines;
  std::string line;
  std::streambuf* in = file.rdbuf();
  const auto next = [&] {
    try {
      return in->sbumpc();
    } catch (const std::ios_base::failure&) {  // the device failed, not the text
      throw std::runtime_error(fmt::format("cannot read '{}': a read error", path));
    }
  };
  for (int c = next();; c = next()) {
    if (c == std::char_traits<char>::eof() || c == '\n') {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (c != std::char_traits<char>::eof() || !line.empty()) lines.push_back(std::move(line));
      if (c == std::char_traits<char>::eof()) break;
      line.clear();
      if (lines.size() > bench::max_list) throw std::invalid_argument(fmt::format("'{}' has more than 100M lines", path));
      continue;
    }
    if (line.size() == column::max_csv_record_bytes) {
      throw std::invalid_argument(fmt::format("{}, line {}: longer than {} bytes", path, lines.size() + 1,
                                              column::max_csv_record_bytes));
    }
    line += static_cast<char>(c);
    if (++bytes % check_every == 0) {
      const std::size_t available = machine::available_bytes();  // 0: not known
      const std::size_t still_needed = saturating_add(bytes, saturating_mul(lines.size(), per_line));
      if (available > 0 && available < saturating_add(still_needed, 4 * check_every)) {
        throw std::invalid_argument(fmt::format("--values {}: more than the memory available can hold ({} read)",
                                                path, bench::format_bytes(bytes)));
      }
    }
  }
  if (lines.empty()) throw std::invalid_argument(fmt::format("'{}' holds no values", path));
  return lines;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

struct bench_cli {
  std::string rows = "1M";
  std::string distinct = "1M";
  std::string variants = "sequential,interleaved,auto";
  std::string groups = "16";
  bool group_given = false;
  std::size_t repeat = 3;
  std::uint64_t seed = 42;
  std::string plot;
  bool quiet = false;

  void add(CLI::App& app) {
    app.add_option("--rows", rows, "rows of the table")->capture_default_str()
        ->check(size_value);
    app.add_option("--variants", variants, "sequential,interleaved,auto")->capture_default_str();
    app.add_option(
           "--group", groups,
           "comma-separated group sizes of interleaved (slots of the ring), or 'auto' for auto's choice")
        ->check(size_list_or_auto)
        ->each([this](const std::string&) { group_given = true; })
        ->capture_default_str();
    app.add_option("--repeat", repeat, "runs per variant, in turn: a line each, then their median and other aggregates")
        ->capture_default_str();
    app.add_option("--seed", seed, "random seed")->capture_default_str();
    app.add_option("--plot", plot, "write a PNG of time per query against dictionary size")->check(plot_path);
    app.add_flag("--quiet", quiet, "no progress on stderr");
  }

  void fill(bench::column_bench_options& o, column::table_recipe& recipe) const {
    o.variants.clear();
    for (const auto& v : split(variants, "--variants")) o.variants.push_back(bench::parse_column_variant(v));
    if (group_given && std::find(o.variants.begin(), o.variants.end(), bench::column_variant::interleaved) ==
                           o.variants.end()) {
      throw std::invalid_argument("--group needs the interleaved variant (auto chooses its own group)");
    }
    if (groups == "auto") {
      o.group_auto = true;
    } else {
      o.groups = parse_sizes(groups);
    }
    o.repeat = repeat;
    o.verbose = bench::progress_wanted(quiet);
    o.each_repetition = [](const nlohmann::ordered_json& j) { print(j); };
    recipe.rows = parse_size(rows);
    recipe.seed = seed;
  }
};


// Runs a column benchmark once per distinct-value count of `sweep` (each on
// its own table), printing each JSON line, and plots them all if asked. Every
// configuration is checked, and the largest table against the memory, first.
template <class Options, class Run>
void run_sweep(Options& o, const std::vector<std::size_t>& sweep, const std::string& plot, std::size_t query_bytes,
               Run run) {
  std::size_t largest = 0;
  for (std::size_t d : sweep) {
    o.recipe.distinct = d;
    bench::validate(o);
    largest = std::max(largest, column::estimated_bytes(o.recipe));
  }
  require_memory(saturating_add(largest, query_bytes), "this benchmark");
  print(bench_context(1));
  std::vector<nlohmann::ordered_json> all;
  for (std::size_t d : sweep) {
    o.recipe.distinct = d;
    const column::table t = bench::make_bench_table(o.recipe, o.verbose);
    for (auto& j : run(o, t)) {
      print(j);
      all.push_back(std::move(j));
    }
  }
  if (!plot.empty()) bench::plot_dictionary_sweep(all, plot);
}

}  // namespace

void add_column_commands(CLI::App& bench_app, CLI::App& query_app, command_table& commands) {
  // --- weave bench in-predicate ---
  struct in_cli : bench_cli {
    std::string type = "int";
    std::string fragment = "main";
    std::string values = "10K";
  };
  auto in = std::make_shared<in_cli>();
  auto* in_cmd = bench_app.add_subcommand("in-predicate", "COUNT(*) WHERE C IN (list): sequential vs interleaved locate");
  in->add(*in_cmd);
  in_cmd->add_option("--distinct", in->distinct, "distinct values (dictionary size); a comma list sweeps")
      ->check(size_list)
      ->capture_default_str();
  in_cmd->add_option("--type", in->type, "int | bigint | decimal | varchar, or an SQL type")->capture_default_str();
  in_cmd->add_option("--fragment", in->fragment, "main | delta")->capture_default_str();
  in_cmd->add_option("--values", in->values, "values in the IN list")->capture_default_str()
        ->check(size_value);
  commands.add(in_cmd, [in] {
    bench::in_predicate_options o;
    in->fill(o, o.recipe);
    o.type = in->type;
    o.recipe.types = bench::parse_column_types(in->type);
    if (o.recipe.types.size() != 1) throw std::invalid_argument("--type takes one type");
    o.recipe.fragment = parse_fragment(in->fragment);
    o.values = parse_size(in->values);
    const auto sweep = parse_sizes(in->distinct);
    check_distinct(o.recipe.types, sweep);
    // The IN list: a value each (measured: 43 bytes an int, 250 a VARCHAR(255)).
    const column::column_type& t = o.recipe.types[0];
    const std::size_t value_bytes = t.kind == column::type_kind::varchar ? std::size_t{t.length} + 1 : 8;
    run_sweep(o, sweep, in->plot, saturating_mul(o.values, 64 + value_bytes),
              [](const auto& opts, const column::table& table) {
      return bench::run_in_predicate_bench(opts, table);
    });
    return 0;
  });

  // --- weave bench reconstruct ---
  struct reconstruct_cli : bench_cli {
    std::string columns = "100";
    std::string types = "int";
    std::string queries = "1000";
  };
  auto rc = std::make_shared<reconstruct_cli>();
  rc->distinct = "rows";
  auto* rc_cmd = bench_app.add_subcommand("reconstruct", "SELECT * of random rows: columns fetched sequentially or interleaved");
  rc->add(*rc_cmd);
  rc_cmd->add_option("--columns", rc->columns, "columns of the table")->capture_default_str()
        ->check(size_value);
  rc_cmd->add_option("--types", rc->types, "int | bigint | decimal | varchar | mixed")->capture_default_str();
  rc_cmd
      ->add_option("--distinct", rc->distinct,
                   "distinct values per column ('rows': all distinct, or as many as a type holds); a comma "
                   "list sweeps")
      ->check(size_list_or_rows)
      ->capture_default_str();
  rc_cmd->add_option("--queries", rc->queries, "rows reconstructed per run")->capture_default_str()
        ->check(size_value);
  commands.add(rc_cmd, [rc] {
    bench::reconstruct_options o;
    rc->fill(o, o.recipe);
    o.types = rc->types;
    o.recipe.types = bench::parse_column_types(rc->types);
    o.recipe.columns = parse_size(rc->columns);
    o.queries = parse_size(rc->queries);
    if (rc->distinct == "rows" && o.recipe.rows > (std::size_t{1} << 32)) {
      throw std::invalid_argument("--rows above 2^32 needs --distinct (at most 2^32 distinct values per column)");
    }
    const auto sweep = rc->distinct == "rows" ? std::vector<std::size_t>{o.recipe.rows} : parse_sizes(rc->distinct);
    if (rc->distinct != "rows") check_distinct(o.recipe.types, sweep);  // 'rows': as many as each type holds
    // The rows to reconstruct, one row's values, and the buffer that clears the caches between runs.
    const std::size_t query_bytes =
        saturating_add(saturating_add(saturating_mul(o.queries, sizeof(std::size_t)), saturating_mul(o.recipe.columns, 64)),
                       bench::cache_eviction_bytes());
    run_sweep(o, sweep, rc->plot, query_bytes, [](const auto& opts, const column::table& t) {
      return bench::run_reconstruct_bench(opts, t);
    });
    return 0;
  });

  // --- weave query in ---
  struct query_in_cli {
    table_source source;
    execution exec;
    std::string column;
    std::string values_file;
    std::string random;
    std::uint64_t seed = 42;
  };
  auto qi = std::make_shared<query_in_cli>();
  auto* qi_cmd = query_app.add_subcommand("in", "SELECT COUNT(*) FROM T WHERE C IN (values)");
  qi->source.add(*qi_cmd);
  qi->exec.add(*qi_cmd);
  qi_cmd->add_option("--column", qi->column, "the column C (default: the first)");
  qi_cmd->add_option("--values", qi->values_file, "file with one value per line");
  qi_cmd->add_option("--random", qi->random, "use K values taken from random rows of C")
        ->check(size_value);
  CLI::Option* seed_option =
      qi_cmd->add_option("--seed", qi->seed, "random seed of --random")->capture_default_str();
  commands.add(qi_cmd, [qi, seed_option] {
    if (qi->values_file.empty() == qi->random.empty()) {
      throw std::invalid_argument("give exactly one of --values and --random");
    }
    if (seed_option->count() > 0 && qi->random.empty()) {
      throw std::invalid_argument("--seed needs --random (it draws the random values)");
    }
    qi->exec.validate();
    const std::size_t k = qi->random.empty() ? 0 : parse_size(qi->random);
    if (!qi->random.empty() && k == 0) throw std::invalid_argument("--random must be at least 1");
    qi->source.generated_type(qi->column);
    if (k > bench::max_list) throw std::invalid_argument("--random must be 1..100M");
    const std::vector<std::string> lines = qi->values_file.empty() ? std::vector<std::string>{}
                                                                   : read_value_lines(qi->values_file);
    const column::table t = qi->source.load();
    const column::table_column& c = qi->column.empty() ? t.column(0) : t.column(qi->column);
    std::vector<column::value> values;
    if (!qi->values_file.empty()) {
      for (std::size_t n = 0; n < lines.size(); ++n) {
        try {
          values.push_back(column::parse_value(c.type, lines[n]));
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument(fmt::format("{}, line {}: {}", qi->values_file, n + 1, e.what()));
        }
      }
    } else {
      std::mt19937_64 rng(qi->seed);
      std::size_t index = 0;
      while (&t.column(index) != &c) ++index;
      for (std::size_t i = 0; i < k; ++i) values.push_back(t.row(rng() % t.rows())[index]);
    }
    std::size_t count = 0;
    const auto start = std::chrono::steady_clock::now();
    const std::string how = qi->exec.run([&](auto& s) { count = column::count_in(t, c.name, values, s); });
    const double ms = ms_since(start);
    fmt::print("count: {}\n", count);
    if (!qi->source.quiet) {
      std::fprintf(stderr, "SELECT COUNT(*) WHERE %s IN (%zu values): %.3f ms, %s\n", c.name.c_str(), values.size(),
                   ms, how.c_str());
    }
    return 0;
  });

  // --- weave query row ---
  struct query_row_cli {
    table_source source;
    execution exec;
    std::string key;
    std::string key_column;
  };
  auto qr = std::make_shared<query_row_cli>();
  auto* qr_cmd = query_app.add_subcommand(
      "row", "SELECT * FROM T WHERE C = key: the first such row, all columns (exit 1 if there is none)");
  qr->source.add(*qr_cmd);
  qr->exec.add(*qr_cmd);
  qr_cmd->add_option("--key", qr->key, "the value to find")->required();
  // --column as in `query in`; --key-column, its first name, still works.
  qr_cmd->add_option("--column,--key-column", qr->key_column, "the column C (default: the first)");
  commands.add(qr_cmd, [qr] {
    qr->exec.validate();
    if (const auto type = qr->source.generated_type(qr->key_column)) column::parse_value(*type, qr->key);
    const column::table t = qr->source.load();
    const column::table_column& c = qr->key_column.empty() ? t.column(0) : t.column(qr->key_column);
    const column::value key = column::parse_value(c.type, qr->key);
    std::optional<std::size_t> row;
    std::vector<column::value> values;
    const auto start = std::chrono::steady_clock::now();
    const std::string how = qr->exec.run([&](auto& s) {
      row = column::find_row(t, c.name, key, s);
      if (row) column::fetch_row(t, *row, s, values);
    });
    const double ms = ms_since(start);
    if (!row) {
      std::fprintf(stderr, "no row where %s = %s\n", c.name.c_str(), qr->key.c_str());
      return 1;
    }
    std::string header, line;
    for (std::size_t i = 0; i < t.column_count(); ++i) {
      header += (i ? "," : "") + csv_field(t.column(i).name);
      line += (i ? "," : "") + csv_field(column::format_value(values[i]));
    }
    fmt::print("{}\n{}\n", header, line);
    if (!qr->source.quiet) std::fprintf(stderr, "row %zu: %.3f ms, %s\n", *row, ms, how.c_str());
    return 0;
  });
}

}  // namespace weave::cli
