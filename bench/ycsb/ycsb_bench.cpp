#include "bench/ycsb/ycsb_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <span>

#include "bench/workload/acknowledgements.hpp"
#include "bench/workload/auto_batch.hpp"
#include "bench/workload/key_chooser.hpp"
#include "bench/workload/latency_target.hpp"
#include "bench/workload/limits.hpp"
#include "bench/workload/median.hpp"
#include "bench/workload/nested_ops.hpp"
#include "bench/workload/parallel.hpp"
#include "bench/workload/prefetch_policy.hpp"
#include "bench/workload/report.hpp"
#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/latency_target_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/memory/saturating.hpp"
#include "weave/txn/contention_scheduler.hpp"
#include "weave/txn/engine.hpp"

namespace weave::bench {

using clock_type = std::chrono::steady_clock;
using txn::status;

ycsb_mode parse_ycsb_mode(const std::string& name) {
  if (name == "naive") return ycsb_mode::naive;
  if (name == "prefetch") return ycsb_mode::prefetch;
  if (name == "multi-key") return ycsb_mode::multi_key;
  if (name == "coro-nested") return ycsb_mode::coro_nested;
  if (name == "coro") return ycsb_mode::coro;
  throw std::invalid_argument(
      fmt::format("unknown mode '{}' (naive, prefetch, multi-key, coro-nested or coro)", name));
}

const char* ycsb_mode_name(ycsb_mode m) {
  switch (m) {
    case ycsb_mode::naive: return "naive";
    case ycsb_mode::prefetch: return "prefetch";
    case ycsb_mode::multi_key: return "multi-key";
    case ycsb_mode::coro_nested: return "coro-nested";
    case ycsb_mode::coro: return "coro";
  }
  return "?";
}

bool interleaves(ycsb_mode m) { return m == ycsb_mode::coro || m == ycsb_mode::coro_nested; }

ycsb_workload parse_ycsb_workload(const std::string& name) {
  if (name == "read") return ycsb_workload::read;
  if (name == "update") return ycsb_workload::update;
  if (name == "rmw") return ycsb_workload::rmw;
  if (name == "mixed") return ycsb_workload::mixed;
  if (name == "scan") return ycsb_workload::scan;
  throw std::invalid_argument(fmt::format("unknown workload '{}' (read, update, rmw, mixed or scan)", name));
}

const char* ycsb_workload_name(ycsb_workload w) {
  switch (w) {
    case ycsb_workload::read: return "read";
    case ycsb_workload::update: return "update";
    case ycsb_workload::rmw: return "rmw";
    case ycsb_workload::mixed: return "mixed";
    case ycsb_workload::scan: return "scan";
  }
  return "?";
}

void validate(const ycsb_options& o) {
  validate(o.durability);
  if (o.records == 0) throw std::invalid_argument("--records must be at least 1");
  if (o.key_bytes != 8) {
    // Byte-string keys: "user" and the record number in zero-padded digits.
    if (o.key_bytes > byte_key::capacity) {
      throw std::invalid_argument(fmt::format("--key-bytes must be 8 (integers) or up to {}", byte_key::capacity));
    }
    const std::size_t digits = fmt::formatted_size("{}", o.records - 1);
    if (o.key_bytes < 4 + digits) {
      throw std::invalid_argument(
          fmt::format("--key-bytes {} is too short for {} records: string keys are 'user' and {} digits", o.key_bytes,
                      o.records, digits));
    }
  }
  if (o.value_bytes < 1 || o.value_bytes > 1000) throw std::invalid_argument("--value-bytes must be 1..1000");
  if (o.ops_per_txn < 1 || o.ops_per_txn > 64) throw std::invalid_argument("--ops-per-txn must be 1..64");
  if (o.workload == ycsb_workload::mixed && o.ops_per_txn < 2) {
    throw std::invalid_argument("the mixed workload needs at least 2 operations per transaction");
  }
  if (o.scan_length < 1) throw std::invalid_argument("--scan-length must be at least 1");
  if (o.workload == ycsb_workload::scan && o.scan_length > o.records) {
    throw std::invalid_argument("--scan-length must not exceed --records");
  }
  if (!(o.theta == 0 || (o.theta > 0 && o.theta < 1))) throw std::invalid_argument("--theta must be 0 or in (0, 1)");
  if (o.threads.empty() || o.batches.empty() || o.modes.empty()) throw std::invalid_argument("nothing to run");
  for (std::size_t t : o.threads)
    if (t < 1 || t > 256) throw std::invalid_argument(fmt::format("--threads {} is outside 1..256", t));
  for (std::size_t b : o.batches)
    if (b != auto_batch && (b < 1 || b > detail::max_group)) {
      throw std::invalid_argument(fmt::format("--batch {} is outside 1..256", b));
    }
  check_seconds(o.seconds);
  check_repeat(o.repeat);
  for (double t : o.latency_targets_us) check_latency_target(t);
  check_schedulers(o.schedulers);
  // What only the interleaved modes use needs one of them.
  const bool none_interleaves = std::none_of(o.modes.begin(), o.modes.end(), interleaves);
  if (runs_pipeline(o.schedulers) && none_interleaves) {
    throw std::invalid_argument(
        "the pipeline (--pipeline, --scheduler pipeline) needs an interleaved mode (coro or coro-nested)");
  }
  if (o.durability.deferred_acks() && none_interleaves) {
    throw std::invalid_argument(
        "--acks deferred needs an interleaved mode (coro or coro-nested): the others wait for each commit");
  }
  if (!o.latency_targets_us.empty()) {
    if (none_interleaves) {
      throw std::invalid_argument("--latency-target-us needs an interleaved mode (coro or coro-nested)");
    }
    if (o.durability.deferred_acks()) {
      throw std::invalid_argument(
          "--latency-target-us with --acks deferred would steer by in-memory commits, not acknowledgements");
    }
  }
  if (o.isolation != "si" && o.isolation != "ssn") throw std::invalid_argument(fmt::format("unknown isolation '{}' (si or ssn)", o.isolation));
}

std::size_t inline_value_bytes(const ycsb_options& o) {
  return o.inline_values && o.value_bytes <= txn::table::max_inline_value_bytes ? o.value_bytes : 0;
}

std::size_t estimated_bytes(const ycsb_options& o) {
  // A version (header and value), its indirection slot, its index entry in 2/3-full leaves;
  // or a slot with the version in it.
  const std::size_t entry = o.key_bytes == 8 ? 16 : byte_key::words * 8 + 8;
  const std::size_t inline_bytes = inline_value_bytes(o);
  const std::size_t record =
      inline_bytes == 0 ? sizeof(txn::version) + o.value_bytes + 8 : txn::table::slot_bytes_for(inline_bytes);
  const std::size_t per_record = record + entry * 3 / 2 + 8;
  return saturating_mul(o.records, per_record);
}

namespace {

// One per thread, each on its own cache lines: counters bumped by every
// transaction must not bounce between cores.
struct alignas(64) worker {
  std::vector<std::uint64_t> keys;  // a pool of chosen keys, used round-robin
  std::size_t cursor = 0;
  std::vector<float> latency_us;
  std::size_t commits = 0, write_conflicts = 0, serialization_failures = 0, retries = 0;
  std::uint64_t checksum = 0;
  // Deferred acknowledgements: counted as commits when made; their latency
  // ends when acknowledged.
  pending_acknowledgements unacknowledged;
  // The records this worker's running transactions write: a sibling that
  // writes one too begins after its holder commits (Zipfian keys collide).
  // The worker's own, not shared with the others: with every transaction
  // holding ten keys from begin to commit, waiting across workers for the
  // hottest key costs more than the collisions it saves (docs/results/contention.md).
  txn::reservations reserved;
  std::vector<std::uint64_t> tokens;  // scratch: reserve() copies them
  // Under a latency target: the scheduler that chooses the batch, kept
  // across chunks so that it keeps learning.
  std::optional<latency_target_scheduler> tuned;
  // Under --batch auto: the scheduler whose batch follows the conflicts,
  // kept likewise.
  std::optional<txn::contention_scheduler> contended;

