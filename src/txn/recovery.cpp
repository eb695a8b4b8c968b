// Opening a data directory: the newest checkpoint, then the log after it.
//
// Both are applied in key order, so that recovery streams through memory
// instead of missing the cache once per record. A checkpoint holds a table's
// records in record order, which is key order for a table filled in key
// order: its index is then built leaf after leaf (B+-tree loader), and its
// records and versions are allocated in that same order. The log's writes
// are gathered in large batches, sorted by key, cut down to the last write
// of each key, and applied by walking the leaves (B+-tree sweep), on every
// core, each taking a range of keys. A thread of its own reads, checks and
// decodes the log meanwhile, from the start: while the checkpoint loads and
// while the batch before is applied.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <compare>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "weave/durability/checkpoint.hpp"
#include "weave/durability/log_reader.hpp"
#include "weave/durability/log_writer.hpp"
#include "weave/exec/thread_group.hpp"
#include "weave/index/olc_btree.hpp"
#include "weave/txn/engine.hpp"

namespace weave::txn {

namespace {

using durability::log_corruption;
using durability::logged_transaction;

// Makes `value`, committed at `stamp`, record `oid`'s version, unless the
// record has a later one already (the log is not in commit order). Recovery
// runs alone and keeps one version per record, so a value overwrites the
// current version's bytes where they have room (the same size, or a version
// in the slot and a value that fits there): no allocation (a log of updates
// is mostly that). For the same reason a slot whose version is not the head
// is free, and takes a value that fits.
void replace(table& t, oid_t oid, std::string_view value, std::uint64_t stamp, bool tombstone) {
  version* head = t.head(oid).load(std::memory_order_relaxed);
  if (head != nullptr && head->stamp.load(std::memory_order_relaxed) > stamp) return;
  const bool head_in_slot = head != nullptr && t.in_slot(oid, head);
  if (head != nullptr && (head->size == value.size() || (head_in_slot && t.fits_in_slot(value.size())))) {
    head->stamp.store(stamp, std::memory_order_relaxed);
    head->tombstone = tombstone;
    head->size = static_cast<std::uint32_t>(value.size());
    if (!value.empty()) std::memcpy(reinterpret_cast<char*>(head + 1), value.data(), value.size());
    return;
  }
  version* v = head_in_slot ? version::make(stamp, nullptr, value, tombstone)
                            : t.make_first(oid, stamp, value, tombstone);  // in the slot if it fits
  t.head(oid).store(v, std::memory_order_relaxed);
  if (head != nullptr) version::destroy(head);
}

// A new record whose one version `first(oid)` makes.
template <class Key, class First>
oid_t add_record(table& t, const Key& key, First first) {
  const oid_t oid = t.allocate_oid();
  t.remember_key(oid, key);
  t.head(oid).store(first(oid), std::memory_order_release);
  return oid;
}

// A new record whose one version is `v`, made before its record id was
// known (taken: moved into the record's slot if its value fits there).
template <class Key>
oid_t add_record(table& t, const Key& key, version* v) {
  return add_record(t, key, [&](oid_t oid) {
    if (!t.fits_in_slot(v->size)) return v;
    version* in_slot = t.make_first(oid, v->stamp.load(std::memory_order_relaxed), v->value(), v->tombstone);
    version::destroy(v);
    return in_slot;
  });
}

// Puts a recovered record in place, adding its key if it is new.
template <class Key>
void restore(table& t, const Key& key, std::string_view value, std::uint64_t stamp, bool tombstone) {
  const auto done = t.index_of<Key>().insert_if_absent(
      key,
      [&] {
        return add_record(t, key, [&](oid_t oid) { return t.make_first(oid, stamp, value, tombstone); });
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

// A checkpoint's records as the thread that reads the checkpoint decodes
// them, each with its version already made: versions are most of the memory
// a checkpoint fills, and the thread that first touches memory pays for it.
class record_batch {
 public:
  static constexpr std::size_t capacity = std::size_t{1} << 16;

  record_batch() = default;
  record_batch(const record_batch&) = delete;
  record_batch& operator=(const record_batch&) = delete;
  // Frees the versions no table took (recovery failed).
  ~record_batch() {
    for (auto& r : integer_) {
      if (r.v != nullptr) version::destroy(r.v);
    }
    for (auto& r : bytes_) {
      if (r.v != nullptr) version::destroy(r.v);
    }
  }

  void add(table& t, std::string_view key, std::string_view value, std::uint64_t stamp) {
    if (t.keys() == key_kind::integer) {
      const std::uint64_t k = integer_key(t, key);
      integer_.push_back({&t, k, version::make(stamp, nullptr, value, false)});
    } else {
      const byte_key k = bytes_key(t, key);
      bytes_.push_back({&t, k, version::make(stamp, nullptr, value, false)});
    }
  }
  bool full() const noexcept { return integer_.size() + bytes_.size() >= capacity; }
  bool empty() const noexcept { return integer_.empty() && bytes_.empty(); }
  // Once every version has been taken.
  void clear() noexcept {
    integer_.clear();
    bytes_.clear();
  }

 private:
  friend class checkpoint_load;
  template <class Key>
  struct made {
    table* t;
    Key key;
    version* v;  // null once a table took it
  };
  std::vector<made<std::uint64_t>> integer_;
  std::vector<made<byte_key>> bytes_;
};

// A checkpoint's records, table by table: while a table's keys come in
// increasing order its index is loaded leaf after leaf; from the first key
// out of order on, the rest are inserted one by one.
class checkpoint_load {
 public:
  // Takes every version of the batch.
  void add(record_batch& batch) {
    for (auto& r : batch.integer_) add(r);
    for (auto& r : batch.bytes_) add(r);
  }

  // Publishes every loaded index.
  void finish() {
    for (per_table& p : loads_) {
      if (p.integer) p.integer->finish();
      if (p.bytes) p.bytes->finish();
    }
  }

 private:
  struct per_table {
    std::optional<olc_btree::loader> integer;
    std::optional<olc_string_btree::loader> bytes;
    bool out_of_order = false;
  };

  template <class Key>
  std::optional<typename basic_olc_btree<Key>::loader>& load_of(per_table& p) {
    if constexpr (std::is_same_v<Key, std::uint64_t>) {
      return p.integer;
    } else {
      return p.bytes;
    }
  }

  template <class Key>
  void add(record_batch::made<Key>& r) {
    table& t = *r.t;
    version* const v = std::exchange(r.v, nullptr);
    if (t.id() >= loads_.size()) loads_.resize(t.id() + 1);
    per_table& p = loads_[t.id()];
    auto& load = load_of<Key>(p);
    if (!p.out_of_order && !load) load.emplace(t.index_of<Key>());
    if (!p.out_of_order) {
      if (const auto last = load->last(); !last || *last < r.key) {
        load->add(r.key, add_record(t, r.key, v));
        return;
      }
      load->finish();  // the keys loaded so far are a tree; the rest go in one by one
      load.reset();
      p.out_of_order = true;
    }
    const auto done = t.index_of<Key>().insert_if_absent(r.key, [&] { return add_record(t, r.key, v); });
    if (!done.inserted) {  // a key twice: the later record wins
      replace(t, done.value, v->value(), v->stamp.load(std::memory_order_relaxed), false);
      version::destroy(v);
    }
  }

  std::vector<per_table> loads_;
};

// Sorts by key, keeping the order of equal keys: a radix sort, a byte at a
// time from the lowest, skipping the bytes that every key shares (a table of
// 10^7 dense keys takes three passes).
template <class Entry>
requires std::is_integral_v<decltype(Entry::key)>
void sort_by_key(std::vector<Entry>& v, std::vector<Entry>& scratch) {
  const std::size_t n = v.size();
  if (n < 2) return;
  std::array<std::array<std::size_t, 256>, 8> counts{};
  for (const Entry& e : v) {
    for (unsigned b = 0; b < 8; ++b) ++counts[b][(e.key >> (8 * b)) & 0xff];
  }
  scratch.resize(n);
  Entry* from = v.data();
  Entry* to = scratch.data();
  for (unsigned b = 0; b < 8; ++b) {
    if (counts[b][(v[0].key >> (8 * b)) & 0xff] == n) continue;
    std::array<std::size_t, 256> at;
    std::size_t sum = 0;
    for (unsigned d = 0; d < 256; ++d) {
      at[d] = sum;
      sum += counts[b][d];
    }
    for (std::size_t i = 0; i < n; ++i) to[at[(from[i].key >> (8 * b)) & 0xff]++] = from[i];
    std::swap(from, to);
  }
  if (from != v.data()) v.swap(scratch);
}

// Other keys: by key, then by where the value sits, which grows as writes
// are added.
template <class Entry>
void sort_by_key(std::vector<Entry>& v, std::vector<Entry>&) {
  std::sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) {
    if (const auto c = a.key <=> b.key; c != 0) return c < 0;
    return a.value_at < b.value_at;
  });
}

// The log's writes, gathered a batch at a time by the thread that reads the
// log, each with its value in the batch's own buffer.
class write_batch {
 public:
  // Writes per batch. Large, so that sorted keys sit close together: a
  // batch of a few million writes into a table of ten million records
  // reaches most leaves one after another.
  static constexpr std::size_t capacity = std::size_t{1} << 22;

  // `table_of`: a table id's table (throws log_corruption for none).
  template <class TableOf>
  void add(const logged_transaction& t, const TableOf& table_of) {
    for (const durability::logged_write& w : t.writes) {
      table& tab = table_of(w.table);
      if (tab.id() >= tables_.size()) tables_.resize(tab.id() + 1);
      per_table& p = tables_[tab.id()];
      p.t = &tab;
      const std::uint64_t at = values_.size();
      if (tab.keys() == key_kind::integer) {
        p.integer.push_back({integer_key(tab, w.key), t.commit, at});
      } else {
        p.bytes.push_back({bytes_key(tab, w.key), t.commit, at});
      }
      const auto bytes = static_cast<std::uint32_t>(w.value.size());
      const char tombstone = w.op == durability::write_op::remove ? 1 : 0;
      values_.append(reinterpret_cast<const char*>(&bytes), sizeof bytes);
      values_.push_back(tombstone);
      values_.append(w.value);
      ++writes_;
    }
  }
  bool full() const noexcept { return writes_ >= capacity; }
  bool empty() const noexcept { return writes_ == 0; }
  // Keeps the memory, to be filled again.
  void clear() noexcept {
    for (per_table& p : tables_) {
      p.integer.clear();
      p.bytes.clear();
    }
    values_.clear();
    writes_ = 0;
  }

 private:
  friend class batch_applier;
  template <class Key>
  struct entry {
    Key key;
    std::uint64_t stamp;
    std::uint64_t value_at;  // in values_: the value's size (4 bytes), its tombstone flag (1), its bytes
  };
  struct per_table {
    table* t = nullptr;
    std::vector<entry<std::uint64_t>> integer;
    std::vector<entry<byte_key>> bytes;
  };

  // The value, its tombstone flag.
  std::pair<std::string_view, bool> value_of(std::uint64_t at) const noexcept {
    std::uint32_t bytes;
    std::memcpy(&bytes, values_.data() + at, sizeof bytes);
    return {std::string_view(values_.data() + at + sizeof bytes + 1, bytes), values_[at + sizeof bytes] != 0};
  }

  std::vector<per_table> tables_;
  std::string values_;
  std::size_t writes_ = 0;
};

// Applies a batch: each table's writes sorted by key and cut to the last
// write of each key (the highest commit stamp; within one transaction, the
// write that came later), then split into key ranges, one per core. Each
// range walks the index leaf by leaf, overwriting the versions of the keys
// it finds; keys it does not find are inserted afterwards, one at a time.
// Stamps make the batches' order irrelevant: a record never takes an older
// value than it has.
class batch_applier {
 public:
  void apply(write_batch& batch) {
    const auto start = std::chrono::steady_clock::now();
    for (write_batch::per_table& p : batch.tables_) {
      if (!p.integer.empty()) apply(batch, *p.t, p.integer, integer_scratch_);
      if (!p.bytes.empty()) apply(batch, *p.t, p.bytes, bytes_scratch_);
    }
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // Spent in apply(), all batches together.
  double seconds() const noexcept { return seconds_; }

 private:
  template <class Key>
  using entry = write_batch::entry<Key>;

  template <class Key>
  void apply(const write_batch& batch, table& t, std::vector<entry<Key>>& writes,
             std::vector<entry<Key>>& scratch) {
    sort_by_key(writes, scratch);
    // The last write of each key.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < writes.size();) {
      std::size_t last = i, j = i + 1;
      for (; j < writes.size() && writes[j].key == writes[i].key; ++j) {
        if (writes[j].stamp >= writes[last].stamp) last = j;
      }
      writes[kept++] = writes[last];
      i = j;
    }
    writes.resize(kept);

    // Few writes are not worth a thread.
    constexpr std::size_t writes_per_part = 1 << 16;
    const std::size_t cores = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
    const std::size_t parts = std::clamp<std::size_t>(kept / writes_per_part, 1, cores);
    std::vector<std::vector<std::size_t>> absent(parts);
    std::vector<std::exception_ptr> failures(parts);
    const auto run = [&](std::size_t p) {
      try {
        typename basic_olc_btree<Key>::sweep sweep(t.index_of<Key>());
        for (std::size_t i = kept * p / parts, end = kept * (p + 1) / parts; i < end; ++i) {
          const entry<Key>& w = writes[i];
          if (const auto oid = sweep.find(w.key)) {
            const auto [value, tombstone] = batch.value_of(w.value_at);
            replace(t, *oid, value, w.stamp, tombstone);
          } else {
            absent[p].push_back(i);
          }
        }
      } catch (...) {
        failures[p] = std::current_exception();
      }
    };
    {
      thread_group helpers(parts - 1, [&](std::size_t p) { run(p + 1); });
      run(0);
    }
    for (const auto& f : failures) {
      if (f) std::rethrow_exception(f);
    }
    // The index does not change while the ranges walk it.
    for (const auto& part : absent) {
      for (const std::size_t i : part) {
        const auto [value, tombstone] = batch.value_of(writes[i].value_at);
        restore(t, writes[i].key, value, writes[i].stamp, tombstone);
      }
    }
  }

  std::vector<entry<std::uint64_t>> integer_scratch_;
  std::vector<entry<byte_key>> bytes_scratch_;
  double seconds_ = 0;
};

// Batches on their way from a thread that reads a file to the one that
// applies them: at most `depth` wait, and applied ones go back to be filled
// again (their memory is already the process's).
struct stopped {};  // thrown at a reader whose applier gave up
template <class Batch>
class handoff {
 public:
  explicit handoff(std::size_t depth) : depth_(depth) {}

  // Reader: a batch to fill. Throws `stopped` once the applier has given up.
  std::unique_ptr<Batch> empty_batch() {
    std::unique_lock<std::mutex> l(mutex_);
    if (stopped_) throw stopped{};
    if (free_.empty()) return std::make_unique<Batch>();
    auto b = std::move(free_.back());
    free_.pop_back();
    return b;
  }
  // Reader: waits while `depth` batches wait.
  void put(std::unique_ptr<Batch> b) {
    std::unique_lock<std::mutex> l(mutex_);
    changed_.wait(l, [&] { return stopped_ || full_.size() < depth_; });
    if (stopped_) throw stopped{};
    full_.push_back(std::move(b));
    changed_.notify_all();
  }
  // Reader: no more batches; `failure` says why, if the log could not be read.
  void close(std::exception_ptr failure = nullptr) {
    std::lock_guard<std::mutex> l(mutex_);
    closed_ = true;
    failure_ = std::move(failure);
    changed_.notify_all();
  }

  // Applier: the next batch, or null once the reader is done (rethrowing
  // what stopped it).
  std::unique_ptr<Batch> take() {
    std::unique_lock<std::mutex> l(mutex_);
    changed_.wait(l, [&] { return closed_ || !full_.empty(); });
    if (!full_.empty()) {
      auto b = std::move(full_.front());
      full_.pop_front();
      changed_.notify_all();
      return b;
    }
    if (failure_) std::rethrow_exception(failure_);
    return nullptr;
  }
  void recycle(std::unique_ptr<Batch> b) {
    b->clear();
    std::lock_guard<std::mutex> l(mutex_);
    free_.push_back(std::move(b));
  }
  // Applier: gives up; the reader stops at its next batch.
  void stop() {
    std::lock_guard<std::mutex> l(mutex_);
    stopped_ = true;
    changed_.notify_all();
  }

 private:
  std::size_t depth_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<Batch>> full_;
  std::vector<std::unique_ptr<Batch>> free_;
  bool closed_ = false, stopped_ = false;
  std::exception_ptr failure_;
};

// What the file names alone tell of a data directory, before anything is
// read: a file named like a segment or a checkpoint that weave would not
// have named so (a renamed or stray file, which recovery would otherwise
// skip), and a log that is gone. The log exists from the moment an engine
// opens the directory, before any table is created or checkpoint taken, and
// its newest segment is never removed (log_writer.cpp): so a directory
// with a table or a checkpoint and no segment lost its log.
void check_log_files(const std::filesystem::path& dir, bool has_checkpoint, bool has_tables) {
  bool has_segment = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const bool segment_like = name.starts_with("wal-") && name.ends_with(".log");
    const bool checkpoint_like = name.starts_with("checkpoint-") && name.ends_with(".wck");
    std::error_code ec;
    if ((segment_like || checkpoint_like) && !entry.is_regular_file(ec)) {
      throw log_corruption(fmt::format("{}: '{}' is not a regular file", dir.string(), name));
    }
    if (segment_like) {
      if (durability::segment_number(name) == 0) {
        throw log_corruption(fmt::format("{}: '{}' is named like a log segment but is not one weave writes "
                                         "(wal- and six or more digits): renamed or foreign, so the log "
                                         "cannot be trusted",
                                         dir.string(), name));
      }
      has_segment = true;
    } else if (checkpoint_like && !durability::checkpoint_snapshot(name)) {
      throw log_corruption(fmt::format("{}: '{}' is named like a checkpoint but is not one weave writes "
                                       "(checkpoint- and 20 digits): renamed or foreign",
                                       dir.string(), name));
    }
  }
  if (!has_segment && (has_checkpoint || has_tables)) {
    throw log_corruption(fmt::format("{}: the log is missing (no wal-*.log segment, though the directory holds {}): "
                                     "commits after {} would be lost",
                                     dir.string(), has_checkpoint ? "a checkpoint" : "tables",
                                     has_checkpoint ? "the checkpoint" : "the tables were created"));
  }
}

}  // namespace

void engine::recover(const engine_options& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::filesystem::path& dir = directory_->path();
  for (const durability::catalog_entry& c : directory_->catalog()) {
    if (c.id != tables_.size()) {
      throw durability::data_directory_error(fmt::format(
          "{}: the catalog's table '{}' has id {}, expected {}", dir.string(), c.name, c.id, tables_.size()));
    }
    if (c.inline_value_bytes > table::max_inline_value_bytes) {
      throw durability::data_directory_error(fmt::format(
          "{}: the catalog's table '{}' keeps values of up to {} bytes in its slots, more than {}",
          dir.string(), c.name, c.inline_value_bytes, table::max_inline_value_bytes));
    }
    add_table(c.name, c.byte_keys ? key_kind::bytes : key_kind::integer, 0, c.inline_value_bytes, false);
  }
  // Reads only tables_, which no longer changes, and the tables' names and kinds.
  const auto table_of = [&](std::uint32_t id) -> table& {
    if (id >= tables_.size()) {
      const std::size_t n = tables_.size();
      throw log_corruption(
          fmt::format("a record of table {}, which CATALOG does not name (it names {} table{})", id, n,
                      n == 1 ? "" : "s"));
    }
    return *tables_[id];
  };
  std::uint64_t snapshot = 0;
  const std::optional<std::uint64_t> newest = durability::newest_checkpoint(dir);
  if (newest) snapshot = *newest;
  check_log_files(dir, newest.has_value(), !tables_.empty());

  // Two threads read, check and decode the files while this one applies
  // what they hand over: one the checkpoint (making its versions), one the
  // log, which starts at once and runs ahead while the checkpoint loads.
  // Either hands over a failure in place of the rest. Everything they share
  // is made before the first starts: nothing may throw past a running
  // thread but the guarded starts below.
  handoff<record_batch> records(4);
  durability::checkpoint_info checkpoint;
  handoff<write_batch> writes(2);
  durability::log_replay replay;
  double log_read_seconds = 0;
  std::thread checkpoint_reader, log_reader;
  const auto join = [&] {
    if (checkpoint_reader.joinable()) checkpoint_reader.join();
    if (log_reader.joinable()) log_reader.join();
  };
  // A thread that cannot start (a limit on them) stops those that did.
  const auto start_thread = [&](std::thread& thread, const auto& body, const char* what) {
    const auto stop_all = [&] {
      records.stop();
      writes.stop();
      join();
    };
    try {
      thread = std::thread(body);
    } catch (const std::system_error& e) {
      stop_all();
      throw std::system_error(e.code(), fmt::format("recovery cannot start its {}", what));
    } catch (...) {
      stop_all();
      throw;
    }
  };
  const auto read_the_checkpoint = [&] {
    try {
      auto batch = records.empty_batch();
      checkpoint = durability::read_checkpoint(
          dir, snapshot, [&](std::uint32_t id, std::string_view key, std::string_view value) {
            batch->add(table_of(id), key, value, snapshot);  // read_checkpoint names the file and byte
            if (batch->full()) {
              records.put(std::move(batch));
              batch = records.empty_batch();
            }
          });
      if (!batch->empty()) records.put(std::move(batch));
      records.close();
    } catch (const stopped&) {
      records.close();
    } catch (...) {
      records.close(std::current_exception());
    }
  };
  const auto read_the_log = [&] {
    try {
      auto batch = writes.empty_batch();
      auto busy_since = std::chrono::steady_clock::now();
      const auto hand_over = [&] {
        log_read_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - busy_since).count();
        writes.put(std::move(batch));
        batch = writes.empty_batch();
        busy_since = std::chrono::steady_clock::now();
      };
      replay = durability::replay_log(dir, snapshot, [&](const durability::logged_transaction& t) {
        try {
          batch->add(t, table_of);
        } catch (const log_corruption& e) {
          throw log_corruption(fmt::format("the log's commit {}: {}", t.commit, e.what()));
        }
        if (batch->full()) hand_over();
      });
      if (!batch->empty()) hand_over();
      writes.close();
    } catch (const stopped&) {
      writes.close();
    } catch (...) {
      writes.close(std::current_exception());
    }
  };
  if (newest) {
    start_thread(checkpoint_reader, read_the_checkpoint, "checkpoint reader");
  } else {
    records.close();
  }
  start_thread(log_reader, read_the_log, "log reader");
  try {
    checkpoint_load load;
    while (auto batch = records.take()) {
      load.add(*batch);
      records.recycle(std::move(batch));
    }
    load.finish();
    if (newest) {
      checkpoint_reader.join();
      recovery_.checkpoint = snapshot;
      recovery_.checkpoint_records = checkpoint.records;
      recovery_.checkpoint_bytes = checkpoint.bytes;
    }
    recovery_.checkpoint_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    batch_applier applier;
    while (auto batch = writes.take()) {
      applier.apply(*batch);
      writes.recycle(std::move(batch));
    }
    recovery_.replay_seconds = applier.seconds();
  } catch (...) {
    records.stop();
    writes.stop();
    join();
    throw;
  }
  join();
  // A checkpoint that names a log belongs with the log's segments, whose
  // newest is never removed: one that names another log (or a log none of
  // the segments names) was copied in, and its records are not this
  // directory's.
  if (checkpoint.log != 0 && checkpoint.log != replay.log) {
    throw log_corruption(fmt::format(
        "{}: {} belongs to log {:016x}, not to this directory's ({}): a checkpoint "
        "from another log",
        dir.string(), durability::checkpoint_name(snapshot), checkpoint.log,
        replay.log == 0 ? std::string("whose segments name none") : fmt::format("{:016x}", replay.log)));
  }
  // Past every timestamp in the files, counted or not: a new commit never
  // shares one with a discarded record.
  const std::uint64_t last = std::max({snapshot, replay.through, replay.last_commit, std::uint64_t{1}});
  // The files hold timestamps below timestamp_limit: a clock that starts
  // below half of it stays below it for 2^61 commits.
  if (!options.read_only && last >= durability::timestamp_limit / 2) {
    throw log_corruption(fmt::format("{}: its timestamps reach {}, past 2^61, too close to the log's limit of 2^62 "
                                     "for new commits (a clock drawing 10^9 a second gets there in 73 years: the "
                                     "files are more likely damaged); it opens read-only",
                                     dir.string(), last));
  }
  // Only now that everything read is sound: nothing is written on a failure.
  if (!options.read_only) {
    durability::cut_torn_tail(dir, replay);
    directory_->upgrade();
  }
  recovery_.log_read_seconds = log_read_seconds;
  recovery_.log_transactions = replay.applied;
  recovery_.log_discarded = replay.discarded;
  recovery_.log_bytes = replay.bytes;
  recovery_.torn_bytes = replay.torn_bytes;
  recovery_.last_commit = std::max(snapshot, replay.through);
  clock_.start_at(last);
  if (!options.read_only) {
    log_ = std::make_unique<durability::redo_log>(dir, options.log, [this] { return clock_.now(); }, &replay);
  }
  recovery_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace weave::txn
