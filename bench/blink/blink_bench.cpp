#include "bench/blink/blink_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>

#include "bench/workload/key_chooser.hpp"
#include "bench/workload/report.hpp"
#include "bench/workload/parallel.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/index/olc_btree.hpp"
#include "weave/tasks/blink_tree.hpp"
#include "bench/workload/limits.hpp"
#include "weave/memory/machine.hpp"
#include "weave/memory/saturating.hpp"

namespace weave::bench {

using clock_type = std::chrono::steady_clock;
using tasks::sync_kind;

blink_workload parse_blink_workload(const std::string& name) {
  if (name == "insert") return blink_workload::insert;
  if (name == "a") return blink_workload::a;
  if (name == "c") return blink_workload::c;
  throw std::invalid_argument(fmt::format("unknown workload '{}' (insert, a or c)", name));
}

const char* blink_workload_name(blink_workload w) {
  switch (w) {
    case blink_workload::insert: return "insert";
    case blink_workload::a: return "a";
    case blink_workload::c: return "c";
  }
  return "?";
}

sync_kind parse_sync_kind(const std::string& name) {
  for (sync_kind s : {sync_kind::latch, sync_kind::rwlatch, sync_kind::schedule, sync_kind::optimistic,
                      sync_kind::optimistic_latch}) {
    if (name == tasks::to_string(s)) return s;
  }
  throw std::invalid_argument(fmt::format(
      "unknown synchronization '{}' (latch, rwlatch, schedule, optimistic or optimistic-latch)", name));
}

blink_baseline parse_blink_baseline(const std::string& name) {
  if (name == "threads") return blink_baseline::threads;
  if (name == "coro") return blink_baseline::coro;
  throw std::invalid_argument(fmt::format("unknown baseline '{}' (threads or coro)", name));
}

void validate(const blink_options& o) {
  if (o.records < 1 || o.records > (std::size_t{1} << 34)) throw std::invalid_argument("--records must be 1..16Gi");
  if (!(o.theta == 0 || (o.theta > 0 && o.theta < 1))) throw std::invalid_argument("--theta must be 0 or in (0, 1)");
  if (o.workers.empty() || o.prefetch_distances.empty() || o.syncs.empty()) throw std::invalid_argument("nothing to run");
  const std::size_t cpus = machine::allowed_cpus().size();
  for (std::size_t w : o.workers) {
    if (w < 1 || w > cpus) {
      throw std::invalid_argument(fmt::format("--workers {} is outside 1..{} (one per CPU this process may use)", w, cpus));
    }
  }
  for (std::size_t d : o.prefetch_distances) {
    if (d > 64) throw std::invalid_argument(fmt::format("--prefetch-distance {} is outside 0..64", d));
  }
  if (o.prefetch_lines.empty()) throw std::invalid_argument("nothing to run");
  for (std::size_t l : o.prefetch_lines) {
    if (l < 1 || l > tasks::blink_tree::node_lines) {
      throw std::invalid_argument(
          fmt::format("--prefetch-lines {} is outside 1..{}", l, tasks::blink_tree::node_lines));
    }
  }
  if (o.cached_kib.empty()) throw std::invalid_argument("nothing to run");
  for (std::size_t k : o.cached_kib) {
    if (k > (std::size_t{1} << 30))
      throw std::invalid_argument(fmt::format("--cached-kib {} is above 2^30", k));
    if (k != 0 && o.workload == blink_workload::insert) {
      // Counted on an empty tree, the root's level would be the leaves'.
      throw std::invalid_argument("--cached-kib is for a and c, which count the loaded tree's top");
    }
  }
  if (o.in_flight < 1 || o.in_flight > 4096) throw std::invalid_argument("--in-flight must be 1..4096");
  if (o.group < 1 || o.group > 256) throw std::invalid_argument("--group must be 1..256");
  check_seconds(o.seconds);
  check_repeat(o.repeat);
  for (blink_baseline b : o.baselines) {
    if (b == blink_baseline::coro && o.workload == blink_workload::insert) {
      throw std::invalid_argument("the coro baseline interleaves lookups and updates; it has no insert workload");
    }
  }
}

std::size_t estimated_bytes(const blink_options& o) {
  // Nodes about 70% full after scattered inserts: 1 KiB per 42 records in
  // the Blink-tree, 512 bytes per 21 in the baseline tree.
  const std::size_t tree = saturating_add(saturating_mul(o.records / 42, tasks::blink_tree::node_bytes), 1 << 20);
  return o.baselines.empty() ? tree : saturating_mul(2, tree);
}

namespace {

// Record i's key: scattered over the key space (below 2^63, so never the
// reserved key), and the value stored under it; updates store value + 1.
std::uint64_t record_key(std::uint64_t i) noexcept { return scramble(i) >> 1; }
std::uint64_t value_for(std::uint64_t key) noexcept { return key * 0x9E3779B97F4A7C15ull; }
bool plausible(std::uint64_t key, std::uint64_t value) noexcept {
  return value == value_for(key) || value == value_for(key) + 1;
}

class task_driver;

// What each client asks, made before the timed runs (as YCSB's replayed
// workload files are): Zipf sampling costs more than a cached lookup, and
// would otherwise be timed with the tree. A client cycles through its
// stream; 2^21 operations each (fewer on small trees, four per record)
// reach far more leaves than the caches hold, so a second pass finds
// nothing warmer than the first. Keys are below 2^63; the top bit marks an
// update.
using operation_streams = std::vector<std::vector<std::uint64_t>>;
constexpr std::uint64_t update_bit = std::uint64_t{1} << 63;
constexpr std::size_t stream_ops = std::size_t{1} << 21;

operation_streams make_streams(const blink_options& o, std::size_t clients, std::uint64_t seed) {
  operation_streams streams(clients);
  for (std::size_t w = 0; w < clients; ++w) {
    key_chooser chooser(o.records,
                        o.theta > 0 ? key_chooser::distribution::zipf : key_chooser::distribution::uniform,
                        o.theta, seed + w);
    std::mt19937_64 coin(seed + 1000 * w);
    std::vector<std::uint64_t>& ops = streams[w];
    ops.resize(std::min(stream_ops, std::max<std::size_t>(saturating_mul(o.records, 4), 4096)));
    for (std::uint64_t& op : ops) {
      op = record_key(chooser.next());
      if (o.workload == blink_workload::a && (coin() & 1) != 0) op |= update_bit;
    }
  }
  return streams;
}

// One worker's (or thread's) clients: what to ask next, and what came back.
struct alignas(64) client {
  const std::uint64_t* stream = nullptr;  // a, c: this client's operations
  std::size_t stream_size = 0, position = 0;
  std::uint64_t ops = 0, errors = 0;
  std::size_t next = 0, end = 0;  // insert: the records this client inserts next
  task_driver* driver = nullptr;
  std::uint16_t home = 0;  // the worker whose operations these are

