#pragma once
// A transaction: snapshot isolation over multi-version records, and the
// serializable level on top of it (serial_safety_net.hpp).
//
// A transaction reads the snapshot of its begin timestamp: for each record,
// the newest version committed at or before it (or its own pending write).
// A write installs a pending version at the head of the record's chain with
// a compare-and-swap, and only if the head is a version the transaction may
// overwrite: its own, or one committed at or before its snapshot. Anything
// else (a newer commit, another transaction's pending write) is a
// write-write conflict: first updater wins, the transaction must abort.
//
// Commit draws a timestamp from the engine's commit clock, stamps the
// transaction's versions with it and completes it; snapshots only reach a
// timestamp once every commit at or before it is complete, so a snapshot
// never sees half of a commit. No lock is taken (commit_clock.hpp).
//
// Operations are coroutines under an execution policy, so that a scheduler
// can interleave whole transactions: each suspends before the index nodes,
// the indirection slot and the versions it reads. An operation on a table
// of another engine throws std::invalid_argument; a byte-string key longer
// than byte_key::capacity, or a value longer than table::max_value_bytes,
// throws std::length_error.

#include <algorithm>
#include <atomic>
#include <coroutine>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/park.hpp"
#include "weave/exec/task.hpp"
#include "weave/index/olc_btree.hpp"
#include "weave/memory/epoch.hpp"
#include "weave/txn/detail/spare_vectors.hpp"
#include "weave/txn/detail/write_entry.hpp"
#include "weave/txn/engine.hpp"
#include "weave/txn/record_key.hpp"
#include "weave/txn/serial_safety_net.hpp"
#include "weave/txn/status.hpp"
#include "weave/txn/table.hpp"
#include "weave/txn/version.hpp"

namespace weave::txn {

// Transactions on this thread that aborted on a conflict (a write-write
// conflict, or a serialization failure), since the thread started; not
// rollbacks by their caller or log failures. contention_scheduler reads it
// around each run of a worker's transactions.
std::uint64_t conflicts_on_this_thread() noexcept;

// A record a transaction has read, as find() returns it: which record it
// is, and the value this transaction sees. Good for a put by the same
// transaction, which then needs neither the index nor the chain again.
struct found_record {
  const table* in = nullptr;
  oid_t oid = 0;
  std::string_view value;
};

class transaction {
 public:
  explicit transaction(engine& e, reservation r = {});
  transaction(transaction&& o) noexcept;
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
    return read_in<Policy, false>(t, t.index_of<typename traits::index_key>(), traits::to_index(key));
  }

