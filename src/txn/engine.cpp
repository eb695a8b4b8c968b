#include "weave/txn/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "weave/durability/checkpoint.hpp"
#include "weave/durability/log_reader.hpp"
#include "weave/exec/sync_wait.hpp"

namespace weave::txn {

namespace {

namespace fs = std::filesystem;
using durability::log_corruption;

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

// Puts a recovered record in place: a version committed at `stamp`, unless
// the record has a later one already (the log is not in commit order).
// Within one transaction a later write of a key comes later, and wins.
template <class Key>
void restore(table& t, const Key& key, std::string_view value, std::uint64_t stamp, bool tombstone) {
  version* v = version::make(stamp, nullptr, value, tombstone);
  const auto done = t.index_of<Key>().insert_if_absent(
      key,
      [&] {
        const oid_t oid = t.allocate_oid();
        t.remember_key(oid, key);
        t.head(oid).store(v, std::memory_order_release);
        return oid;
      },
      [](const auto&, std::uint64_t, std::uint64_t, const auto&, std::uint64_t) {});
  if (done.inserted) return;
  version* head = t.head(done.value).load(std::memory_order_relaxed);
  if (head != nullptr && head->stamp.load(std::memory_order_relaxed) > stamp) {
    version::destroy(v);
    return;
  }
  t.head(done.value).store(v, std::memory_order_relaxed);
  if (head != nullptr) version::destroy(head);  // recovery runs alone
}

void restore(table& t, std::string_view key, std::string_view value, std::uint64_t stamp, bool tombstone,
             std::string_view where) {
  if (t.keys() == key_kind::integer) {
    if (key.size() != 8) {
      throw log_corruption(fmt::format("{}: a key of {} bytes for table '{}', whose keys are integers", where,
                                       key.size(), t.name()));
    }
    std::uint64_t k = 0;
    for (std::size_t i = 0; i < 8; ++i) k |= std::uint64_t{static_cast<unsigned char>(key[i])} << (8 * i);
    restore(t, k, value, stamp, tombstone);
  } else {
    if (key.size() > byte_key::capacity) {
      throw log_corruption(fmt::format("{}: a key of {} bytes for table '{}'", where, key.size(), t.name()));
    }
    restore(t, byte_key(key), value, stamp, tombstone);
  }
}

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
  const auto table_of = [&](std::uint32_t id, std::string_view where) -> table& {
    if (id >= tables_.size()) {
      throw log_corruption(fmt::format("{}: a record of table {}, which the catalog does not hold", where, id));
    }
    return *tables_[id];
  };

  std::uint64_t snapshot = 0;
  if (const auto newest = durability::newest_checkpoint(dir)) {
    snapshot = *newest;
    const std::string where = durability::checkpoint_name(snapshot);
    const durability::checkpoint_info info =
        durability::read_checkpoint(dir, snapshot, [&](std::uint32_t id, std::string_view key, std::string_view value) {
          restore(table_of(id, where), key, value, snapshot, false, where);
        });
    recovery_.checkpoint = snapshot;
    recovery_.checkpoint_records = info.records;
    recovery_.checkpoint_bytes = info.bytes;
  }
  const durability::log_replay replay = durability::replay_log(
      dir, snapshot,
      [&](const durability::logged_transaction& t) {
        const std::string where = fmt::format("the log's commit {}", t.commit);
        for (const durability::logged_write& w : t.writes) {
          restore(table_of(w.table, where), w.key, w.value, t.commit, w.op == durability::write_op::remove, where);
        }
      },
      true);
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
