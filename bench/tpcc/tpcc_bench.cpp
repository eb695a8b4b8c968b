#include "bench/tpcc/tpcc_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/tpcc/check.hpp"
#include "bench/tpcc/load.hpp"
#include "bench/workload/auto_batch.hpp"
#include "bench/workload/latency_target.hpp"
#include "bench/workload/limits.hpp"
#include "bench/workload/median.hpp"
#include "bench/workload/parallel.hpp"
#include "bench/workload/report.hpp"
#include "weave/memory/saturating.hpp"

namespace weave::bench {

namespace {

using clock_type = std::chrono::steady_clock;

// Orders that runs may place, for the memory estimate: a generous bound on
// the rate (NewOrders per second per thread).
constexpr double max_new_orders_per_second = 60'000;

// Thread-seconds of runs on one database: all of them, or with --reload the
// longest one.
std::size_t configurations_seconds(const tpcc_options& o) {
  if (o.reload) {
    const std::size_t most = *std::max_element(o.threads.begin(), o.threads.end());
    return static_cast<std::size_t>(static_cast<double>(most) * o.seconds) + 1;
  }
  const std::size_t per_mode = (o.batches.size() + o.latency_targets_us.size()) * o.schedulers.size();
  double thread_seconds = 0;
  for (std::size_t t : o.threads) {
    for (tpcc::mode m : o.modes)
      thread_seconds += static_cast<double>(t * (tpcc::interleaves(m) ? per_mode : 1));
  }
  return static_cast<std::size_t>(thread_seconds * o.seconds * static_cast<double>(o.repeat)) + 1;
}

std::size_t new_order_room(const tpcc_options& o) {
  const double share = o.mix.percent[0] / 100.0;
  return static_cast<std::size_t>(max_new_orders_per_second * share *
                                  static_cast<double>(configurations_seconds(o))) +
         10'000;
}

// One loaded database and the workers' places in it. It stays where it was
// made: the shared state refers to its tables.
struct database {
  std::unique_ptr<txn::engine> engine;
  tpcc::tables tables;
  std::vector<participant*> members;
  tpcc::shared_state shared;
  double load_seconds;

  database(const tpcc_options& o, std::size_t workers)
      : engine(make_engine(o.durability,
                           o.isolation == "ssn" ? txn::isolation::serializable : txn::isolation::snapshot)),
        tables(tpcc::tables::create(*engine, o.warehouses, o.inline_values)),
        shared(*engine, tables, o.warehouses, o.suppliers),
        load_seconds(load(o, workers)) {
    for (std::size_t t = 0; t < workers; ++t) members.push_back(&engine->join());
  }
  database(const database&) = delete;
  database& operator=(const database&) = delete;

