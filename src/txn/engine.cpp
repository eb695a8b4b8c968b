#include "weave/txn/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "weave/durability/checkpoint.hpp"
#include "weave/durability/log_reader.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/index/olc_btree.hpp"

namespace weave::txn {

namespace {

namespace fs = std::filesystem;
using durability::log_corruption;
using durability::logged_transaction;

}  // namespace

engine::engine(isolation level, const fs::path& directory)
    : level_(level), directory_(std::make_unique<durability::data_directory>(directory)) {}

engine::~engine() {
  if (checkpointer_.joinable()) {
    {
      std::lock_guard<std::mutex> g(checkpointer_mutex_);
      stopping_ = true;
    }
    checkpointer_wake_.notify_all();
    checkpointer_.join();
  }
  log_.reset();  // flushes what async commits left, while the clock is here
}

std::unique_ptr<engine> engine::open(const fs::path& directory, engine_options options) {
  if (options.log.mode == durability::durability_mode::off) {
    throw std::invalid_argument("durability 'off' keeps no data directory: use the in-memory engine");
  }
  std::unique_ptr<engine> e(new engine(options.level, directory));
  e->recover(options);
  if (options.checkpoint_every.count() > 0) {
    e->checkpointer_ = std::thread([raw = e.get(), every = options.checkpoint_every] { raw->checkpointer(every); });
  }
  return e;
}

table& engine::add_table(std::string name, key_kind keys, std::size_t expected_records) {
  for (const auto& t : tables_) {
    if (t->name() == name) throw std::invalid_argument("table '" + name + "' exists");
  }
  const auto id = static_cast<std::uint32_t>(tables_.size());
  tables_.push_back(std::make_unique<table>(std::move(name), keys, expected_records, id, directory_ != nullptr));
  return *tables_.back();
}

table& engine::create_table(std::string name, key_kind keys, std::size_t expected_records) {
  std::lock_guard<std::mutex> g(tables_mutex_);
  if (directory_ != nullptr) {
    for (const auto& t : tables_) {
      if (t->name() == name) throw std::invalid_argument("table '" + name + "' exists");
    }
    // In the catalog before any log record can name it.
    directory_->add_table({static_cast<std::uint32_t>(tables_.size()), name, keys == key_kind::bytes});
  }
  return add_table(std::move(name), keys, expected_records);
}

table* engine::find_table(std::string_view name) {
  std::lock_guard<std::mutex> g(tables_mutex_);
  for (const auto& t : tables_) {
    if (t->name() == name) return t.get();
  }
  return nullptr;
}

std::vector<table*> engine::tables() {
  std::lock_guard<std::mutex> g(tables_mutex_);
  std::vector<table*> out;
  for (const auto& t : tables_) out.push_back(t.get());
  return out;
}

durability::redo_log::buffer& engine::log_buffer() {
  // A thread's buffer per engine, by serial number (a new engine may take a
  // freed one's address); the last one used is checked first.
  struct joined {
    std::uint64_t engine;
    durability::redo_log::buffer* buffer;
  };
  thread_local std::vector<joined> buffers;
  if (!buffers.empty() && buffers.back().engine == serial_) return *buffers.back().buffer;
  for (auto it = buffers.begin(); it != buffers.end(); ++it) {
    if (it->engine == serial_) {
      std::iter_swap(it, buffers.end() - 1);
      return *buffers.back().buffer;
    }
  }
  buffers.push_back({serial_, &log_->join()});
  return *buffers.back().buffer;
}

namespace {

// Makes `value`, committed at `stamp`, record `oid`'s version, unless the
// record has a later one already (the log is not in commit order). Within
// one transaction a later write of a key comes later, and wins. Recovery runs
// alone and keeps one version per record, so a value of the same size
// overwrites the current version's bytes: no allocation (a log of updates is
// mostly that).
void replace(table& t, oid_t oid, std::string_view value, std::uint64_t stamp, bool tombstone) {
  version* head = t.head(oid).load(std::memory_order_relaxed);
  if (head != nullptr && head->stamp.load(std::memory_order_relaxed) > stamp) return;
  if (head != nullptr && head->size == value.size()) {
    head->stamp.store(stamp, std::memory_order_relaxed);
    head->tombstone = tombstone;
    if (!value.empty()) std::memcpy(reinterpret_cast<char*>(head + 1), value.data(), value.size());
    return;
  }
  t.head(oid).store(version::make(stamp, nullptr, value, tombstone), std::memory_order_relaxed);
  if (head != nullptr) version::destroy(head);
}

// Puts a recovered record in place, adding its key if it is new.
template <class Key>
void restore(table& t, const Key& key, std::string_view value, std::uint64_t stamp, bool tombstone) {
  const auto done = t.index_of<Key>().insert_if_absent(
      key,
      [&] {
        const oid_t oid = t.allocate_oid();
        t.remember_key(oid, key);
        t.head(oid).store(version::make(stamp, nullptr, value, tombstone), std::memory_order_release);
        return oid;
      },
      [](const auto&, std::uint64_t, std::uint64_t, const auto&, std::uint64_t) {});
  if (!done.inserted) replace(t, done.value, value, stamp, tombstone);
}

// A logged key as its table takes it; a key of the wrong shape is damage
// (the caller says where it was: formatting that for every record would
// cost more than the check).
std::uint64_t integer_key(const table& t, std::string_view key) {
  if (key.size() != 8) {
    throw log_corruption(
        fmt::format("a key of {} bytes for table '{}', whose keys are integers", key.size(), t.name()));
  }
  std::uint64_t k = 0;
  for (std::size_t i = 0; i < 8; ++i) k |= std::uint64_t{static_cast<unsigned char>(key[i])} << (8 * i);
  return k;
}
byte_key bytes_key(const table& t, std::string_view key) {
  if (key.size() > byte_key::capacity) {
    throw log_corruption(fmt::format("a key of {} bytes for table '{}'", key.size(), t.name()));
  }
  return byte_key(key);
}

void restore(table& t, std::string_view key, std::string_view value, std::uint64_t stamp, bool tombstone) {
  if (t.keys() == key_kind::integer) {
    restore(t, integer_key(t, key), value, stamp, tombstone);
  } else {
    restore(t, bytes_key(t, key), value, stamp, tombstone);
  }
}

// The log's writes, replayed a batch at a time: each write's index descent is
// a coroutine that prefetches and suspends, so that the misses of a batch
// overlap (a log of updates to a large table is a stream of random keys).
// What a write does once its record is found runs without suspending, and
// stamps make the order of different transactions' writes irrelevant; two
// writes of one key by one transaction, which share a stamp, are merged
// when they arrive, the later one kept.
class replay_batch {
 public:
  static constexpr std::size_t capacity = 16384;
  // Transactions larger than this go one write at a time, in order.
  static constexpr std::size_t merged_writes = 64;