  std::uint64_t next_operation() noexcept {
    const std::uint64_t op = stream[position];
    if (++position == stream_size) position = 0;
    return op;
  }
};

std::vector<client> make_clients(std::size_t n, const operation_streams* streams) {
  std::vector<client> clients(n);
  for (std::size_t w = 0; w < n; ++w) {
    client& c = clients[w];
    c.home = static_cast<std::uint16_t>(w);
    if (streams != nullptr) {
      c.stream = (*streams)[w].data();
      c.stream_size = (*streams)[w].size();
    }
  }
  return clients;
}

struct outcome {
  double seconds = 0;
  std::uint64_t ops = 0, errors = 0, reruns = 0;
};

// Keeps `in_flight` operations per worker in the air on the task runtime.
// An operation that ends on another worker (its leaf's owner, under
// schedule and optimistic writes, not optimistic-latch) sends a response task home, where the
// next one is issued: every worker keeps its own operations in flight.
class task_driver {
 public:
  task_driver(const blink_options& o, tasks::blink_tree& tree, std::size_t workers,
              const operation_streams* streams)
      : o_(o), tree_(tree), clients_(make_clients(workers, streams)) {
    for (client& c : clients_) c.driver = this;
  }

  outcome run(tasks::runtime& rt) {
    deadline_ = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                        std::chrono::duration<double>(o_.seconds));
    const std::uint64_t reruns = rt.reruns();
    const auto start = clock_type::now();
    rt.run([&](tasks::context& ctx) {
      for (std::size_t i = 0; i < o_.in_flight; ++i) issue(ctx, clients_[ctx.worker()]);
    });
    outcome r;
    r.seconds = std::chrono::duration<double>(clock_type::now() - start).count();
    for (const client& c : clients_) {
      r.ops += c.ops;
      r.errors += c.errors;
    }
    r.reruns = rt.reruns() - reruns;
    return r;
  }

