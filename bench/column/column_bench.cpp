#include "bench/column/column_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string_view>

#include "bench/lookup/lookup_bench.hpp"
#include "bench/workload/limits.hpp"
#include "bench/workload/report.hpp"
#include "weave/column/query.hpp"
#include "weave/exec/adaptive_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/memory/machine.hpp"
#include "weave/memory/saturating.hpp"

namespace weave::bench {

using column::column_type;

column_variant parse_column_variant(const std::string& name) {
  if (name == "sequential") return column_variant::sequential;
  if (name == "interleaved") return column_variant::interleaved;
  if (name == "auto") return column_variant::adaptive;
  throw std::invalid_argument(fmt::format("unknown variant '{}' (sequential, interleaved or auto)", name));
}

const char* column_variant_name(column_variant v) {
  switch (v) {
    case column_variant::sequential: return "sequential";
    case column_variant::interleaved: return "interleaved";
    case column_variant::adaptive: return "auto";
  }
  return "?";
}

std::vector<column_type> parse_column_types(const std::string& name) {
  if (name == "int") return {column_type::integer()};
  if (name == "bigint") return {column_type::bigint()};
  if (name == "decimal") return {column_type::decimal(18, 2)};
  if (name == "varchar") return {column_type::varchar(24)};
  if (name == "mixed") return {column_type::integer(), column_type::decimal(18, 2), column_type::varchar(24)};
  try {
    return {column_type::parse(name)};
  } catch (const std::invalid_argument& e) {
    // An SQL type with bad arguments says what is wrong with them.
    if (!std::string_view(e.what()).starts_with("unknown type")) {
      throw std::invalid_argument(fmt::format("type '{}': {}", name, e.what()));
    }
    throw std::invalid_argument(fmt::format(
        "unknown type '{}' (int, bigint, decimal, varchar, mixed, or INTEGER, BIGINT, DECIMAL(p,s), VARCHAR(n))", name));
  }
}

namespace {

void validate_common(const column_bench_options& o) {
  if (o.variants.empty()) throw std::invalid_argument("no variants to run");
  check_repeat(o.repeat);
  if (!o.group_auto) check_group_sizes(o.groups);
}

std::uint64_t checksum_of(const column::value& v) {
  struct {
    std::uint64_t operator()(std::int32_t x) const { return static_cast<std::uint64_t>(std::int64_t{x}); }
    std::uint64_t operator()(std::int64_t x) const { return static_cast<std::uint64_t>(x); }
    std::uint64_t operator()(const column::decimal& d) const { return static_cast<std::uint64_t>(d.units); }
    std::uint64_t operator()(const std::string& s) const {
      std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
      for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
      return h;
    }
  } visitor;
  return std::visit(visitor, v);
}

struct config {
  column_variant v;
  std::size_t group;
  std::vector<double> seconds;
  std::uint64_t answer = 0;
  adaptive_scheduler adaptive{};
};

// Runs `query(scheduler)` (which returns the answer) for every configuration
// and repeat, each timed run after `before_run()`; fills `base` with each
// configuration's fields.
template <class Query, class BeforeRun>
std::vector<nlohmann::ordered_json> run_variants(const column_bench_options& o, Query query, BeforeRun before_run,
                                                 const nlohmann::ordered_json& base, const char* time_key,
                                                 double time_scale, const char* answer_key) {
  // One untimed run first: the first run after the table is made was up to
  // four times slower than the next, whatever its variant (on the Zen 4 VM;
  // the cause was not found), so whichever variant ran first paid for it.
  std::vector<std::size_t> groups = o.groups;
  if (o.group_auto) {
    adaptive_scheduler probe;
    query(probe);
    groups = {probe.decision().interleave ? probe.decision().group : 1};
  } else {
    sequential_scheduler warm_up;
    query(warm_up);
  }
  std::vector<config> configs;
  for (column_variant v : o.variants) {
    if (v == column_variant::interleaved) {
      for (std::size_t g : groups) configs.push_back(config{v, g, {}, 0});
    } else {
      configs.push_back(config{v, 1, {}, 0});
    }
  }
  const auto describe = [&](const config& cfg) {
    nlohmann::ordered_json j = base;
    j["variant"] = column_variant_name(cfg.v);
    const bool chose = cfg.v == column_variant::adaptive && cfg.adaptive.decision().interleave;
    j["group"] = chose ? cfg.adaptive.decision().group : cfg.group;
    j["repeat"] = o.repeat;
    return j;
  };
  for (std::size_t r = 0; r < o.repeat; ++r) {
    for (std::size_t c = 0; c < configs.size(); ++c) {
      config& cfg = configs[c];
      if (o.verbose) {
        std::fprintf(stderr, "\rrepeat %zu/%zu, configuration %zu/%zu   ", r + 1, o.repeat, c + 1, configs.size());
      }
      before_run();
      const auto start = std::chrono::steady_clock::now();
      std::uint64_t answer = 0;
      switch (cfg.v) {
        case column_variant::sequential: {
          sequential_scheduler s;
          answer = query(s);
          break;
        }
        case column_variant::interleaved: {
          interleaved_scheduler s{cfg.group};
          answer = query(s);
          break;
        }
        case column_variant::adaptive:
          answer = query(cfg.adaptive);
          break;
      }
      const auto stop = std::chrono::steady_clock::now();
      if (r > 0 && answer != cfg.answer) {
        throw std::runtime_error(
            fmt::format("{} gave {} {} and then {}", column_variant_name(cfg.v), answer_key, cfg.answer, answer));
      }
      cfg.answer = answer;
      cfg.seconds.push_back(std::chrono::duration<double>(stop - start).count());
      if (o.each_repetition) {
        nlohmann::ordered_json j = describe(cfg);
        j["run_type"] = "repetition";
        j["repetition"] = r + 1;
        j[time_key] = cfg.seconds.back() * time_scale;
        j[answer_key] = cfg.answer;
        o.each_repetition(j);
      }
    }
  }
  if (o.verbose) std::fprintf(stderr, "\r%60s\r", "");

  std::vector<nlohmann::ordered_json> rows;
  for (const config& cfg : configs) {
    if (cfg.answer != configs.front().answer) {
      throw std::runtime_error(fmt::format("{} mismatch: {} gave {}, {} gave {}", answer_key,
                                           column_variant_name(configs.front().v), configs.front().answer,
                                           column_variant_name(cfg.v), cfg.answer));
    }
    nlohmann::ordered_json j = describe(cfg);
    j["run_type"] = "aggregate";
    std::vector<double> times;
    for (double seconds : cfg.seconds) times.push_back(seconds * time_scale);
    add_aggregates(j, time_key, times);
    j[answer_key] = cfg.answer;
    rows.push_back(std::move(j));
  }
  return rows;
}

}  // namespace

void validate(const in_predicate_options& o) {
  validate_common(o);
  column::validate(o.recipe);
  if (o.recipe.columns != 1) throw std::invalid_argument("the IN-predicate table has one column");
  if (o.values == 0 || o.values > max_list) throw std::invalid_argument("--values must be 1..100M");
}

void validate(const reconstruct_options& o) {
  validate_common(o);
  column::validate(o.recipe);
  if (o.queries == 0 || o.queries > max_list) throw std::invalid_argument("--queries must be 1..100M");
  if (saturating_mul(o.queries, o.recipe.columns) > max_fetched_values) {
    throw std::invalid_argument(fmt::format("--queries {} of {} columns is {} values a run; at most {}", o.queries,
                                            o.recipe.columns, saturating_mul(o.queries, o.recipe.columns),
                                            max_fetched_values));
  }
}

column::table make_bench_table(const column::table_recipe& recipe, bool verbose) {
  std::function<void(double)> progress;
  if (verbose) {
    progress = [](double share) { std::fprintf(stderr, "\rgenerating table: %3.0f%%", share * 100); };
  }
  column::table t = column::generate_table(recipe, progress);
  if (verbose) std::fprintf(stderr, "\rgenerating table: done\n");
  return t;
}

std::vector<nlohmann::ordered_json> run_in_predicate_bench(const in_predicate_options& o, const column::table& t) {
  validate(o);
  // Values drawn from the column's dictionary, so each matches some rows.
  std::mt19937_64 rng(o.recipe.seed ^ 0x1a);
  std::vector<column::value> values;
  for (std::size_t i = 0; i < o.values; ++i) values.push_back(column::generated_value(o.recipe, 0, rng()));
  const std::string name = t.column(0).name;
  nlohmann::ordered_json base;
  base["bench"] = "in-predicate";
  base["rows"] = o.recipe.rows;
  base["distinct"] = o.recipe.distinct;
  base["type"] = o.type;
  base["fragment"] = o.recipe.fragment == column::fragment_kind::main ? "main" : "delta";
  base["values"] = o.values;
  base["dictionary_bytes"] = t.dictionary_bytes();
  return run_variants(
      o, [&](auto& scheduler) -> std::uint64_t { return column::count_in(t, name, values, scheduler); }, [] {},
      base, "ms_per_query", 1e3, "count");
}

std::vector<nlohmann::ordered_json> run_reconstruct_bench(const reconstruct_options& o, const column::table& t) {
  validate(o);
  std::mt19937_64 rng(o.recipe.seed ^ 0x2b);
  std::vector<std::size_t> rows(o.queries);
  for (auto& r : rows) r = rng() % t.rows();
  nlohmann::ordered_json base;
  base["bench"] = "reconstruct";
  base["rows"] = o.recipe.rows;
  base["columns"] = o.recipe.columns;
  base["types"] = o.types;
  base["distinct"] = o.recipe.distinct;
  // What each type's columns hold: a type with fewer values than asked for
  // ('rows' on a narrow decimal, say) holds all it has.
  nlohmann::ordered_json held;
  for (std::size_t c = 0; c < std::min(o.recipe.columns, o.recipe.types.size()); ++c) {  // the types in use
    const column::column_type& type = o.recipe.types[c];
    held[type.name()] = std::min(o.recipe.distinct, column::generated_capacity(type));
  }
  base["distinct_by_type"] = held;
  base["queries"] = o.queries;
  base["columns_per_slot"] = column::columns_per_slot;  // an interleaved group counts slots
  base["dictionary_bytes"] = t.dictionary_bytes();
  // Every run reads the same rows: without this, the second variant and
  // every later repetition would find the first run's lines in cache (1000
  // rows of 100 columns are about 13 MB), and narrow tables would look
  // cheaper per column than wide ones for that reason alone.
  const std::size_t evict_bytes = cache_eviction_bytes();
  std::vector<std::uint64_t> evict(evict_bytes / sizeof(std::uint64_t));
  base["evicted_bytes_per_run"] = evict_bytes;
  std::uint64_t pass = 0;
  std::vector<column::value> row;
  return run_variants(
      o,
      [&](auto& scheduler) -> std::uint64_t {
        std::uint64_t sum = 0;
        for (std::size_t r : rows) {
          column::fetch_row(t, r, scheduler, row);
          for (const auto& v : row) sum += checksum_of(v);
        }
        return sum;
      },
      [&] {
        // A write to every line: each comes into the caches and pushes out what was there.
        ++pass;
        for (std::size_t i = 0; i < evict.size(); i += machine::cache_line / sizeof(std::uint64_t)) evict[i] += pass;
        asm volatile("" : : "r"(evict.data()) : "memory");  // the writes are not dead
      },
      base, "us_per_query", 1e6 / static_cast<double>(o.queries), "checksum");
}

std::size_t cache_eviction_bytes() {
  const auto& c = machine::caches();
  const std::size_t llc = std::max(c.llc_bytes, c.os_llc_bytes);
  return std::clamp<std::size_t>(2 * llc, std::size_t{64} << 20, std::size_t{1} << 30);
}

}  // namespace weave::bench
