#pragma once
// The transaction engine: tables, the timestamp clock, and snapshot
// isolation over multi-version records.
//
// A transaction reads the snapshot of its begin timestamp: for each record,
// the newest version committed at or before it (or its own pending write).
// A write installs a pending version at the head of the record's chain with
// a compare-and-swap, and only if the head is a version the transaction may
// overwrite: its own, or one committed at or before its snapshot. Anything
// else (a newer commit, another transaction's pending write) is a
// write-write conflict: first updater wins, the transaction must abort.
//
// Commit stamps the transaction's versions with the next timestamp and only
// then advances the clock, under a short commit lock: a snapshot taken from
// the clock therefore never sees half of a commit.
//
// Snapshot isolation still allows write skew. The serializable level adds
// the serial safety net (SSN, Wang et al.) on top: a transaction records the
// versions it read, and at commit computes the latest commit among the
// transactions that must precede it (pstamp: writers of what it read,
// readers of what it overwrote) and the earliest stamp among those that must
// follow it (sstamp: overwriters of what it read). If the first is not below
// the second, committing could close a dependency cycle, and it aborts.
// Commits are serial under the commit lock, so the stamps need no more
// synchronization than that. SSN here covers the records a transaction read;
// a range scan is not protected against inserts into its range (phantoms).
//
// Operations are coroutines under an execution policy, so that a scheduler
// can interleave whole transactions: each suspends before the index nodes,
// the indirection slot and the versions it reads.

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/task.hpp"
#include "weave/index/olc_btree.hpp"
#include "weave/memory/epoch.hpp"
#include "weave/txn/table.hpp"
#include "weave/txn/version.hpp"

namespace weave::txn {

class transaction;

enum class isolation {
  snapshot,      // SI: first updater wins; write skew possible
  serializable,  // SI with the serial safety net on top
};

class engine {
 public:
  explicit engine(isolation level = isolation::snapshot) : level_(level) {}
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // A table that grows as records arrive; `expected_records` only readies
  // that many slots up front.
  table& create_table(std::string name, key_kind keys = key_kind::integer, std::size_t expected_records = 0) {
    std::lock_guard<std::mutex> g(tables_mutex_);
    for (const auto& t : tables_)
      if (t->name() == name) throw std::invalid_argument("table '" + name + "' exists");
    tables_.push_back(std::make_unique<table>(std::move(name), keys, expected_records));
    return *tables_.back();
  }

  // The timestamp of the last commit: a new transaction's snapshot.
  std::uint64_t now() const noexcept { return clock_.load(std::memory_order_acquire); }

  transaction begin();

  // A worker joins once, then brackets each batch of transactions with
  // enter(): versions its transactions unlink are reclaimed by epochs, and
  // versions no running transaction can see are pruned at commit.
  participant& join() { return epochs_.join(); }
  epoch_guard enter(participant& p) {
    return epoch_guard(p, [this] { return now(); });
  }
  const epoch_manager& epochs() const noexcept { return epochs_; }
  isolation level() const noexcept { return level_; }