  // The same with the record's id: for a read-modify-write, whose put(t,
  // found, value) then costs no second descent and no second chain walk.
  template <execution_policy Policy, record_key K>
  task<std::optional<found_record>> find(const table& t, const K& key) {
    using traits = detail::record_key_traits<K>;
    return read_in<Policy, true>(t, t.index_of<typename traits::index_key>(), traits::to_index(key));
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

  // Replaces the value of an existing record.
  template <execution_policy Policy, record_key K>
  task<status> put(table& t, const K& key, std::string_view value) {
    using traits = detail::record_key_traits<K>;
    return put_in<Policy>(t, t.index_of<typename traits::index_key>(), traits::to_index(key), value, false);
  }

  // Replaces the value of a record this transaction found in `t`. Its
  // first-updater check is the head of the record's chain, which the find
  // has just read: no suspension point. A record deleted or rewritten by a
  // commit since this transaction's snapshot is a conflict, as for put.
  // A record this transaction has deleted since its find is not found, as
  // for put by key. Throws std::invalid_argument for a record of another table.
  status put(table& t, const found_record& r, std::string_view value) {
    if (r.in != &t)
      throw std::invalid_argument("put: the record was found in table '" +
                                  (r.in != nullptr ? r.in->name() : std::string("?")) + "', not '" +
                                  t.name() + "'");
    check_write(t, value);
    if (state_ != state::active) return status::conflict;
    const version* head = t.head(r.oid).load(std::memory_order_acquire);
    if (head != nullptr && head->tombstone && sees(head->stamp.load(std::memory_order_acquire))) {
      return status::not_found;
    }
    return install(t, r.oid, value, false);
  }

  // Deletes a record (installs a tombstone).
  template <execution_policy Policy, record_key K>
  task<status> remove(table& t, const K& key) {
    using traits = detail::record_key_traits<K>;
    return put_in<Policy>(t, t.index_of<typename traits::index_key>(), traits::to_index(key), {}, true);
  }

  // Adds a record under a key that has no visible record.
  template <execution_policy Policy, record_key K>
  task<status> insert(table& t, const K& key, std::string_view value) {
    using traits = detail::record_key_traits<K>;
    return insert_in<Policy>(t, t.index_of<typename traits::index_key>(), traits::to_index(key), value);
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

  // By record id (from the table's index): the value of record `oid` in
  // this snapshot, and a new value for it. For callers that keep ids of
  // their own, and for the benchmarks' nested forms of get and put.
  template <execution_policy Policy>
  task<std::optional<std::string_view>> get_record(const table& t, oid_t oid) {
    co_return value_of(co_await visible<Policy>(t, oid));
  }
  template <execution_policy Policy>
  task<status> put_record(table& t, oid_t oid, std::string_view value) {
    check_write(t, value);
    if (state_ != state::active) co_return status::conflict;
    const version* current = co_await visible<Policy>(t, oid);
    if (current == nullptr || current->tombstone) co_return status::not_found;
    co_await prefetch<Policy>(t.head_address(oid), sizeof(version*), !t.cached());
    co_return install(t, oid, value, false);
  }

  // Makes the writes visible, or aborts the transaction and says why: it
  // had met a write-write conflict, or (serializable) committing it could
  // break serializability, or (durable engine) the log cannot be written.
  // Under `sync` it returns once the commit is durable, and a read-only
  // transaction once what it read is: the calling thread waits.
  commit_status commit() { return acknowledged(commit_in_memory()); }

  // The same as a suspension point: under `sync` a transaction whose policy
  // suspends parks until its log group is durable, and its worker's ring
  // scheduler runs other transactions meanwhile; under a policy that does
  // not suspend (or a loop that resumes it early) it waits as commit() does.
  // An awaitable, not a task: an in-memory commit costs no frame.
  template <execution_policy Policy>
  auto commit() {
    return commit_awaitable{{}, this, Policy::suspends, commit_status::committed};
  }

  // The same without the wait for the disk, for a caller that tells others
  // of its commits later (a server answering clients, a benchmark counting
  // them): once it returns, nothing of the transaction is used again and its
  // worker goes on, where a parked commit<Policy>() holds its scheduler run
  // open until the disk is done. Under `sync` a committed one may be told to
  // anyone only once engine::acknowledgement(durable_at) says so.
  [[nodiscard]] deferred_commit commit_deferred() {
    const commit_status s = commit_in_memory();
    return {s, s == commit_status::committed ? wait_for_ : 0};
  }

  // Takes the writes back out of their chains, newest first.
  void abort();

 private:
  enum class state { active, failed, finished };

  // Commit up to the wait for the disk; sets wait_for_.
  commit_status commit_in_memory();
  // The status once the caller may see the commit: waits for the disk if
  // it must.
  commit_status acknowledged(commit_status s) {
    if (s != commit_status::committed || wait_for_ == 0) return s;
    return engine_->log_->wait_durable(wait_for_) ? s : commit_status::log_failure;
  }

  struct commit_awaitable : weave::detail::suspend_to_scheduler {
    transaction* t;
    bool suspends;
    commit_status status;

    bool await_ready() {
      status = t->commit_in_memory();
      return !suspends || status != commit_status::committed || t->wait_for_ == 0;
    }
    void await_suspend(std::coroutine_handle<> self) noexcept {
      weave::detail::resume_point = self.address();
      durability::redo_log* log = t->engine_->log_.get();
      weave::detail::last_park = {&log->settled(), t->wait_for_, &durability::redo_log::hurry_erased, log};
    }
    commit_status await_resume() { return t->acknowledged(status); }
  };
  // Appends the writes to the log as commit `ts`; false if it cannot.
  bool log_writes(std::uint64_t ts) noexcept;
  static bool log_writes_erased(void* self, std::uint64_t ts) noexcept {
    return static_cast<transaction*>(self)->log_writes(ts);
  }
  void finish() noexcept;
  // After the commit is visible: must not throw, or the transaction would
  // be aborted (its versions unlinked) after it committed.
  void prune(std::uint64_t committed) noexcept;

  bool sees(std::uint64_t stamp) const noexcept {
    if (stamp & pending) return (stamp & ~pending) == id_;
    return stamp <= begin_;
  }

  static std::optional<std::string_view> value_of(const version* v) noexcept {
    if (v == nullptr || v->tombstone) return std::nullopt;
    return v->value();
  }

  // Under SSN, the version a read found, or (null) the oldest version of a
  // chain none of whose versions it sees.
  [[gnu::always_inline]] void note_read(const version* v, const version* bottom) {
    if (!serializable_) return;
    if (v != nullptr) {
      ssn_.note_read(v);
    } else if (bottom != nullptr) {
      ssn_.note_absent_below(bottom);
    }
  }
  // Under SSN, a lookup that found no key: its leaf's range was read.
  template <class Descent>
  void note_absent(const Descent& d) {
    if (serializable_) ssn_.note_range(*d.leaf(), d.leaf_version());
  }

  // Walks record `oid`'s chain to the version a transaction sees: step()
  // gives the next address to prefetch (the indirection slot, then each
  // version in turn) or null once found() is known.
  //
  // Under a policy whose loads do not prefetch, step() asks for all lines
  // of each version of a table that is not cached itself: a wide row's
  // lines then arrive together, not one miss after another as it is copied.
  class chain_cursor {
   public:
    template <execution_policy Policy>
    chain_cursor(const table& t, oid_t oid, Policy) noexcept
        : t_(&t), oid_(oid), prefetch_versions_(!Policy::prefetches && !t.cached()) {}
    // Inlined into every read: out of line it costs a call per chain step
    // and the caller's registers (8% more instructions per update-only
    // YCSB transaction when clang stopped inlining it).
    [[gnu::always_inline]] const void* step(transaction& tx) {
      switch (at_) {
        case at::start:
          at_ = at::slot;
          if (prefetch_versions_ && bytes() > 64)
            weave::detail::prefetch_lines(t_->head_address(oid_), bytes());
          return t_->head_address(oid_);
        case at::slot:
          at_ = at::chain;
          v_ = t_->head(oid_).load(std::memory_order_acquire);
          // A version made in the slot came into the cache with it.
          if (v_ == nullptr || !t_->in_slot(oid_, v_)) return ask_for(v_);
          [[fallthrough]];
        case at::chain:
          if (v_ == nullptr || tx.sees(v_->stamp.load(std::memory_order_acquire))) {
            tx.note_read(v_, bottom_);
            return nullptr;
          }
          bottom_ = v_;
          v_ = v_->older.load(std::memory_order_acquire);
          if (v_ == nullptr) tx.note_read(nullptr, bottom_);  // the end: nothing seen
          return ask_for(v_);
      }
      return nullptr;
    }
    const version* found() const noexcept { return v_; }
    // The bytes to prefetch at what step() returned: the slot (with the
    // version it may hold), or a version with a value of the table's usual
    // size (all of a wide row's lines at once, not one miss after another
    // as it is copied).
    std::size_t bytes() const noexcept {
      const std::size_t v = sizeof(version) + t_->usual_value_bytes();
      return at_ == at::slot ? std::min(t_->slot_bytes(), sizeof(version*) + v) : v;
    }

   private:
    enum class at { start, slot, chain };
    const version* ask_for(const version* v) const noexcept {
      if (prefetch_versions_ && v != nullptr) weave::detail::prefetch_lines(v, bytes());
      return v;
    }

    const table* t_;
    oid_t oid_;
    bool prefetch_versions_;
    const version* v_ = nullptr;
    const version* bottom_ = nullptr;  // the last version passed over
    at at_ = at::start;
  };

  // The bodies of the operations, over the table's index for the key type.
  // get (the value) and find (the value and the record's id).
  template <execution_policy Policy, bool WithId, class Key>
  task<std::optional<std::conditional_t<WithId, found_record, std::string_view>>> read_in(
      const table& t, const basic_olc_btree<Key>& index, Key key) {
    check_table(t);
    typename basic_olc_btree<Key>::descent d(index, key, Policy{});
    while (const auto* next = d.step()) co_await prefetch<Policy>(*next, d.cold());
    if (!d.value()) {
      note_absent(d);
      co_return std::nullopt;
    }
    chain_cursor c(t, *d.value(), Policy{});
    while (const void* next = c.step(*this)) co_await prefetch<Policy>(next, c.bytes(), !t.cached());
    if constexpr (WithId) {
      const auto value = value_of(c.found());
      if (!value) co_return std::nullopt;
      co_return found_record{&t, *d.value(), *value};
    } else {
      co_return value_of(c.found());
    }
  }

  // put and remove (a tombstone).
  template <execution_policy Policy, class Key>
  task<status> put_in(table& t, const basic_olc_btree<Key>& index, Key key, std::string_view value, bool tombstone) {
    check_write(t, value);
    if (state_ != state::active) co_return status::conflict;
    typename basic_olc_btree<Key>::descent d(index, key, Policy{});
    while (const auto* next = d.step()) co_await prefetch<Policy>(*next, d.cold());
    if (!d.value()) {
      note_absent(d);
      co_return status::not_found;
    }
    chain_cursor c(t, *d.value(), Policy{});
    while (const void* next = c.step(*this)) co_await prefetch<Policy>(next, c.bytes(), !t.cached());
    if (!value_of(c.found())) co_return status::not_found;
    co_return install(t, *d.value(), value, tombstone);
  }

  template <execution_policy Policy, class Key>
  task<status> insert_in(table& t, basic_olc_btree<Key>& index, Key key, std::string_view value) {
    check_write(t, value);
    if (state_ != state::active) co_return status::conflict;
    t.note_value_bytes(value.size());
    // A version made in the pool, made before the leaf is locked; one made
    // in the slot, once the slot is known (a copy of a short value).
    const bool in_slot = t.fits_in_slot(value.size());
    version* v = in_slot ? nullptr : version::make(pending | id_, nullptr, value, false);
    // A slot only for a key that is absent, filled before the key can be found.
    oid_t fresh = 0;
    const auto done = index.insert_if_absent(
        key,
        [&] {
          fresh = t.allocate_oid();
          if (t.keeps_keys()) t.remember_key(fresh, key);
          if (in_slot) v = t.make_first(fresh, pending | id_, value, false);
          t.head(fresh).store(v, std::memory_order_release);
          return fresh;
        },
        [this](const auto& left, std::uint64_t before, std::uint64_t after, const auto& right, std::uint64_t rv) {
          if (serializable_) ssn_.note_split(left, before, after, right, rv);
        });
    if (done.inserted) {
      writes_.push_back({&t, fresh, v});
      if (serializable_) ssn_.note_insert(done);
      co_return status::ok;
    }
    // The key has a slot already: the insert becomes a write on its record
    // if that is deleted (or was never committed).
    if (!in_slot) version::destroy(v);  // never published
    const version* current = co_await visible<Policy>(t, done.value);
    if (current != nullptr && !current->tombstone) co_return status::duplicate;
    co_await prefetch<Policy>(t.head_address(done.value), sizeof(version*), !t.cached());
    co_return install(t, done.value, value, false);
  }

  template <execution_policy Policy, class Traits, class Key>
  task<void> scan_in(const table& t, const basic_olc_btree<Key>& index, Key from, Key to, std::size_t limit,
                     std::vector<std::pair<typename Traits::scan_key, std::string_view>>& out) {
    check_table(t);
    // The index's entries (up to the records still wanted), in a vector a
    // scan before this one grew: a scan per transaction (TPC-C's by-name
    // and order-line reads) otherwise mallocs as the vector grows. One
    // grown past 64 KiB is freed at the end (spare_vectors.hpp).
    detail::spare_vector<std::pair<Key, std::uint64_t>> spare;
    std::vector<std::pair<Key, std::uint64_t>>& entries = *spare;
    std::size_t taken = 0;
    bool after = false;
    const auto note = [this](const auto& leaf, std::uint64_t seen) {
      if (serializable_) ssn_.note_range(leaf, seen);
    };
    while (taken < limit) {
      entries.clear();
      const std::size_t asked = limit - taken;
      co_await weave::scan<Policy>(index, from, to, asked, entries, after, note);
      if (entries.empty()) break;
      for (const auto& [key, oid] : entries) {
        // The chain walk inlined: a long scan of cached records then needs
        // no transfer per record.
        chain_cursor c(t, oid, Policy{});
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
    check_table(t);
    chain_cursor c(t, oid, Policy{});
    while (const void* next = c.step(*this)) co_await prefetch<Policy>(next, c.bytes(), !t.cached());
    co_return c.found();
  }

  // A transaction reads and writes its own engine's tables only (another's
  // versions carry another clock's stamps), and only until it has committed
  // or aborted (its snapshot and write set are gone). Throws
  // std::invalid_argument, or std::logic_error once finished.
  void check_table(const table& t) const {
    if (state_ == state::finished) [[unlikely]]
      throw std::logic_error("an operation on table '" + t.name() + "' by a transaction that has finished");
    if (t.owner() != engine_) [[unlikely]]
      throw std::invalid_argument("table '" + t.name() + "' belongs to another engine than this transaction");
  }

  // Throws for a write no engine could keep: to another engine's table
  // (std::invalid_argument), or of a value past table::max_value_bytes
  // (std::length_error).
  void check_write(const table& t, std::string_view value) const {
    check_table(t);
    if (value.size() > table::max_value_bytes) [[unlikely]]
      throw std::length_error("a value of " + std::to_string(value.size()) + " bytes; a record holds at most " +
                              std::to_string(table::max_value_bytes));
  }

  // Puts a new pending version at the head of `oid`'s chain, if the head is
  // ours or committed in our snapshot; otherwise the transaction fails.
  // Inline: it is most of a put, which the sequential policy keeps in
  // registers.
  status install(table& t, oid_t oid, std::string_view value, bool tombstone) {
    version* head = t.head(oid).load(std::memory_order_acquire);
    if (head != nullptr && !sees(head->stamp.load(std::memory_order_acquire))) {
      state_ = state::failed;
      return status::conflict;
    }
    version* v = version::make_unfilled(pending | id_, head, value.size(), tombstone);
    t.note_value_bytes(value.size());
    if (!t.head(oid).compare_exchange_strong(head, v, std::memory_order_acq_rel)) {
      version::destroy(v);  // never published
      state_ = state::failed;
      return status::conflict;
    }
    // The value is written once the version is published: a locked
    // compare-exchange waits for every earlier store, and the copy's stores
    // to a block not in cache would each wait for its line. Nobody else reads
    // a pending version's value, and the commit's stamp is stored after it.
    v->fill(value);
    writes_.push_back({&t, oid, v});
    // The commit reads the record's key to log it: fetched now, it is in
    // cache by then.
    if (t.keeps_keys()) t.prefetch_key(oid);
    return status::ok;
  }

  engine* engine_;
  participant* participant_;  // the batch's, or null (unmanaged)
  std::uint64_t begin_ = 0;
  std::uint64_t id_;
  unsigned generation_ = 0;  // in its participant's batch (epoch.hpp: begin_item)
  bool serializable_;
  state state_ = state::active;
  std::uint64_t wait_for_ = 0;  // under sync: the commit the caller must see durable
  bool log_refused_ = false;    // the log could not take the writes
  std::vector<detail::write_entry> writes_ = detail::spare_vectors<detail::write_entry>::take();
  serial_safety_net ssn_;  // empty unless serializable
  reservation reserved_;   // released at finish()
};

inline transaction engine::begin() { return transaction(*this); }
inline transaction engine::begin(reservation r) { return transaction(*this, std::move(r)); }

}  // namespace weave::txn