 private:
  enum class kind : std::uint8_t { lookup, update, insert };

  struct response {
    client* home;
    std::uint64_t key, value;
    bool found;
    kind what;
  };

  void issue(tasks::context& ctx, client& c) {
    if (o_.workload == blink_workload::insert) {
      // Records are handed out in blocks from one cursor, so that a worker
      // that runs ahead takes more of them.
      if (c.next == c.end) {
        constexpr std::size_t block = 64;
        const std::size_t first = cursor_.fetch_add(block, std::memory_order_relaxed);
        if (first >= o_.records) return;
        c.next = first;
        c.end = std::min(o_.records, first + block);
      }
      const std::uint64_t k = record_key(c.next++);
      tree_.insert(ctx, k, value_for(k), &finished<kind::insert>, &c);
      return;
    }
    if (stop_.load(std::memory_order_relaxed)) return;
    if ((c.ops & 255) == 0 && clock_type::now() >= deadline_) {
      stop_.store(true, std::memory_order_relaxed);
      return;
    }
    const std::uint64_t op = c.next_operation();
    const std::uint64_t k = op & ~update_bit;
    if ((op & update_bit) != 0) {
      tree_.update(ctx, k, value_for(k) + 1, &finished<kind::update>, &c);
    } else {
      tree_.lookup(ctx, k, &finished<kind::lookup>, &c);
    }
  }

  template <kind What>
  static void finished(tasks::context& ctx, void* home, std::uint64_t key, std::uint64_t value, bool found) {
    client& c = *static_cast<client*>(home);
    if (c.home == ctx.worker()) {
      c.driver->account(ctx, response{&c, key, value, found, What});
      return;
    }
    tasks::annotated_task* t = ctx.make();
    t->run = &respond;
    t->target = c.home;
    t->set_state(response{&c, key, value, found, What});
    ctx.spawn(t);
  }

  static void respond(const tasks::annotated_task& t, tasks::context& ctx) {
    const response& r = t.state<response>();
    r.home->driver->account(ctx, r);
  }

  void account(tasks::context& ctx, const response& r) {
    client& c = *r.home;
    ++c.ops;
    if ((r.what == kind::update && !r.found) || (r.what == kind::lookup && (!r.found || !plausible(r.key, r.value)))) {
      ++c.errors;
    }
    issue(ctx, c);
  }