 private:
  double load(const tpcc_options& o, std::size_t workers) {
    const auto start = clock_type::now();
    tpcc::load(*engine, tables, o.warehouses, o.seed, workers, [&](std::uint32_t loaded) {
      if (o.verbose) std::fprintf(stderr, "\rloading %u warehouses: %u", o.warehouses, loaded);
    });
    const double seconds = std::chrono::duration<double>(clock_type::now() - start).count();
    if (o.verbose) std::fprintf(stderr, "\rloading %u warehouses: done in %.1f s\n", o.warehouses, seconds);
    // The load's log goes: the runs start from a checkpoint, as a database would.
    if (engine->log() != nullptr) engine->checkpoint();
    return seconds;
  }
};

}  // namespace

void validate(const tpcc_options& o) {
  validate(o.durability);
  if (o.warehouses < 1 || o.warehouses > tpcc::max_warehouses) {
    throw std::invalid_argument(fmt::format("--warehouses must be 1..{}", tpcc::max_warehouses));
  }
  if (o.suppliers < 1 || o.suppliers > 1900) throw std::invalid_argument("--suppliers must be 1..1900");
  if (o.threads.empty() || o.batches.empty() || o.modes.empty()) throw std::invalid_argument("nothing to run");
  for (std::size_t t : o.threads)
    if (t < 1 || t > 64) throw std::invalid_argument(fmt::format("--threads {} is outside 1..64", t));
  for (std::size_t b : o.batches)
    if (b != auto_batch && (b < 1 || b > 64))
      throw std::invalid_argument(fmt::format("--batch {} is outside 1..64", b));
  check_seconds(o.seconds);
  check_repeat(o.repeat);
  if (o.reserve_bytes > (max_reserve_mib << 20)) {
    throw std::invalid_argument(
        fmt::format("--reserve-mib {} is above {}", o.reserve_bytes >> 20, max_reserve_mib));
  }
  for (double t : o.latency_targets_us) check_latency_target(t);
  check_schedulers(o.schedulers);
  // What only the interleaved modes use needs one of them.
  const bool none_interleaves = std::none_of(o.modes.begin(), o.modes.end(), tpcc::interleaves);
  if (runs_pipeline(o.schedulers) && none_interleaves) {
    throw std::invalid_argument(
        "the pipeline (--pipeline, --scheduler pipeline) needs an interleaved mode (coro, coro-nested or "
        "hybrid)");
  }
  if (o.reload && o.durability.mode != "off") {
    throw std::invalid_argument(
        "--reload needs --durability off (a durable engine's directory keeps its first load)");
  }
  if (o.durability.deferred_acks() && none_interleaves) {
    throw std::invalid_argument(
        "--acks deferred needs an interleaved mode (coro, coro-nested or hybrid): the others wait for each "
        "commit");
  }
  if (!o.latency_targets_us.empty()) {
    if (none_interleaves) {
      throw std::invalid_argument("--latency-target-us needs an interleaved mode (coro, coro-nested or hybrid)");
    }
    if (o.durability.deferred_acks()) {
      throw std::invalid_argument(
          "--latency-target-us with --acks deferred would steer by in-memory commits, not acknowledgements");
    }
  }
  if (o.isolation != "si" && o.isolation != "ssn") {
    throw std::invalid_argument(fmt::format("unknown isolation '{}' (si or ssn)", o.isolation));
  }
}

std::size_t estimated_bytes(const tpcc_options& o) {
  const std::size_t loaded = tpcc::estimated_bytes(o.warehouses, 0);
  const std::size_t grown = tpcc::estimated_bytes(o.warehouses, new_order_room(o)) - loaded;
  if (o.reserve_bytes == 0) return loaded + grown;
  // The reservation holds the runs' new versions: it counts against their
  // growth, not beside it, plus the rest of a chunk it leaves unused.
  return saturating_add(loaded, saturating_add(std::max(grown, o.reserve_bytes), std::size_t{64} << 20));
}

namespace {

// Memory the database has taken, by kind: what a run adds per transaction
// is how fast TPC-C grows (New-Order inserts rows; an update keeps the
// version it replaced until no snapshot can read it).
struct memory_use {
  double slots = 0;     // records' slots (the indirection arrays)
  double index = 0;     // index nodes
  // Version memory carved from the pool (shared by the process) in 64 KiB
  // chunks: new memory, not live bytes (a freed block reused shows as
  // nothing). Versions in slots, and values past 8 KiB, are not counted.
  double versions = 0;