  void acknowledge(const txn::engine& db) {
    unacknowledged.acknowledge(db, [&](std::uint32_t, float us) { latency_us.push_back(us); });
  }
};

struct context {
  const ycsb_options& o;
  txn::engine& db;
  txn::table& table;
};

// A record's byte-string key, made on the stack: "user" and its number in
// key_bytes - 4 zero-padded digits, so that key order is number order.
class string_key {
 public:
  string_key(std::uint64_t n, std::size_t bytes) : size_(static_cast<unsigned char>(bytes)) {
    std::memcpy(bytes_, "user", 4);
    for (std::size_t i = bytes; i > 4; --i, n /= 10) bytes_[i - 1] = static_cast<char>('0' + n % 10);
  }
  operator std::string_view() const noexcept { return {bytes_, size_}; }

 private:
  char bytes_[byte_key::capacity];
  unsigned char size_;
};

// The key of record n as the table has it.
template <bool StringKeys>
auto record_key(const context& c, std::uint64_t n) {
  if constexpr (StringKeys) {
    return string_key(n, c.o.key_bytes);
  } else {
    return n;
  }
}

std::string value_for(std::uint64_t key, std::size_t bytes, std::uint64_t salt) {
  std::string v(bytes, '\0');
  const std::uint64_t x = key ^ salt;
  std::memcpy(v.data(), &x, std::min(bytes, sizeof x));
  return v;
}

std::uint64_t first_word(std::string_view v) {
  std::uint64_t x = 0;
  std::memcpy(&x, v.data(), std::min(v.size(), sizeof x));
  return x;
}

// One YCSB transaction over keys[0, ops_per_txn), run again after an abort
// up to --retry times, as an application would; how its last run ended. Its
// latency spans the runs. (The runs loop inside one coroutine: a nested
// task per run would cost a frame per transaction.)
template <class Policy, bool Nested, bool StringKeys>
task<txn::commit_status> transaction_body(const context& c, worker& w, const std::uint64_t* keys, bool multi_key) {
  const auto key = [&](std::size_t i) { return record_key<StringKeys>(c, keys[i]); };
  const auto start = clock_type::now();
  const std::size_t n = c.o.ops_per_txn;
  // mixed: 2 read-modify-writes, then reads
  const std::size_t writes = c.o.workload == ycsb_workload::mixed ? 2
                             : c.o.workload == ycsb_workload::read || c.o.workload == ycsb_workload::scan ? 0
                                                                                                          : n;
  const bool reads_first = c.o.workload != ycsb_workload::update;  // blind writes read nothing
  txn::commit_status result = txn::commit_status::write_conflict;
  for (std::size_t run = 0;; ++run) {
    w.tokens.clear();
    for (std::size_t i = 0; i < writes; ++i) w.tokens.push_back(txn::reservations::token(c.table, keys[i]));
    txn::reservation mine;
    if (writes > 0) mine = co_await w.reserved.reserve<Policy>(w.tokens);
    txn::transaction t = c.db.begin(std::move(mine));
    bool ok = true;
    if (c.o.workload == ycsb_workload::scan) {
      std::vector<std::pair<txn::scan_key_t<decltype(key(0))>, std::string_view>> out;
      for (std::size_t i = 0; i < n; ++i) {
        out.clear();
        co_await t.scan<Policy>(c.table, key(i), c.o.scan_length, out);
        for (const auto& [k, v] : out) w.checksum += first_word(v);
      }
    } else if (multi_key && reads_first) {
      // All reads at once, interleaved inside multi_get; then the writes.
      const auto got = [&](std::size_t, std::optional<std::string_view> v) {
        if (v) w.checksum += first_word(*v);
      };
      if constexpr (StringKeys) {
        std::vector<string_key> named;
        for (std::size_t i = 0; i < n; ++i) named.push_back(key(i));
        t.multi_get(c.table, named, got);
      } else {
        t.multi_get(c.table, std::span<const std::uint64_t>(keys, n), got);
      }
      for (std::size_t i = 0; i < writes && ok; ++i) {
        ok = co_await t.put<Policy>(c.table, key(i), value_for(keys[i], c.o.value_bytes, w.checksum)) == status::ok;
      }
    } else {
      for (std::size_t i = 0; i < n && ok; ++i) {
        if (reads_first) {
          const auto v = Nested ? co_await get_nested<Policy>(t, c.table, key(i)) : co_await t.get<Policy>(c.table, key(i));
          if (v) w.checksum += first_word(*v);
        }
        if (i < writes) {
          const std::string value = value_for(keys[i], c.o.value_bytes, w.checksum);
          const status s = Nested ? co_await put_nested<Policy>(t, c.table, key(i), value)
                                  : co_await t.put<Policy>(c.table, key(i), value);
          ok = s == status::ok;
        }
      }
    }
    if (ok && Policy::suspends && c.o.durability.deferred_acks()) {
      const txn::deferred_commit d = t.commit_deferred();
      result = d.status;
      if (result == txn::commit_status::committed && d.durable_at != 0) {
        w.unacknowledged.add(d.durable_at, start);  // its latency ends when it is acknowledged
        co_return result;
      }
    } else if (ok) {
      result = co_await t.commit<Policy>();
    } else {
      t.abort();
      result = txn::commit_status::write_conflict;
    }
    if (result == txn::commit_status::committed || run == c.o.retries) break;
    ++w.retries;
  }
  w.latency_us.push_back(
      static_cast<float>(std::chrono::duration<double, std::micro>(clock_type::now() - start).count()));
  co_return result;
}

template <bool Nested, bool StringKeys, class Scheduler>
void run_chunk(const context& c, worker& w, Scheduler&& scheduler, std::size_t txns, bool multi_key) {
  const std::size_t n = c.o.ops_per_txn;
  const std::size_t base = w.cursor;
  w.cursor = (w.cursor + txns * n) % (w.keys.size() - n);
  scheduler.run(
      txns,
      [&](auto policy, std::size_t i) {
        if (!w.unacknowledged.empty()) w.acknowledge(c.db);
        return transaction_body<decltype(policy), Nested, StringKeys>(c, w, w.keys.data() + (base + i * n) % (w.keys.size() - n),
                                                          multi_key);
      },
      [&](std::size_t, txn::commit_status s) {
        switch (s) {
          case txn::commit_status::committed: ++w.commits; break;
          case txn::commit_status::write_conflict: ++w.write_conflicts; break;
          case txn::commit_status::serialization_failure: ++w.serialization_failures; break;
          case txn::commit_status::log_failure: pending_acknowledgements::refused();
        }
      });
}

// Never lose on cached data: over a table that stays cached nothing would
// suspend, and the batch machinery would only cost, so the chunk runs in
// order (with plain loads). Unless commits wait for the disk (sync): then
// each would block the worker, and parking them is what pays.
bool runs_in_order(const txn::engine& db, const txn::table& table) {
  return table.resident() && db.durability() != durability::durability_mode::sync;
}

template <bool Nested, bool S>
void run_interleaved(const context& c, worker& w, std::size_t batch, bool pipeline, std::size_t txns) {
  if (runs_in_order(c.db, c.table)) {
    run_chunk<Nested, S>(c, w, sequential_scheduler{}, txns, false);
  } else if (w.tuned) {
    run_chunk<Nested, S>(c, w, *w.tuned, txns, false);
  } else if (w.contended) {
    run_chunk<Nested, S>(c, w, *w.contended, txns, false);
  } else if (pipeline) {
    run_chunk<Nested, S>(c, w, interleaved_scheduler{batch}, txns, false);
  } else {
    run_chunk<Nested, S>(c, w, batched_scheduler{batch}, txns, false);
  }
}

template <bool S>
void run_mode(const context& c, worker& w, ycsb_mode mode, std::size_t batch, bool pipeline,
              std::size_t txns) {
  switch (mode) {
    case ycsb_mode::naive: run_chunk<false, S>(c, w, sequential_scheduler{}, txns, false); break;
    case ycsb_mode::prefetch: run_chunk<false, S>(c, w, basic_sequential_scheduler<prefetch_policy>{}, txns, false); break;
    case ycsb_mode::multi_key: run_chunk<false, S>(c, w, sequential_scheduler{}, txns, true); break;
    case ycsb_mode::coro_nested:
      run_interleaved<true, S>(c, w, batch, pipeline, txns);
      break;
    case ycsb_mode::coro:
      run_interleaved<false, S>(c, w, batch, pipeline, txns);
      break;
  }
}

void load(const ycsb_options& o, txn::engine& db, txn::table& table) {
  constexpr std::size_t per_txn = 10'000;
  for (std::size_t first = 0; first < o.records; first += per_txn) {
    txn::transaction t = db.begin();
    const std::size_t last = std::min(o.records, first + per_txn);
    for (std::size_t k = first; k < last; ++k) {
      const std::string value = value_for(k, o.value_bytes, 0);
      const status s = o.key_bytes == 8 ? sync_wait(t.insert<sequential_policy>(table, k, value))
                                        : sync_wait(t.insert<sequential_policy>(table, string_key(k, o.key_bytes), value));
      if (s != status::ok) {
        throw std::runtime_error(fmt::format("loading key {} failed", k));
      }
    }
    if (t.commit() != txn::commit_status::committed) throw std::runtime_error("a loading transaction did not commit");
    if (o.verbose && (first / per_txn) % 100 == 0) {
      std::fprintf(stderr, "\rloading %zu records: %3.0f%%", o.records,
                   100.0 * static_cast<double>(last) / static_cast<double>(o.records));
    }
  }
  if (o.verbose) std::fprintf(stderr, "\rloading %zu records: done\n", o.records);
}

}  // namespace

std::vector<nlohmann::ordered_json> run_ycsb_bench(const ycsb_options& o,
                                                   const std::function<void(const nlohmann::ordered_json&)>& each) {
  validate(o);
  const std::unique_ptr<txn::engine> owned =
      make_engine(o.durability, o.isolation == "ssn" ? txn::isolation::serializable : txn::isolation::snapshot);
  txn::engine& db = *owned;
  txn::table& table =
      db.create_table("usertable", o.key_bytes == 8 ? txn::key_kind::integer : txn::key_kind::bytes,
                      o.records, inline_value_bytes(o));
  const auto load_start = clock_type::now();
  load(o, db, table);
  const double load_seconds = std::chrono::duration<double>(clock_type::now() - load_start).count();
  // The load's log goes: the runs start from a checkpoint, as a database would.
  if (db.log() != nullptr) db.checkpoint();
  const context c{o, db, table};

  // Workers keep their participant across runs.
  std::vector<participant*> members;
  for (std::size_t t = 0; t < *std::max_element(o.threads.begin(), o.threads.end()); ++t) members.push_back(&db.join());

  struct config {
    std::size_t threads, batch;
    ycsb_mode mode;
    bool pipeline;
    double target_us;  // > 0: the batch is chosen at run time to keep p99 under it
    std::vector<double> txn_per_s;
    std::size_t commits = 0, write_conflicts = 0, serialization_failures = 0, retries = 0;
    std::vector<float> latency;
    log_use log;
    chosen_groups groups;
    auto_choices chosen;

    config(std::size_t t, std::size_t b, ycsb_mode m, bool p, double target)
        : threads(t), batch(b), mode(m), pipeline(p), target_us(target) {}
  };
  // The fields that say what a configuration ran, then its counts and latency.
  const auto describe = [&](const config& cfg) {
    const bool batched = interleaves(cfg.mode);
    nlohmann::ordered_json j;
    j["bench"] = "ycsb";
    j["records"] = o.records;
    j["key_bytes"] = o.key_bytes;
    j["value_bytes"] = o.value_bytes;
    j["inline_values"] = inline_value_bytes(o) != 0;
    j["workload"] = ycsb_workload_name(o.workload);
    j["ops_per_txn"] = o.ops_per_txn;
    if (o.workload == ycsb_workload::scan) j["scan_length"] = o.scan_length;
    j["theta"] = o.theta;
    j["threads"] = cfg.threads;
    if (cfg.target_us > 0) {
      j["latency_target_us"] = cfg.target_us;
    } else if (batched && cfg.batch == auto_batch) {
      j["batch"] = "auto";
    } else {
      j["batch"] = batched ? cfg.batch : 1;
    }
    j["scheduler"] = !batched || runs_in_order(db, table) ? "sequential"
                     : cfg.pipeline                       ? "pipeline"
                                                          : "batch";
    j["isolation"] = o.isolation;
    j["mode"] = ycsb_mode_name(cfg.mode);
    j["seconds"] = o.seconds;
    j["repeat"] = o.repeat;
    j["load_seconds"] = load_seconds;
    j["load_records_per_s"] = static_cast<double>(o.records) / load_seconds;
    return j;
  };
  const auto add_counts = [&](nlohmann::ordered_json& j, const config& cfg) {
    j["commits"] = cfg.commits;
    j["aborts"] = cfg.write_conflicts + cfg.serialization_failures;
    j["write_conflicts"] = cfg.write_conflicts;
    j["serialization_failures"] = cfg.serialization_failures;
    j["retry"] = o.retries;
    j["retries"] = cfg.retries;
    describe_log(j, o.durability, cfg.log, cfg.commits);
    cfg.groups.describe(j);
    cfg.chosen.describe(j);
  };
  std::vector<config> configs;
  // Over a cached table the interleaved modes run in order too: under one
  // batch size and scheduler only, or the same runs would be made under each.
  const bool in_order = runs_in_order(db, table);
  if (in_order && std::any_of(o.modes.begin(), o.modes.end(), interleaves)) {
    // Said even under --quiet: the rows' "scheduler" says it too, but a
    // batch or scheduler asked for and not used should not pass unnoticed.
    std::fprintf(stderr,
                 "weave: the table stays cached, so the interleaved modes run in order (nothing would suspend): "
                 "each runs once, under the first batch size and scheduler\n");
  }
  for (std::size_t threads : o.threads) {
    for (std::size_t batch : o.batches) {
      for (scheduler_choice s : o.schedulers) {
        if (in_order && (s != o.schedulers.front() || batch != o.batches.front())) continue;
        for (ycsb_mode mode : o.modes) {
          // Batch and scheduler mean nothing to the modes that run in order.
          const bool batched = interleaves(mode);
          if (!batched && (batch != o.batches.front() || s != o.schedulers.front())) continue;
          configs.push_back(config(threads, batch, mode, s == scheduler_choice::pipeline, 0));
        }
      }
    }
    for (double target : o.latency_targets_us) {
      for (scheduler_choice s : o.schedulers) {
        if (in_order && s != o.schedulers.front()) continue;
        for (ycsb_mode mode : o.modes) {
          if (interleaves(mode))
            configs.push_back(config(threads, 0, mode, s == scheduler_choice::pipeline, target));
        }
      }
    }
  }
  // Every configuration runs once per repeat, in turn, so that a slow spell
  // of the machine hits all of them alike; the median is reported.
  for (std::size_t r = 0; r < o.repeat; ++r) {
    for (config& cfg : configs) {
      if (o.verbose) {
        std::fprintf(stderr, "\rrepeat %zu/%zu: %s, %zu threads, %s%s ...        ", r + 1, o.repeat,
                     ycsb_mode_name(cfg.mode), cfg.threads, batch_label(cfg.batch, cfg.target_us).c_str(),
                     cfg.pipeline ? ", pipeline" : "");
      }
      std::vector<worker> workers(cfg.threads);
      const bool commits_wait = db.durability() == durability::durability_mode::sync;
      for (std::size_t t = 0; t < cfg.threads; ++t) {
        if (cfg.target_us > 0) {
          workers[t].tuned.emplace(target_options(cfg.target_us, commits_wait), cfg.pipeline);
        } else if (cfg.batch == auto_batch && interleaves(cfg.mode)) {
          workers[t].contended.emplace(auto_batch_options(commits_wait), cfg.pipeline);
        }
        key_chooser chooser(o.records, o.theta > 0 ? key_chooser::distribution::zipf : key_chooser::distribution::uniform,
                            o.theta > 0 ? o.theta : 0.5, o.seed + t + 1000 * r);
        workers[t].keys.resize(std::max<std::size_t>(1 << 18, 4 * o.ops_per_txn));
        for (auto& k : workers[t].keys) k = chooser.next();
      }
      const log_meter meter(db);
      // One epoch per chunk, the same under every durability: a longer
      // epoch frees versions later and costs more than the wait for the
      // last commits' log group that ends a chunk under sync.
      // A mode that blocks on each commit under sync waits up to a group
      // window a transaction: a chunk of one, or a long window would run
      // past the time asked for by 64 windows.
      const bool blocks = !interleaves(cfg.mode) && commits_wait;
      const std::size_t chunk = cfg.target_us > 0 ? tuned_chunk : blocks ? 1 : 64 * chunk_batch(cfg.batch);
      const std::vector<double> elapsed = run_threads_for(cfg.threads, o.seconds, [&](std::size_t t) {
        // One epoch per chunk of transactions: old versions are pruned and freed as it goes.
        const epoch_guard epoch = db.enter(*members[t]);
        if (o.key_bytes == 8) {
          run_mode<false>(c, workers[t], cfg.mode, cfg.batch, cfg.pipeline, chunk);
        } else {
          run_mode<true>(c, workers[t], cfg.mode, cfg.batch, cfg.pipeline, chunk);
        }
      });
      // Deferred acknowledgements: a commit counts once acknowledged within
      // the run; the rest are waited for here, outside the timed part.
      for (worker& w : workers) w.commits -= w.unacknowledged.settle(db);
      // This repetition's line, printed now: an interrupted sweep keeps it.
      config run(cfg.threads, cfg.batch, cfg.mode, cfg.pipeline, cfg.target_us);
      run.log.add(meter);
      for (const worker& w : workers) {
        if (w.tuned) run.groups.add(w.tuned->controller());
        if (w.contended) run.chosen.add(w.contended->controller());
      }
      cfg.groups.add(run.groups);
      cfg.chosen.add(run.chosen);
      double txn_per_s = 0;
      for (std::size_t t = 0; t < cfg.threads; ++t) {
        run.commits += workers[t].commits;
        run.write_conflicts += workers[t].write_conflicts;
        run.serialization_failures += workers[t].serialization_failures;
        run.retries += workers[t].retries;
        txn_per_s += static_cast<double>(workers[t].commits) / elapsed[t];
        run.latency.insert(run.latency.end(), workers[t].latency_us.begin(), workers[t].latency_us.end());
      }
      cfg.txn_per_s.push_back(txn_per_s);
      cfg.commits += run.commits;
      cfg.write_conflicts += run.write_conflicts;
      cfg.serialization_failures += run.serialization_failures;
      cfg.retries += run.retries;
      cfg.log.add(run.log);
      cfg.latency.insert(cfg.latency.end(), run.latency.begin(), run.latency.end());
      nlohmann::ordered_json j = describe(run);
      j["run_type"] = "repetition";
      j["repetition"] = r + 1;
      j["txn_per_s"] = txn_per_s;
      add_counts(j, run);
      j["latency_us"] = latency_summary(run.latency);
      if (each) each(j);
    }
  }

  // One aggregate line per configuration, over all its repetitions.
  std::vector<nlohmann::ordered_json> rows;
  for (config& cfg : configs) {
    nlohmann::ordered_json j = describe(cfg);
    j["run_type"] = "aggregate";
    add_aggregates(j, "txn_per_s", cfg.txn_per_s);
    add_counts(j, cfg);
    j["latency_us"] = latency_summary(cfg.latency);
    j["p50_us"] = j["latency_us"]["p50"];
    j["p99_us"] = j["latency_us"]["p99"];
    if (each) each(j);
    rows.push_back(std::move(j));
  }
  if (o.verbose) std::fprintf(stderr, "\r%60s\r", "");
  return rows;
}

}  // namespace weave::bench