  // `table_of`: a table id's table (throws log_corruption for none).
  template <class TableOf>
  void add(const logged_transaction& t, const TableOf& table_of) {
    if (t.writes.size() > merged_writes) {
      apply();
      for (const durability::logged_write& w : t.writes) {
        restore(table_of(w.table), w.key, w.value, t.commit, w.op == durability::write_op::remove);
      }
      return;
    }
    const std::size_t first = entries_.size();
    for (const durability::logged_write& w : t.writes) {
      entry e{&table_of(w.table), 0, {}, values_.size(), w.value.size(), t.commit, w.op == durability::write_op::remove};
      if (e.t->keys() == key_kind::integer) {
        e.integer = integer_key(*e.t, w.key);
      } else {
        e.bytes = bytes_key(*e.t, w.key);
      }
      values_.append(w.value);
      // The same key earlier in this transaction: this write replaces it.
      const auto same = std::find_if(entries_.begin() + static_cast<std::ptrdiff_t>(first), entries_.end(),
                                     [&](const entry& o) { return o.t == e.t && o.integer == e.integer && o.bytes == e.bytes; });
      if (same != entries_.end()) {
        *same = e;
      } else {
        entries_.push_back(e);
      }
    }
    if (entries_.size() >= capacity) apply();
  }

  // Replays the batch, split by key over the machine's cores (one key's
  // writes stay in one part, in order).
  void apply() {
    if (entries_.empty()) return;
    const auto start = std::chrono::steady_clock::now();
    const std::size_t parts = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
    for (auto& p : parts_) p.clear();
    parts_.resize(parts);
    for (std::size_t i = 0; i < entries_.size(); ++i) parts_[part_of(entries_[i], parts)].push_back(i);
    const auto run_part = [this](const std::vector<std::size_t>& part) {
      interleaved_scheduler{16}.run(
          part.size(),
          [&]<execution_policy Policy>(Policy, std::size_t i) { return replay<Policy>(entries_[part[i]], values_); },
          [](std::size_t, bool) {});
    };
    std::vector<std::exception_ptr> failures(parts);
    std::vector<std::thread> helpers;
    for (std::size_t p = 1; p < parts; ++p) {
      helpers.emplace_back([&, p] {
        try {
          run_part(parts_[p]);
        } catch (...) {
          failures[p] = std::current_exception();
        }
      });
    }
    try {
      run_part(parts_[0]);
    } catch (...) {
      failures[0] = std::current_exception();
    }
    for (auto& h : helpers) h.join();
    for (const auto& f : failures) {
      if (f) std::rethrow_exception(f);
    }
    entries_.clear();
    values_.clear();
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // Spent in apply(), all batches together.
  double seconds() const noexcept { return seconds_; }

 private:
  struct entry {
    table* t;
    std::uint64_t integer;
    byte_key bytes;
    std::size_t value_at, value_bytes;
    std::uint64_t stamp;
    bool tombstone;
  };
  // One write: the index descent, then the record's slot and its newest
  // version, each fetched while the batch's other writes run. The change
  // itself does not suspend: it reads the head again.
  template <execution_policy Policy>
  static task<bool> replay(const entry& e, const std::string& values) {
    const std::string_view value(values.data() + e.value_at, e.value_bytes);
    // No co_await inside ?: (g++ 12 evaluates both arms).
    std::optional<std::uint64_t> oid;
    if (e.t->keys() == key_kind::integer) {
      oid = co_await lookup<Policy>(e.t->index_of<std::uint64_t>(), e.integer);
    } else {
      oid = co_await lookup<Policy>(e.t->index_of<byte_key>(), e.bytes);
    }
    if (!oid) {  // a new key (or one that another write of the batch inserts first)
      if (e.t->keys() == key_kind::integer) {
        restore(*e.t, e.integer, value, e.stamp, e.tombstone);
      } else {
        restore(*e.t, e.bytes, value, e.stamp, e.tombstone);
      }
      co_return true;
    }
    co_await prefetch<Policy>(e.t->head_address(*oid), sizeof(version*), true);
    if (const version* head = e.t->head(*oid).load(std::memory_order_relaxed)) {
      co_await prefetch<Policy>(head, sizeof(version), true);
    }
    replace(*e.t, *oid, value, e.stamp, e.tombstone);
    co_return false;
  }

  static std::size_t part_of(const entry& e, std::size_t parts) {
    std::uint64_t h = e.integer;
    if (e.t->keys() == key_kind::bytes) {
      for (unsigned w = 0; w < byte_key::words; ++w) h = (h ^ e.bytes.word(w)) * 0x100000001b3ull;
    }
    h = (h ^ e.t->id()) * 0x9e3779b97f4a7c15ull;  // Fibonacci hashing: sequential keys spread
    return static_cast<std::size_t>(h >> 32) % parts;
  }

  std::vector<entry> entries_;
  std::string values_;
  std::vector<std::vector<std::size_t>> parts_;
  double seconds_ = 0;
};

}  // namespace

void engine::recover(const engine_options& options) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path& dir = directory_->path();
  for (const durability::catalog_entry& c : directory_->catalog()) {
    if (c.id != tables_.size()) {
      throw durability::data_directory_error(
          fmt::format("{}: the catalog's table '{}' has id {}, expected {}", dir.string(), c.name, c.id, tables_.size()));
    }
    add_table(c.name, c.byte_keys ? key_kind::bytes : key_kind::integer, 0);
  }
  const auto table_of = [&](std::uint32_t id) -> table& {
    if (id >= tables_.size()) {
      throw log_corruption(fmt::format("a record of table {}, which the catalog does not hold", id));
    }
    return *tables_[id];
  };