 private:
  friend class transaction;
  isolation level_;
  // Read by every transaction's begin: on a line of its own, away from
  // the commit lock and the id counter.
  alignas(64) std::atomic<std::uint64_t> clock_{1};
  alignas(64) std::atomic<std::uint64_t> next_id_{1};
  const std::uint64_t serial_ = [] {
    static std::atomic<std::uint64_t> engines{0};
    return engines.fetch_add(1, std::memory_order_relaxed) + 1;
  }();
  // Transaction ids are handed to threads in blocks, so that beginning a
  // transaction writes no shared line.
  static constexpr std::uint64_t id_block = 1024;
  std::uint64_t next_id() {
    // The block belongs to an engine by serial number, not address: a new
    // engine may take a freed one's address.
    thread_local std::uint64_t owner = 0, next = 0, end = 0;
    if (owner != serial_ || next == end) {
      owner = serial_;
      next = next_id_.fetch_add(id_block, std::memory_order_relaxed);
      end = next + id_block;
    }
    return next++;
  }
  std::mutex commit_mutex_;
  std::mutex tables_mutex_;
  epoch_manager epochs_;
  std::vector<std::unique_ptr<table>> tables_;  // retired versions are in no chain: any order of freeing
};

// What an operation did.
enum class status {
  ok,
  not_found,  // no visible record under the key
  duplicate,  // insert of a key that has a visible record
  conflict,   // write-write conflict: the transaction must abort
};

// What a commit did. A failed commit has aborted the transaction; running it
// again from the start may succeed.
enum class commit_status {
  committed,
  write_conflict,         // an operation met another transaction's write (first updater wins)
  serialization_failure,  // serializable: committing could close a dependency cycle, or a
                          // range it read (a scan, or a key it found absent) has changed
};

constexpr const char* name_of(commit_status s) noexcept {
  switch (s) {
    case commit_status::committed: return "committed";
    case commit_status::write_conflict: return "write_conflict";
    case commit_status::serialization_failure: return "serialization_failure";
  }
  return "?";
}

// What an application names a record by: an integer (as 8 unsigned bytes)
// or a byte string (std::string, std::string_view, a literal).
template <class K>
concept record_key = std::integral<K> || std::convertible_to<const K&, std::string_view>;

namespace detail {
template <class K>
struct record_key_traits {  // integers
  using index_key = std::uint64_t;
  using scan_key = std::uint64_t;
  static std::uint64_t to_index(K k) noexcept { return static_cast<std::uint64_t>(k); }
  static std::uint64_t to_scan(std::uint64_t k) noexcept { return k; }
};
template <class K>
  requires std::convertible_to<const K&, std::string_view>
struct record_key_traits<K> {
  using index_key = byte_key;
  using scan_key = std::string;
  static byte_key to_index(const K& k) { return byte_key(std::string_view(k)); }
  static std::string to_scan(const byte_key& k) { return k.str(); }
};
}  // namespace detail

// The key type of the records a scan from a K returns: std::uint64_t or
// std::string.
template <record_key K>
using scan_key_t = typename detail::record_key_traits<K>::scan_key;

namespace detail {
// Vectors whose storage a thread's transactions hand on to the next one, so
// that read and write sets cost no allocation in steady state.
template <class T>
class spare_vectors {
 public:
  static std::vector<T> take() noexcept {
    if (spares_.empty()) return {};
    std::vector<T> v = std::move(spares_.back());
    spares_.pop_back();
    return v;
  }
  static void give(std::vector<T>& v) noexcept {
    v.clear();
    if (v.capacity() == 0 || spares_.size() >= max_spares) return;
    try {
      spares_.push_back(std::move(v));
    } catch (const std::bad_alloc&) {  // keeping it is only an optimization
    }
  }

 private:
  static constexpr std::size_t max_spares = 256;
  static inline thread_local std::vector<std::vector<T>> spares_;
};
}  // namespace detail

class transaction {
 public:
  explicit transaction(engine& e)
      : engine_(&e),
        participant_(epoch_guard::current()),
        id_(e.next_id()),
        serializable_(e.level_ == isolation::serializable) {
    // Outside a batch the transaction holds off pruning; it says so before
    // it reads its snapshot, so that no version it may need goes first.
    if (participant_ == nullptr) e.epochs_.unmanaged_begin();
    begin_ = e.now();
  }
  transaction(transaction&& o) noexcept
      : engine_(o.engine_), participant_(o.participant_), begin_(o.begin_), id_(o.id_),
        serializable_(o.serializable_), writes_(std::move(o.writes_)), reads_(std::move(o.reads_)),
        ranges_(std::move(o.ranges_)), inserted_into_(std::move(o.inserted_into_)), state_(o.state_) {
    o.state_ = state::finished;
  }
  transaction& operator=(transaction&&) = delete;
  ~transaction() {
    if (state_ != state::finished) abort();
  }

  std::uint64_t snapshot() const noexcept { return begin_; }
  // Whether an operation hit a conflict: commit() will then abort.
  bool failed() const noexcept { return state_ == state::failed; }