  static memory_use of(txn::engine& db) {
    memory_use m;
    for (const txn::table* t : db.tables()) {
      m.slots += static_cast<double>(t->records() * t->slot_bytes());
      m.index += static_cast<double>(t->index().bytes() + t->string_index().bytes());
    }
    m.versions = static_cast<double>(txn::version_pool::carved_bytes());
    return m;
  }
  memory_use operator-(const memory_use& before) const {
    return {slots - before.slots, index - before.index, versions - before.versions};
  }
  memory_use& operator+=(const memory_use& more) {
    slots += more.slots;
    index += more.index;
    versions += more.versions;
    return *this;
  }
  void describe(nlohmann::ordered_json& j, std::size_t transactions) const {
    const double n = static_cast<double>(std::max<std::size_t>(transactions, 1));
    j["grown_bytes_per_txn"] = {{"slots", slots / n}, {"index", index / n}, {"versions", versions / n}};
  }
};

}  // namespace

std::vector<nlohmann::ordered_json> run_tpcc_bench(const tpcc_options& o,
                                                   const std::function<void(const nlohmann::ordered_json&)>& each) {
  validate(o);
  const std::size_t most_threads = *std::max_element(o.threads.begin(), o.threads.end());
  auto current = std::make_unique<database>(o, most_threads);
  std::size_t loads = 1;  // of the database: each run's line says which load it ran on
  if (o.reserve_bytes > 0) {
    if (o.verbose) std::fprintf(stderr, "touching %zu MiB for versions...", o.reserve_bytes >> 20);
    txn::engine::reserve_version_memory(o.reserve_bytes);
    if (o.verbose) std::fprintf(stderr, " done\n");
  }
  const auto percent = o.mix.percent;
  // What the consistency checks found, in every database the runs used.
  std::vector<std::string> failures;
  const auto check = [&] {
    if (!o.check) return;
    for (auto& f : tpcc::check_consistency(*current->engine, current->tables, o.warehouses))
      failures.push_back(std::move(f));
  };

  struct config {
    std::size_t threads, batch;
    tpcc::mode mode;
    bool pipeline;
    double target_us;  // > 0: the batch is chosen at run time to keep p99 under it
    std::vector<double> txn_per_s;
    tpcc::tally total;
    log_use log;
    chosen_groups groups;
    auto_choices chosen;
    memory_use grown;

    config(std::size_t t, std::size_t b, tpcc::mode m, bool p, double target)
        : threads(t), batch(b), mode(m), pipeline(p), target_us(target) {}
  };
  const auto describe = [&](const config& cfg) {
    nlohmann::ordered_json j;
    j["bench"] = "tpcc";
    j["warehouses"] = o.warehouses;
    j["inline_values"] = o.inline_values;
    j["mix"] = o.mix.name;
    if (o.mix.percent[static_cast<std::size_t>(tpcc::kind::q2)] > 0) j["suppliers"] = o.suppliers;
    j["threads"] = cfg.threads;
    if (cfg.target_us > 0) {
      j["latency_target_us"] = cfg.target_us;
    } else if (tpcc::interleaves(cfg.mode) && cfg.batch == auto_batch) {
      j["batch"] = "auto";
    } else {
      j["batch"] = tpcc::interleaves(cfg.mode) ? cfg.batch : 1;
    }
    j["scheduler"] = tpcc::interleaves(cfg.mode) ? (cfg.pipeline ? "pipeline" : "batch") : "sequential";
    j["isolation"] = o.isolation;
    j["reserve_mib"] = o.reserve_bytes >> 20;
    j["mode"] = tpcc::mode_name(cfg.mode);
    j["seconds"] = o.seconds;
    j["repeat"] = o.repeat;
    j["reload"] = o.reload;
    j["load_seconds"] = current->load_seconds;
    j["load_warehouses_per_s"] = o.warehouses / current->load_seconds;
    return j;
  };
  // Counts and latency, in all and by kind (TPC-C's limits are on each
  // kind's 90th percentile).
  const auto add_counts = [&](nlohmann::ordered_json& j, tpcc::tally& t, const log_use& log,
                              const chosen_groups& groups, const auto_choices& chosen) {
    groups.describe(j);
    chosen.describe(j);
    std::size_t commits = 0, conflicts = 0, failures_ssn = 0;
    std::vector<float> all;
    for (std::size_t k = 0; k < tpcc::kinds; ++k) {
      if (percent[k] == 0) continue;
      commits += t.commits[k] + t.rollbacks[k];
      conflicts += t.write_conflicts[k];
      failures_ssn += t.serialization_failures[k];
      all.insert(all.end(), t.latency_us[k].begin(), t.latency_us[k].end());
      j[tpcc::kind_name(tpcc::kind(k))] = {{"commits", t.commits[k]},
                                           {"rollbacks", t.rollbacks[k]},
                                           {"aborts", t.write_conflicts[k] + t.serialization_failures[k]},
                                           {"write_conflicts", t.write_conflicts[k]},
                                           {"serialization_failures", t.serialization_failures[k]},
                                           {"latency_us", latency_summary(t.latency_us[k])}};
    }
    j["commits"] = commits;
    j["aborts"] = conflicts + failures_ssn;
    j["write_conflicts"] = conflicts;
    j["serialization_failures"] = failures_ssn;
    j["retry"] = o.retries;
    j["retries"] = t.retries;
    j["latency_us"] = latency_summary(all);
    j["p50_us"] = j["latency_us"]["p50"];
    j["p99_us"] = j["latency_us"]["p99"];
    describe_log(j, o.durability, log, commits);
  };
  std::vector<config> configs;
  for (std::size_t threads : o.threads) {
    for (std::size_t batch : o.batches) {
      for (scheduler_choice s : o.schedulers) {
        for (tpcc::mode m : o.modes) {
          // No batch or scheduler to vary for the modes that run in order.
          if (!tpcc::interleaves(m) && (batch != o.batches.front() || s != o.schedulers.front())) continue;
          configs.push_back(config(threads, batch, m, s == scheduler_choice::pipeline, 0));
        }
      }
    }
    for (double target : o.latency_targets_us) {
      for (scheduler_choice s : o.schedulers) {
        for (tpcc::mode m : o.modes) {
          if (tpcc::interleaves(m))
            configs.push_back(config(threads, 0, m, s == scheduler_choice::pipeline, target));
        }
      }
    }
  }
  // Configurations take turns, repeat after repeat; the median is reported.
  // Every run grows the database (New-Order adds orders and their lines), so
  // each repeat starts further into the list, spreading the starts evenly
  // over it: none always runs first, on the smallest database (at one
  // warehouse the first of three modes ran 1.2x faster than the same mode
  // run second), nor always last (a start one later per repeat left latency
  // targets listed after six batches at the end of all three repeats).
  for (std::size_t r = 0; r < o.repeat; ++r) {
    const std::size_t start = r * configs.size() / o.repeat;  // --repeat is at most 100
    for (std::size_t turn = 0; turn < configs.size(); ++turn) {
      config& cfg = configs[(start + turn) % configs.size()];
      if (o.reload && (r > 0 || turn > 0)) {
        check();
        current.reset();  // freed before the next is loaded: one database in memory at a time
        current = std::make_unique<database>(o, most_threads);
        ++loads;
      }
      txn::engine& db = *current->engine;
      if (o.verbose) {
        std::fprintf(stderr, "\rrepeat %zu/%zu: %s, %zu threads, %s%s ...        ", r + 1, o.repeat,
                     tpcc::mode_name(cfg.mode), cfg.threads, batch_label(cfg.batch, cfg.target_us).c_str(),
                     cfg.pipeline ? ", pipeline" : "");
      }
      const bool commits_wait = db.durability() == durability::durability_mode::sync;
      std::vector<std::optional<latency_target_scheduler>> tuned(cfg.threads);
      if (cfg.target_us > 0) {
        for (auto& s : tuned) s.emplace(target_options(cfg.target_us, commits_wait), cfg.pipeline);
      }
      std::vector<std::optional<txn::contention_scheduler>> contended(cfg.threads);
      if (cfg.target_us == 0 && cfg.batch == auto_batch && tpcc::interleaves(cfg.mode)) {
        for (auto& s : contended) s.emplace(auto_batch_options(commits_wait), cfg.pipeline);
      }
      std::vector<tpcc::tally> tallies(cfg.threads);
      std::vector<tpcc::worker_state> workers;
      for (std::size_t t = 0; t < cfg.threads; ++t) {
        workers.emplace_back(current->shared, static_cast<std::uint32_t>(t + 1), o.seed + 7919 * (r + 1) + t);
        workers.back().deferred_acks = o.durability.deferred_acks();
      }
      const log_meter meter(db);
      const memory_use before = memory_use::of(db);
      // One epoch per chunk, the same under every durability (ycsb_bench.cpp).
      // Under sync a blocking mode waits up to a group window a transaction
      // (ycsb_bench.cpp): a chunk of one.
      const bool blocks = !tpcc::interleaves(cfg.mode) && commits_wait;
      const std::size_t chunk = cfg.target_us > 0 ? tuned_chunk : blocks ? 1 : 16 * chunk_batch(cfg.batch);
      const std::vector<double> elapsed = run_threads_for(cfg.threads, o.seconds, [&](std::size_t t) {
        const epoch_guard epoch = db.enter(*current->members[t]);
        tpcc::run_chunk(cfg.mode, workers[t], cfg.batch, cfg.pipeline, o.retries, chunk, percent, tallies[t],
                        tuned[t] ? &*tuned[t] : nullptr, contended[t] ? &*contended[t] : nullptr);
      });
      // Deferred acknowledgements: a commit counts once acknowledged within
      // the run; the rest are waited for here, outside the timed part.
      for (tpcc::worker_state& w : workers) static_cast<void>(w.unacknowledged.settle(db));
      const memory_use grown = memory_use::of(db) - before;
      double txn_per_s = 0;
      tpcc::tally run;
      for (std::size_t t = 0; t < cfg.threads; ++t) {
        txn_per_s += static_cast<double>(tallies[t].done()) / elapsed[t];
        run.add(tallies[t]);
      }
      cfg.grown += grown;
      cfg.txn_per_s.push_back(txn_per_s);
      cfg.total.add(run);
      log_use log;
      log.add(meter);
      cfg.log.add(log);
      chosen_groups groups;
      for (const auto& s : tuned) {
        if (s) groups.add(s->controller());
      }
      cfg.groups.add(groups);
      auto_choices chosen;
      for (const auto& s : contended) {
        if (s) chosen.add(s->controller());
      }
      cfg.chosen.add(chosen);
      // This repetition's line, printed now: an interrupted sweep keeps it.
      nlohmann::ordered_json j = describe(cfg);
      j["run_type"] = "repetition";
      j["repetition"] = r + 1;
      j["load"] = loads;
      j["txn_per_s"] = txn_per_s;
      add_counts(j, run, log, groups, chosen);
      grown.describe(j, run.done());
      if (each) each(j);
    }
  }
  if (o.verbose) std::fprintf(stderr, "\r%70s\r", "");

  check();

  std::vector<nlohmann::ordered_json> rows;
  for (config& cfg : configs) {
    nlohmann::ordered_json j = describe(cfg);
    j["run_type"] = "aggregate";
    add_aggregates(j, "txn_per_s", cfg.txn_per_s);
    add_counts(j, cfg.total, cfg.log, cfg.groups, cfg.chosen);
    cfg.grown.describe(j, cfg.total.done());
    if (o.check) j["consistent"] = failures.empty();
    if (each) each(j);
    rows.push_back(std::move(j));
  }
  if (!failures.empty()) {
    std::string all;
    for (const auto& f : failures) all += "\n  " + f;
    throw std::runtime_error("consistency checks failed:" + all);
  }
  return rows;
}

}  // namespace weave::bench