  const blink_options& o_;
  tasks::blink_tree& tree_;
  std::vector<client> clients_;
  clock_type::time_point deadline_;
  std::atomic<bool> stop_{false};
  alignas(64) std::atomic<std::size_t> cursor_{0};
};

// The baseline's operations: plain loads, or prefetch and suspend.
std::optional<std::uint64_t> find(const olc_btree& tree, std::uint64_t key) {
  olc_btree::descent d(tree, key, node_search::branchy, /*prefetch_cold_nodes=*/false);
  while (d.step() != nullptr) {
  }
  return d.value();
}

template <class Policy>
task<std::optional<std::uint64_t>> lookup_or_update(olc_btree& tree, std::uint64_t key, bool update) {
  if (update) {
    tree.insert(key, value_for(key) + 1);
    co_return value_for(key) + 1;
  }
  olc_btree::descent d(tree, key, Policy{});
  while (const auto* next = d.step()) co_await prefetch<Policy>(*next, d.cold());
  co_return d.value();
}

outcome run_baseline(const blink_options& o, olc_btree& tree, blink_baseline b, std::size_t threads,
                     const operation_streams* streams) {
  std::vector<client> clients = make_clients(threads, streams);
  outcome r;
  if (o.workload == blink_workload::insert) {
    r.seconds = run_threads(threads, o.records, [&](std::size_t, std::size_t first, std::size_t last) {
                  for (std::size_t i = first; i < last; ++i) tree.insert(record_key(i), value_for(record_key(i)));
                }) / 1e9;
    r.ops = o.records;
    return r;
  }
  constexpr std::size_t chunk = 256;
  const auto seconds = run_threads_for(threads, o.seconds, [&](std::size_t t) {
    client& c = clients[t];
    std::uint64_t keys[chunk];
    bool updates[chunk];
    for (std::size_t i = 0; i < chunk; ++i) {
      const std::uint64_t op = c.next_operation();
      keys[i] = op & ~update_bit;
      updates[i] = (op & update_bit) != 0;
    }
    const auto check = [&](std::size_t i, std::optional<std::uint64_t> v) {
      if (!v || !plausible(keys[i], *v)) ++c.errors;
    };
    if (b == blink_baseline::threads) {
      for (std::size_t i = 0; i < chunk; ++i) {
        if (updates[i]) {
          tree.insert(keys[i], value_for(keys[i]) + 1);
        } else {
          check(i, find(tree, keys[i]));
        }
      }
    } else {
      interleaved_scheduler(o.group).run(
          chunk, [&](auto policy, std::size_t i) { return lookup_or_update<decltype(policy)>(tree, keys[i], updates[i]); },
          check);
    }
    c.ops += chunk;
  });
  for (double s : seconds) r.seconds = std::max(r.seconds, s);
  for (const client& c : clients) {
    r.ops += c.ops;
    r.errors += c.errors;
  }
  return r;
}

// Sum and count of the keys a tree holds: equal across every variant.
struct contents {
  std::uint64_t checksum = 0;
  std::uint64_t count = 0;
};

contents contents_of(const tasks::blink_tree& tree) {
  contents c;
  tree.for_each([&](std::uint64_t k, std::uint64_t v) {
    c.checksum += k;
    ++c.count;
    if (!plausible(k, v)) throw std::runtime_error(fmt::format("the Blink-tree holds a wrong value under {}", k));
  });
  if (const std::string problem = tree.check(); !problem.empty()) {
    throw std::runtime_error("the Blink-tree is malformed: " + problem);
  }
  return c;
}

contents contents_of(const olc_btree& tree) {
  contents c;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  std::uint64_t from = 0;
  bool after = false;
  for (;;) {
    out.clear();
    sync_wait(scan<sequential_policy>(tree, from, 4096, out, after));
    for (const auto& [k, v] : out) {
      c.checksum += k;
      ++c.count;
    }
    if (out.size() < 4096) return c;
    from = out.back().first;
    after = true;
  }
}

struct configuration {
  std::string variant;  // tasks, threads, coro
  std::size_t workers = 1;
  std::size_t distance = 0;
  std::size_t lines = 0;  // of each node, prefetched
  std::size_t cached_kib = 0;
  sync_kind sync = sync_kind::none;
  blink_baseline baseline = blink_baseline::threads;
  std::vector<double> ops_per_s;
  outcome last;
  contents tree;
  unsigned height = 0;
  unsigned cached_levels = 0;  // of the loaded tree's, counted as cached
  std::size_t bytes = 0;
};

void progress(const blink_options& o, const configuration& c, std::size_t round, double ops_per_s) {
  if (!o.verbose) return;
  if (c.variant == "tasks") {
    std::fprintf(
        stderr,
        "blink %s: tasks, %zu workers, %s, distance %zu, %zu lines, %zu KiB cached, run %zu: %.2f M ops/s\n",
        blink_workload_name(o.workload), c.workers, tasks::to_string(c.sync), c.distance, c.lines,
        c.cached_kib, round + 1, ops_per_s / 1e6);
  } else {
    std::fprintf(stderr, "blink %s: %s baseline, %zu threads, run %zu: %.2f M ops/s\n", blink_workload_name(o.workload),
                 c.variant.c_str(), c.workers, round + 1, ops_per_s / 1e6);
  }
}

void check_outcome(const configuration& c, const outcome& r) {
  if (r.errors != 0) {
    throw std::runtime_error(fmt::format("{} with {} workers: {} operations got a wrong answer", c.variant, c.workers,
                                         r.errors));
  }
}

}  // namespace