  // The value under `key` in this transaction's snapshot. One flat
  // coroutine: the index descent and the version-chain walk are inlined, so
  // each suspension is a single resume.
  template <execution_policy Policy, record_key K>
  task<std::optional<std::string_view>> get(const table& t, const K& key) {
    using traits = detail::record_key_traits<K>;
    return read<Policy>(t, t.index_of<typename traits::index_key>(), traits::to_index(key));
  }

  // The same, as nested tasks (index lookup, then chain walk): the
  // coro-nested baseline of the benchmarks.
  template <execution_policy Policy, record_key K>
  task<std::optional<std::string_view>> get_nested(const table& t, const K& key) {
    using traits = detail::record_key_traits<K>;
    return read_nested<Policy>(t, t.index_of<typename traits::index_key>(), traits::to_index(key));
  }

  // Gets many keys of one table at once, interleaving their lookups with
  // up to `group` in flight, whatever the caller's own policy: the
  // multi-key interface. Calls out(i, value) for keys[i].
  template <class Keys, class Out>
  void multi_get(const table& t, const Keys& keys, Out&& out, std::size_t group = 8) {
    interleaved_scheduler{std::min<std::size_t>(std::max<std::size_t>(group, 1), interleaved_scheduler::max_group)}
        .run(
            std::size(keys), [&](auto policy, std::size_t i) { return get<decltype(policy)>(t, keys[i]); },
            [&](std::size_t i, std::optional<std::string_view> v) { out(i, v); });
  }

  // Replaces the value of an existing record (flat, like get).
  template <execution_policy Policy, record_key K>
  task<status> put(table& t, const K& key, std::string_view value) {
    using traits = detail::record_key_traits<K>;
    return update<Policy>(t, t.index_of<typename traits::index_key>(), traits::to_index(key), value);
  }

  template <execution_policy Policy, record_key K>
  task<status> put_nested(table& t, const K& key, std::string_view value) {
    using traits = detail::record_key_traits<K>;
    return write<Policy>(t, t.index_of<typename traits::index_key>(), traits::to_index(key), value, false);
  }

  // Deletes a record (installs a tombstone).
  template <execution_policy Policy, record_key K>
  task<status> remove(table& t, const K& key) {
    using traits = detail::record_key_traits<K>;
    return write<Policy>(t, t.index_of<typename traits::index_key>(), traits::to_index(key), {}, true);
  }

  // Adds a record under a key that has no visible record.
  template <execution_policy Policy, record_key K>
  task<status> insert(table& t, const K& key, std::string_view value) {
    using traits = detail::record_key_traits<K>;
    return add<Policy>(t, t.index_of<typename traits::index_key>(), traits::to_index(key), value);
  }

  // Up to `limit` records with keys in [from, to], in key order, visible in
  // this snapshot, appended to `out`. Serializable transactions are
  // protected against inserts into the range read (phantoms).
  template <execution_policy Policy, record_key K>
  task<void> scan(const table& t, const K& from, const K& to, std::size_t limit,
                  std::vector<std::pair<scan_key_t<K>, std::string_view>>& out) {
    using traits = detail::record_key_traits<K>;
    return scan_in<Policy, traits>(t, t.index_of<typename traits::index_key>(), traits::to_index(from),
                                   traits::to_index(to), limit, out);
  }
  // The same with no end bound: keys >= from.
  template <execution_policy Policy, record_key K>
  task<void> scan(const table& t, const K& from, std::size_t limit,
                  std::vector<std::pair<scan_key_t<K>, std::string_view>>& out) {
    using traits = detail::record_key_traits<K>;
    using index_key = typename traits::index_key;
    return scan_in<Policy, traits>(t, t.index_of<index_key>(), traits::to_index(from),
                                   weave::detail::olc_key<index_key>::largest(), limit, out);
  }