  std::uint64_t snapshot = 0;
  if (const auto newest = durability::newest_checkpoint(dir)) {
    snapshot = *newest;
    const durability::checkpoint_info info =
        durability::read_checkpoint(dir, snapshot, [&](std::uint32_t id, std::string_view key, std::string_view value) {
          try {
            restore(table_of(id), key, value, snapshot, false);
          } catch (const log_corruption& e) {
            throw log_corruption(fmt::format("{}: {}", durability::checkpoint_name(snapshot), e.what()));
          }
        });
    recovery_.checkpoint = snapshot;
    recovery_.checkpoint_records = info.records;
    recovery_.checkpoint_bytes = info.bytes;
  }
  const auto log_start = std::chrono::steady_clock::now();
  recovery_.checkpoint_seconds = std::chrono::duration<double>(log_start - start).count();
  replay_batch batch;
  const durability::log_replay replay = durability::replay_log(
      dir, snapshot,
      [&](const durability::logged_transaction& t) {
        try {
          batch.add(t, table_of);
        } catch (const log_corruption& e) {
          throw log_corruption(fmt::format("the log's commit {}: {}", t.commit, e.what()));
        }
      },
      true);
  batch.apply();
  recovery_.replay_seconds = batch.seconds();
  recovery_.log_read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - log_start).count() - batch.seconds();
  recovery_.log_transactions = replay.applied;
  recovery_.log_discarded = replay.discarded;
  recovery_.log_bytes = replay.bytes;
  recovery_.torn_bytes = replay.torn_bytes;
  // Past every timestamp in the files, counted or not: a new commit never
  // shares one with a discarded record.
  const std::uint64_t last = std::max({snapshot, replay.through, replay.last_commit, std::uint64_t{1}});
  recovery_.last_commit = std::max(snapshot, replay.through);
  clock_.start_at(last);
  log_ = std::make_unique<durability::redo_log>(
      dir, options.log, [this] { return clock_.now(); }, &replay);
  recovery_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::uint64_t engine::checkpoint() {
  if (log_ == nullptr) throw std::logic_error("an in-memory engine takes no checkpoints");
  std::lock_guard<std::mutex> one(checkpoint_mutex_);
  const fs::path& dir = directory_->path();
  transaction t = begin();  // holds off pruning below its snapshot
  const std::uint64_t snapshot = t.snapshot();
  if (durability::newest_checkpoint(dir) == snapshot) return snapshot;  // nothing committed since
  {
    durability::checkpoint_writer out(dir, snapshot);
    std::array<char, byte_key::capacity> key{};
    for (table* tab : tables()) {
      for (oid_t oid = 0, n = tab->records(); oid < n; ++oid) {
        const auto value = sync_wait(t.get_record<sequential_policy>(*tab, oid));
        if (value) out.add(tab->id(), tab->logged_key(oid, key.data()), *value);
      }
    }
    out.finish();
  }
  t.abort();
  // What the new checkpoint makes needless: older checkpoints, and the log
  // segments whose transactions it holds.
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const auto other = durability::checkpoint_snapshot(name);
    if ((other && *other < snapshot) || (name.starts_with("checkpoint-") && name.ends_with(".wck.tmp"))) {
      fs::remove(entry.path());
    }
  }
  log_->remove_segments_through(snapshot);
  return snapshot;
}

std::string engine::checkpoint_failure() const {
  std::lock_guard<std::mutex> g(checkpointer_mutex_);
  return checkpoint_failure_;
}

void engine::checkpointer(std::chrono::milliseconds every) {
  std::unique_lock<std::mutex> l(checkpointer_mutex_);
  while (!checkpointer_wake_.wait_for(l, every, [&] { return stopping_; })) {
    l.unlock();
    std::string failure;
    try {
      checkpoint();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    l.lock();
    checkpoint_failure_ = failure;
  }
}

}  // namespace weave::txn
