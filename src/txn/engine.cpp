#include "weave/txn/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "weave/durability/checkpoint.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/index/olc_btree.hpp"

namespace weave::txn {

namespace {

namespace fs = std::filesystem;

}  // namespace

engine::engine(isolation level, const fs::path& directory, bool read_only)
    : level_(level), read_only_(read_only), directory_(std::make_unique<durability::data_directory>(directory, read_only)) {}

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
  if (options.log.mode == durability::durability_mode::off && !options.read_only) {
    throw std::invalid_argument("durability 'off' keeps no data directory: use the in-memory engine");
  }
  if (options.read_only && options.checkpoint_every.count() > 0) {
    throw std::invalid_argument("an engine opened read-only takes no checkpoints");
  }
  if (options.checkpoint_every.count() < 0) throw std::invalid_argument("a checkpoint interval is not negative");
  if (!options.read_only) durability::validate(options.log);  // before the directory is touched
  std::unique_ptr<engine> e(new engine(options.level, directory, options.read_only));
  e->recover(options);
  if (options.checkpoint_every.count() > 0) {
    e->checkpointer_ = std::thread([raw = e.get(), every = options.checkpoint_every] { raw->checkpointer(every); });
  }
  return e;
}

table& engine::add_table(std::string name, key_kind keys, std::size_t expected_records,
                         std::size_t inline_value_bytes, bool name_in_catalog) {
  // The catalog keeps a name on one line; an in-memory engine takes the same names.
  if (name.empty() || name.find('\n') != std::string::npos) {
    throw std::invalid_argument("a table name is not empty and has no line break");
  }
  for (const auto& t : tables_) {
    if (t->name() == name) throw std::invalid_argument("table '" + name + "' exists");
  }
  // The table is made first (it reserves address space, which can run
  // out), then named in the catalog, then made visible: a catalog that
  // names a table no process could make would leave the directory
  // unopenable, and a table no transaction can reach yet cannot be named in
  // the log before the catalog names it.
  const auto id = static_cast<std::uint32_t>(tables_.size());
  // Nothing may throw once the catalog names it (room made geometrically).
  if (tables_.size() == tables_.capacity()) tables_.reserve(std::max<std::size_t>(8, 2 * tables_.size()));
  auto t = std::make_unique<table>(std::move(name), keys, expected_records, id, directory_ != nullptr,
                                   inline_value_bytes);
  t->owner_ = this;
  if (name_in_catalog) {
    directory_->add_table({id, t->name(), keys == key_kind::bytes, static_cast<std::uint32_t>(inline_value_bytes)});
  }
  tables_.push_back(std::move(t));
  return *tables_.back();
}

table& engine::create_table(std::string name, key_kind keys, std::size_t expected_records,
                            std::size_t inline_value_bytes) {
  std::lock_guard<std::mutex> g(tables_mutex_);
  return add_table(std::move(name), keys, expected_records, inline_value_bytes, directory_ != nullptr);
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

std::uint64_t engine::checkpoint() {
  if (log_ == nullptr) throw std::logic_error("an engine without a log (in memory, or read-only) takes no checkpoints");
  std::lock_guard<std::mutex> one(checkpoint_mutex_);
  const fs::path& dir = directory_->path();
  transaction t = begin();  // holds off pruning below its snapshot
  const std::uint64_t snapshot = t.snapshot();
  if (durability::newest_checkpoint(dir) == snapshot) return snapshot;  // nothing committed since
  {
    durability::checkpoint_writer out(dir, snapshot, log_->identity());
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