  // Makes the writes visible, or aborts the transaction and says why: it
  // had met a write-write conflict, or (serializable) committing it could
  // break serializability.
  commit_status commit() {
    if (state_ == state::finished) throw std::logic_error("transaction already finished");
    if (state_ == state::failed) {
      abort();
      return commit_status::write_conflict;
    }
    // Under SSN a reader also takes a commit stamp: later overwriters of
    // what it read, and inserters into ranges it read, must order
    // themselves after it.
    if (!writes_.empty() || !reads_.empty() || !ranges_.empty()) {
      std::uint64_t ts = 0;
      {
        std::lock_guard<std::mutex> g(engine_->commit_mutex_);
        ts = engine_->clock_.load(std::memory_order_relaxed) + 1;
        if (serializable_ && !serial_safety_net(ts)) ts = 0;
        if (ts != 0) {
          for (const write_entry& w : writes_) w.v->stamp.store(ts, std::memory_order_release);
          engine_->clock_.store(ts, std::memory_order_release);
        }
      }
      if (ts == 0) {
        abort();
        return commit_status::serialization_failure;
      }
      if (!writes_.empty()) prune(ts);
    }
    finish();
    return commit_status::committed;
  }

  // Takes the writes back out of their chains, newest first.
  void abort() {
    if (state_ == state::finished) return;
    for (auto it = writes_.rbegin(); it != writes_.rend(); ++it) {
      it->t->head(it->oid).store(it->v->older.load(std::memory_order_relaxed), std::memory_order_release);
      // A reader may be looking at it: freed once no batch can.
      if (participant_ != nullptr) {
        participant_->retire(it->v, &version::destroy_erased);
      } else {
        it->t->retire(it->v);
      }
    }
    finish();
  }

 private:
  enum class state { active, failed, finished };

  void finish() noexcept {
    detail::spare_vectors<write_entry>::give(writes_);
    detail::spare_vectors<const version*>::give(reads_);
    detail::spare_vectors<range_read>::give(ranges_);
    detail::spare_vectors<const std::atomic<std::uint64_t>*>::give(inserted_into_);
    state_ = state::finished;
    if (participant_ == nullptr) engine_->epochs_.unmanaged_end();
  }

  // Cuts the chains this transaction wrote below the newest version every
  // running transaction sees: nothing can reach what is behind it. Done by
  // the committer, so the cost is spread over the writes.
  void prune(std::uint64_t committed) {
    if (participant_ == nullptr) return;
    const std::uint64_t oldest = engine_->epochs_.oldest_snapshot(committed);
    if (oldest == 0) return;
    for (const write_entry& w : writes_) {
      version* v = w.v;
      while (v != nullptr) {
        const std::uint64_t s = v->stamp.load(std::memory_order_acquire);
        if (!(s & pending) && s <= oldest) break;
        v = v->older.load(std::memory_order_acquire);
      }
      if (v == nullptr) continue;
      // Whoever takes the link frees what hangs on it.
      if (version* dead = v->older.exchange(nullptr, std::memory_order_acq_rel)) {
        participant_->retire(dead, &version::destroy_chain_erased);
      }
    }
  }
  struct write_entry {
    table* t;
    oid_t oid;
    version* v;
  };

  // The committed version a write replaced, or null for a new record.
  static const version* overwritten(const write_entry& w) noexcept {
    const version* o = w.v->older.load(std::memory_order_acquire);
    while (o != nullptr && (o->stamp.load(std::memory_order_acquire) & pending)) {
      o = o->older.load(std::memory_order_acquire);  // an earlier write of ours to the record
    }
    return o;
  }