std::vector<nlohmann::ordered_json> run_blink_bench(const blink_options& o,
                                                    const std::function<void(const nlohmann::ordered_json&)>& each) {
  std::vector<configuration> configs;
  for (std::size_t w : o.workers) {
    for (sync_kind s : o.syncs) {
      for (std::size_t d : o.prefetch_distances) {
        for (std::size_t l : o.prefetch_lines) {
          // Without prefetching, how many lines it would fetch changes
          // nothing: one configuration, not one per --prefetch-lines.
          if (d == 0 && l != o.prefetch_lines.front()) continue;
          for (std::size_t k : o.cached_kib) {
            configuration c;
            c.variant = "tasks";
            c.workers = w;
            c.distance = d;
            c.lines = l;
            c.cached_kib = k;
            c.sync = s;
            configs.push_back(c);
          }
        }
      }
    }
    for (blink_baseline b : o.baselines) {
      configuration c;
      c.variant = b == blink_baseline::threads ? "threads" : "coro";
      c.workers = w;
      c.baseline = b;
      configs.push_back(c);
    }
  }
  std::size_t most_workers = 1;
  for (std::size_t w : o.workers) most_workers = std::max(most_workers, w);

  // a and c run on trees loaded once: the Blink-tree by inserts on tasks,
  // the baseline tree by inserts on threads.
  std::unique_ptr<tasks::runtime> loader;
  std::unique_ptr<tasks::blink_tree> loaded;
  std::unique_ptr<olc_btree> loaded_baseline;
  if (o.workload != blink_workload::insert) {
    blink_options load = o;
    load.workload = blink_workload::insert;
    if (o.verbose) std::fprintf(stderr, "blink: loading %zu records on tasks\n", o.records);
    loader = std::make_unique<tasks::runtime>(tasks::runtime::options{static_cast<unsigned>(most_workers), 3, true});
    loaded = std::make_unique<tasks::blink_tree>(*loader, sync_kind::optimistic);
    task_driver(load, *loaded, most_workers, nullptr).run(*loader);
    if (!o.baselines.empty()) {
      if (o.verbose) std::fprintf(stderr, "blink: loading %zu records into the baseline tree\n", o.records);
      loaded_baseline = std::make_unique<olc_btree>();
      run_baseline(load, *loaded_baseline, blink_baseline::threads, most_workers, nullptr);
    }
  }

  const auto describe = [&](const configuration& c) {
    nlohmann::ordered_json j;
    j["bench"] = "blink";
    j["variant"] = c.variant;
    j["records"] = o.records;
    j["workload"] = blink_workload_name(o.workload);
    j["theta"] = o.workload == blink_workload::insert ? 0.0 : o.theta;
    j["workers"] = c.workers;
    if (c.variant == "tasks") {
      j["prefetch_distance"] = c.distance;
      j["prefetch_lines"] = c.lines;
      j["cached_kib"] = c.cached_kib;
      j["sync"] = tasks::to_string(c.sync);
      j["in_flight"] = o.in_flight;
    } else if (c.variant == "coro") {
      j["group"] = o.group;
    }
    j["repeat"] = o.repeat;
    return j;
  };

  for (std::size_t round = 0; round < o.repeat; ++round) {
    const bool replays = o.workload != blink_workload::insert;  // inserts take records from a cursor
    const operation_streams streams = replays ? make_streams(o, most_workers, o.seed + round) : operation_streams{};
    const operation_streams* ops = replays ? &streams : nullptr;
    // Each round starts one configuration later, so that none always runs
    // first (on a freshly loaded tree, in a machine state of its own).
    for (std::size_t turn = 0; turn < configs.size(); ++turn) {
      configuration& c = configs[(turn + round) % configs.size()];
      const auto workers = static_cast<unsigned>(c.workers);
      outcome r;
      if (c.variant == "tasks") {
        tasks::runtime rt({workers, static_cast<unsigned>(c.distance), true});
        if (o.workload == blink_workload::insert) {
          tasks::blink_tree tree(rt, c.sync);
          tree.set_prefetch_lines(static_cast<std::uint16_t>(c.lines));
          r = task_driver(o, tree, workers, ops).run(rt);
          c.tree = contents_of(tree);
          c.height = tree.height();
          c.bytes = tree.bytes();
        } else {
          loaded->set_sync(c.sync);
          loaded->rebalance(workers);  // the load placed nodes as it went; even shares for these workers
          loaded->set_prefetch_lines(static_cast<std::uint16_t>(c.lines));
          c.cached_levels = loaded->set_cached_bytes(c.cached_kib * 1024);
          r = task_driver(o, *loaded, workers, ops).run(rt);
          c.height = loaded->height();
          c.bytes = loaded->bytes();
        }
      } else if (o.workload == blink_workload::insert) {
        olc_btree tree;
        r = run_baseline(o, tree, c.baseline, workers, ops);
        c.tree = contents_of(tree);
        c.bytes = tree.bytes();
      } else {
        r = run_baseline(o, *loaded_baseline, c.baseline, workers, ops);
        c.bytes = loaded_baseline->bytes();
      }
      check_outcome(c, r);
      if (o.workload == blink_workload::insert && (r.ops != o.records || c.tree.count != configs.front().tree.count)) {
        throw std::runtime_error(fmt::format("{} with {} workers: {} inserts finished, the tree holds {} keys", c.variant,
                                             c.workers, r.ops, c.tree.count));
      }
      c.last = r;
      c.ops_per_s.push_back(static_cast<double>(r.ops) / r.seconds);
      progress(o, c, round, c.ops_per_s.back());
      // This repetition's line, printed now: an interrupted sweep keeps it.
      nlohmann::ordered_json j = describe(c);
      j["run_type"] = "repetition";
      j["repetition"] = round + 1;
      j["ops_per_s"] = c.ops_per_s.back();
      j["ops"] = r.ops;
      if (c.variant == "tasks") j["reruns"] = r.reruns;
      if (each) each(j);
    }
  }
  if (o.workload != blink_workload::insert) {
    const contents tasks_tree = contents_of(*loaded);
    const contents baseline_tree = loaded_baseline ? contents_of(*loaded_baseline) : tasks_tree;
    for (configuration& c : configs) c.tree = c.variant == "tasks" ? tasks_tree : baseline_tree;
  }

  std::vector<nlohmann::ordered_json> out;
  for (const configuration& c : configs) {
    if (c.tree.checksum != configs.front().tree.checksum || c.tree.count != configs.front().tree.count) {
      throw std::runtime_error(fmt::format("{} with {} workers ends with other keys than {} ({} keys, checksum {}; against {}, {})",
                                           c.variant, c.workers, configs.front().variant, c.tree.count, c.tree.checksum,
                                           configs.front().tree.count, configs.front().tree.checksum));
    }
    nlohmann::ordered_json j = describe(c);
    j["run_type"] = "aggregate";
    add_aggregates(j, "ops_per_s", c.ops_per_s);
    j["ops"] = c.last.ops;
    if (c.variant == "tasks") {
      j["reruns"] = c.last.reruns;
      j["height"] = c.height;
      j["cached_levels"] = c.cached_levels;
    }
    j["bytes"] = c.bytes;
    j["count"] = c.tree.count;
    j["checksum"] = c.tree.checksum;
    if (each) each(j);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace weave::bench