  // SSN's exclusion test for a commit at `ts`, under the commit lock. If it
  // passes, the stamps of what the transaction read and overwrote are
  // updated for the transactions that commit after it.
  //
  // Ranges take part as versions do. A leaf whose range the transaction
  // read (a scan, or a key it found absent) keeps in its mark the latest
  // commit that read it: an inserter into the leaf must come after that
  // reader, as an overwriter must come after the readers of a version. An
  // insert into the range before this commit changed the leaf's version:
  // the inserter would have to come both after (its key is not in what we
  // read) and, unknown to us, possibly before, so we give up. A key that has
  // a slot but no committed version is read as the committed tombstone at
  // the bottom of every serializable chain, so inserters over it are
  // ordinary overwriters.
  bool serial_safety_net(std::uint64_t ts) {
    std::uint64_t predecessor = 0;  // latest commit that must come before
    std::uint64_t successor = ts;   // earliest stamp that must come after
    for (const version* r : reads_) {
      predecessor = std::max(predecessor, r->stamp.load(std::memory_order_relaxed));
      successor = std::min(successor, r->sstamp.load(std::memory_order_relaxed));
    }
    for (const write_entry& w : writes_) {
      if (const version* o = overwritten(w)) predecessor = std::max(predecessor, o->pstamp.load(std::memory_order_relaxed));
    }
    // Before our own ranges are marked: a leaf we read and inserted into
    // must not order us after ourselves.
    for (const std::atomic<std::uint64_t>* mark : inserted_into_) {
      predecessor = std::max(predecessor, mark->load(std::memory_order_seq_cst));
    }
    if (successor <= predecessor) return false;
    // Mark, then check: an inserter that changes the leaf after the check
    // finds the mark.
    for (const range_read& r : ranges_) {
      std::uint64_t m = r.mark->load(std::memory_order_relaxed);
      while (!r.mark->compare_exchange_weak(m, std::max(m, ts), std::memory_order_seq_cst)) {
      }
    }
    for (const range_read& r : ranges_) {
      if (r.version->load(std::memory_order_seq_cst) != r.seen) return false;
    }
    for (const version* r : reads_) {
      r->pstamp.store(std::max(r->pstamp.load(std::memory_order_relaxed), ts), std::memory_order_relaxed);
    }
    for (const write_entry& w : writes_) {
      if (const version* o = overwritten(w)) o->sstamp.store(successor, std::memory_order_relaxed);
      w.v->pstamp.store(ts, std::memory_order_relaxed);
    }
    return true;
  }

  // Under SSN, a committed version the transaction has read.
  void note_read(const version* v) {
    if (serializable_ && v != nullptr && !(v->stamp.load(std::memory_order_relaxed) & pending)) reads_.push_back(v);
  }

  // Under SSN, a leaf whose range the transaction read, validated at `seen`.
  template <class Node>
  void note_range(const Node& leaf, std::uint64_t seen) {
    if (serializable_) ranges_.push_back({&leaf.version, seen, &leaf.mark});
  }

  // Under SSN, a split of a leaf by our own insert: a range read of it is a
  // read of both halves.
  template <class Node>
  void note_split(const Node& left, std::uint64_t before, std::uint64_t after, const Node& right,
                  std::uint64_t right_version) {
    if (!serializable_) return;
    bool read = false;
    for (range_read& r : ranges_) {
      if (r.version == &left.version && r.seen == before) {
        r.seen = after;
        read = true;
      }
    }
    if (read) ranges_.push_back({&right.version, right_version, &right.mark});
  }

  // Under SSN, an insert into a leaf: later commits of readers of its range
  // come after us, and a range we read ourselves stays valid through our
  // own insert.
  template <class Outcome>
  void note_insert(const Outcome& o) {
    if (!serializable_) return;
    inserted_into_.push_back(&o.leaf->mark);
    for (range_read& r : ranges_) {
      if (r.version == &o.leaf->version && r.seen == o.version_before) r.seen = o.version_after;
    }
  }

  bool sees(std::uint64_t stamp) const noexcept {
    if (stamp & pending) return (stamp & ~pending) == id_;
    return stamp <= begin_;
  }

  static std::optional<std::string_view> value_of(const version* v) noexcept {
    if (v == nullptr || v->tombstone) return std::nullopt;
    return v->value();
  }

  // Walks record `oid`'s chain to the version a transaction sees: step()
  // gives the next address to prefetch (the indirection slot, then each
  // version in turn) or null once found() is known.
  class chain_cursor {
   public:
    chain_cursor(const table& t, oid_t oid) noexcept : t_(&t), oid_(oid) {}
    const void* step(transaction& tx) {
      switch (at_) {
        case at::start:
          at_ = at::slot;
          return t_->head_address(oid_);
        case at::slot:
          at_ = at::chain;
          v_ = t_->head(oid_).load(std::memory_order_acquire);
          return v_;
        case at::chain:
          if (v_ == nullptr || tx.sees(v_->stamp.load(std::memory_order_acquire))) {
            tx.note_read(v_);
            return nullptr;
          }
          v_ = v_->older.load(std::memory_order_acquire);
          return v_;
      }
      return nullptr;
    }
    const version* found() const noexcept { return v_; }
    // The bytes to prefetch at what step() returned: the slot, or a version
    // with a value of the table's usual size (all of a wide row's lines at
    // once, not one miss after another as it is copied).
    std::size_t bytes() const noexcept {
      return at_ == at::slot ? sizeof(version*) : sizeof(version) + t_->usual_value_bytes();
    }

   private:
    enum class at { start, slot, chain };
    const table* t_;
    oid_t oid_;
    const version* v_ = nullptr;
    at at_ = at::start;
  };

  // The bodies of the operations, over the table's index for the key type.
  template <execution_policy Policy, class Key>
  task<std::optional<std::string_view>> read(const table& t, const basic_olc_btree<Key>& index, Key key) {
    typename basic_olc_btree<Key>::descent d(index, key);
    while (const auto* next = d.step()) co_await prefetch<Policy>(*next, d.cold());
    if (!d.value()) {
      note_range(*d.leaf(), d.leaf_version());
      co_return std::nullopt;
    }
    chain_cursor c(t, *d.value());
    while (const void* next = c.step(*this)) co_await prefetch<Policy>(next, c.bytes(), !t.cached());
    co_return value_of(c.found());
  }

  template <execution_policy Policy, class Key>
  task<std::optional<std::string_view>> read_nested(const table& t, const basic_olc_btree<Key>& index, Key key) {
    const std::optional<std::uint64_t> oid = co_await lookup<Policy>(index, key);
    if (!oid) co_return std::nullopt;
    co_return value_of(co_await visible<Policy>(t, *oid));
  }

  template <execution_policy Policy, class Key>
  task<status> update(table& t, const basic_olc_btree<Key>& index, Key key, std::string_view value) {
    if (state_ != state::active) co_return status::conflict;
    typename basic_olc_btree<Key>::descent d(index, key);
    while (const auto* next = d.step()) co_await prefetch<Policy>(*next, d.cold());
    if (!d.value()) {
      note_range(*d.leaf(), d.leaf_version());
      co_return status::not_found;
    }
    chain_cursor c(t, *d.value());
    while (const void* next = c.step(*this)) co_await prefetch<Policy>(next, c.bytes(), !t.cached());
    if (!value_of(c.found())) co_return status::not_found;
    co_return install_now(t, *d.value(), value, false);
  }

  template <execution_policy Policy, class Key>
  task<status> add(table& t, basic_olc_btree<Key>& index, Key key, std::string_view value) {
    if (state_ != state::active) co_return status::conflict;
    // Under SSN a new chain ends in a committed tombstone, older than any
    // snapshot: a reader that finds the key but no committed value has read
    // it, and the inserter overwrites it (see serial_safety_net).
    version* base = serializable_ ? version::make(0, nullptr, {}, true) : nullptr;
    version* v = version::make(pending | id_, base, value, false);
    t.note_value_bytes(value.size());
    // A slot only for a key that is absent, filled before the key can be found.
    oid_t fresh = 0;
    const auto done = index.insert_if_absent(
        key,
        [&] {
          fresh = t.allocate_oid();
          t.head(fresh).store(v, std::memory_order_release);
          return fresh;
        },
        [this](const auto& left, std::uint64_t before, std::uint64_t after, const auto& right, std::uint64_t rv) {
          note_split(left, before, after, right, rv);
        });
    if (done.inserted) {
      writes_.push_back({&t, fresh, v});
      note_insert(done);
      co_return status::ok;
    }
    // The key has a slot already: the insert becomes a write on its record
    // if that is deleted (or was never committed).
    version::destroy_chain(v);  // never published
    const version* current = co_await visible<Policy>(t, done.value);
    if (current != nullptr && !current->tombstone) co_return status::duplicate;
    co_return co_await install<Policy>(t, done.value, value, false);
  }

  template <execution_policy Policy, class Traits, class Key>
  task<void> scan_in(const table& t, const basic_olc_btree<Key>& index, Key from, Key to, std::size_t limit,
                     std::vector<std::pair<typename Traits::scan_key, std::string_view>>& out) {
    std::vector<std::pair<Key, std::uint64_t>> entries;
    std::size_t taken = 0;
    bool after = false;
    const auto note = [this](const auto& leaf, std::uint64_t seen) { note_range(leaf, seen); };
    while (taken < limit) {
      entries.clear();
      const std::size_t asked = limit - taken;
      co_await weave::scan<Policy>(index, from, to, asked, entries, after, note);
      if (entries.empty()) break;
      for (const auto& [key, oid] : entries) {
        // The chain walk inlined: a long scan of cached records then needs
        // no transfer per record.
        chain_cursor c(t, oid);
        while (const void* next = c.step(*this)) co_await prefetch<Policy>(next, c.bytes(), !t.cached());
        if (const auto v = value_of(c.found())) {
          out.emplace_back(Traits::to_scan(key), *v);
          ++taken;
        }
      }
      if (entries.size() < asked) break;  // the index has no more
      // Some were deleted in this snapshot: go on after the last one.
      from = entries.back().first;
      after = true;
    }
  }

  // The version of record `oid` this transaction sees, or null.
  template <execution_policy Policy>
  task<const version*> visible(const table& t, oid_t oid) {
    chain_cursor c(t, oid);
    while (const void* next = c.step(*this)) co_await prefetch<Policy>(next, c.bytes(), !t.cached());
    co_return c.found();
  }

  template <execution_policy Policy, class Key>
  task<status> write(table& t, const basic_olc_btree<Key>& index, Key key, std::string_view value, bool tombstone) {
    if (state_ != state::active) co_return status::conflict;
    typename basic_olc_btree<Key>::descent d(index, key);
    while (const auto* next = d.step()) co_await prefetch<Policy>(*next, d.cold());
    if (!d.value()) {
      note_range(*d.leaf(), d.leaf_version());
      co_return status::not_found;
    }
    const version* current = co_await visible<Policy>(t, *d.value());
    if (current == nullptr || current->tombstone) co_return status::not_found;
    co_return co_await install<Policy>(t, *d.value(), value, tombstone);
  }

  // Puts a new pending version at the head of `oid`'s chain, if the head is
  // ours or committed in our snapshot; otherwise the transaction fails.
  template <execution_policy Policy>
  task<status> install(table& t, oid_t oid, std::string_view value, bool tombstone) {
    co_await prefetch<Policy>(t.head_address(oid), sizeof(version*), !t.cached());
    co_return install_now(t, oid, value, tombstone);
  }

  status install_now(table& t, oid_t oid, std::string_view value, bool tombstone) {
    version* head = t.head(oid).load(std::memory_order_acquire);
    if (head != nullptr && !sees(head->stamp.load(std::memory_order_acquire))) {
      state_ = state::failed;
      return status::conflict;
    }
    version* v = version::make(pending | id_, head, value, tombstone);
    t.note_value_bytes(value.size());
    if (!t.head(oid).compare_exchange_strong(head, v, std::memory_order_acq_rel)) {
      version::destroy(v);  // never published
      state_ = state::failed;
      return status::conflict;
    }
    writes_.push_back({&t, oid, v});
    return status::ok;
  }

  engine* engine_;
  participant* participant_;  // the batch's, or null (unmanaged)
  std::uint64_t begin_ = 0;
  std::uint64_t id_;
  bool serializable_;
  std::vector<write_entry> writes_ = detail::spare_vectors<write_entry>::take();
  std::vector<const version*> reads_ = detail::spare_vectors<const version*>::take();
  // Serializable only: leaves whose ranges were read, and the marks of
  // leaves this transaction inserted into.
  struct range_read {
    const std::atomic<std::uint64_t>* version;
    std::uint64_t seen;
    std::atomic<std::uint64_t>* mark;
  };
  std::vector<range_read> ranges_ = detail::spare_vectors<range_read>::take();
  std::vector<const std::atomic<std::uint64_t>*> inserted_into_ =
      detail::spare_vectors<const std::atomic<std::uint64_t>*>::take();
  state state_ = state::active;
};

inline transaction engine::begin() { return transaction(*this); }

}  // namespace weave::txn
