#include "weave/txn/transaction.hpp"

#include <cstdint>
#include <stdexcept>

#include "weave/assert.hpp"
#include "weave/memory/epoch.hpp"

namespace weave::txn {

namespace {
thread_local std::uint64_t conflicts = 0;
}  // namespace

std::uint64_t conflicts_on_this_thread() noexcept { return conflicts; }

transaction::transaction(engine& e, reservation r)
    : engine_(&e),
      participant_(epoch_guard::current(e.epochs_)),
      id_(e.next_id()),
      serializable_(e.level_ == isolation::serializable),
      reserved_(std::move(r)) {
  // Outside a batch the transaction holds off pruning; it says so before
  // it reads its snapshot, so that no version it may need goes first.
  if (participant_ == nullptr) {
    e.epochs_.hold_floor();
  } else {
    generation_ = participant_->begin_item();
  }
  if (serializable_) ssn_.start();
  begin_ = e.now();
}

transaction::transaction(transaction&& o) noexcept
    : engine_(o.engine_),
      participant_(o.participant_),
      begin_(o.begin_),
      id_(o.id_),
      generation_(o.generation_),
      serializable_(o.serializable_),
      state_(o.state_),
      writes_(std::move(o.writes_)),
      ssn_(std::move(o.ssn_)),
      reserved_(std::move(o.reserved_)) {
  o.state_ = state::finished;
}

commit_status transaction::commit_in_memory() {
  if (state_ == state::finished) throw std::logic_error("transaction already finished");
  wait_for_ = 0;
  if (state_ == state::failed) {
    abort();
    return commit_status::write_conflict;
  }
  durability::redo_log* log = engine_->log_.get();
  if (!writes_.empty() && ((log != nullptr && log->failed()) || engine_->read_only_)) {
    abort();  // not durable, so not committed
    return commit_status::log_failure;
  }
  std::uint64_t ts = 0;
  if (serializable_) {
    // A reader takes a commit stamp too: later overwriters of what it read,
    // and inserters into ranges it read, must order themselves after it.
    if (!writes_.empty() || !ssn_.empty()) {
      const bool logs = log != nullptr && !writes_.empty();
      ts = ssn_.commit(engine_->clock_, writes_, logs ? &log_writes_erased : nullptr, this);
      if (ts == 0) {
        if (!log_refused_) ++conflicts;
        abort();
        return log_refused_ ? commit_status::log_failure : commit_status::serialization_failure;
      }
    }
  } else if (!writes_.empty()) {
    ts = engine_->clock_.draw();
    // Logged before the commit completes: a group's `through` then covers
    // only commits already in a buffer (log_format.hpp).
    if (log != nullptr && !log_writes(ts)) {
      engine_->clock_.complete(ts);  // nothing stamped: as an abort
      abort();
      return commit_status::log_failure;
    }
    for (const detail::write_entry& w : writes_) w.v->stamp.store(ts, std::memory_order_release);
    engine_->clock_.complete(ts);
  }
  if (log != nullptr && log->options().mode == durability::durability_mode::sync) {
    // A writer waits for its own commit; a reader for the commits it saw.
    const std::uint64_t needed = writes_.empty() ? begin_ : ts;
    if (!log->durable(needed)) wait_for_ = needed;
  }
  if (!writes_.empty()) prune(ts);
  finish();
  return commit_status::committed;
}

bool transaction::log_writes(std::uint64_t ts) noexcept {
  // The writes as the log takes them; keys are copied out of the tables'
  // key stores into one buffer that does not move while it fills.
  thread_local std::vector<durability::logged_write> logged;
  thread_local std::vector<char> keys;
  try {
    logged.clear();
    keys.resize(writes_.size() * byte_key::capacity);
    char* key = keys.data();
    for (const detail::write_entry& w : writes_) {
      const std::string_view k = w.t->logged_key(w.oid, key);
      key += byte_key::capacity;
      logged.push_back({w.t->id(), w.v->tombstone ? durability::write_op::remove : durability::write_op::put, k,
                        w.v->tombstone ? std::string_view{} : w.v->value()});
    }
    engine_->log_->append(engine_->log_buffer(), ts, logged);
    return true;
  } catch (...) {  // too large for a group, or no memory: not logged, not committed
    log_refused_ = true;
    return false;
  }
}

void transaction::abort() {
  if (state_ == state::finished) return;
  if (state_ == state::failed) ++conflicts;  // met a write-write conflict
  for (auto it = writes_.rbegin(); it != writes_.rend(); ++it) {
    version* older = it->v->older.load(std::memory_order_relaxed);
    if (serializable_ && older == nullptr) {
      // A new record's first version stays, as a committed tombstone older
      // than any snapshot: readers of the record's absence may have left
      // their stamps in it (serial_safety_net.hpp).
      it->v->tombstone = true;
      it->v->stamp.store(0, std::memory_order_release);
      continue;
    }
    it->t->head(it->oid).store(older, std::memory_order_release);
    // A reader may be looking at it: freed once no batch can (without
    // memory to note it, never: an abort must not fail halfway).
    if (participant_ == nullptr) {
      it->t->retire(it->v);
    } else if (participant_->make_room_to_retire()) {
      participant_->retire(it->v, &version::destroy_erased);
    }
  }
  finish();
}

void transaction::finish() noexcept {
  detail::spare_vectors<detail::write_entry>::give(writes_);
  if (serializable_) ssn_.clear();
  state_ = state::finished;
  // Siblings waiting for these records now begin after this commit.
  reserved_.release();
  if (participant_ == nullptr) {
    engine_->epochs_.release_floor();
  } else {
    // Later transactions of the batch read snapshots at or after now().
    participant_->end_item(generation_, [this] { return engine_->now(); });
  }
}

namespace {

// Cuts the chain below the newest version, from `v` down, that every
// running transaction sees (committed at or before `oldest`): nothing can
// reach what is behind it.
void cut_below_visible(version* v, std::uint64_t oldest, participant& p) noexcept {
  while (v != nullptr) {
    const std::uint64_t s = v->stamp.load(std::memory_order_acquire);
    if (!(s & pending) && s <= oldest) break;
    v = v->older.load(std::memory_order_acquire);
  }
  // A look first: most links were cut already (by this worker's earlier
  // commits), and a locked exchange waits for every store before it.
  if (v == nullptr || v->older.load(std::memory_order_relaxed) == nullptr) return;
  // Room first: once taken, what hangs on the link must be retired. Without
  // memory it stays linked, for a later cut.
  if (!p.make_room_to_retire()) return;
  // Whoever takes the link frees what hangs on it.
  if (version* dead = v->older.exchange(nullptr, std::memory_order_acq_rel)) {
    p.retire(dead, &version::destroy_chain_erased);
  }
}

}  // namespace

// Cuts the chains this transaction wrote below the newest version every
// running transaction sees. The version each write replaced is still
// visible to transactions that began before this commit, so the record is
// revisited once every floor has passed the commit: otherwise a record
// written once would keep its replaced version until its next write (TPC-C's
// stock and customer rows: docs/results/tpcc.md, "Replaced versions cut
// without a second write"). Done by committers, so the cost is spread over
// the writes, and a record is revisited a few transactions after its commit,
// while its lines are likely still cached. A commit outside any batch
// defers nothing, and none is run while work outside a batch holds the
// floor (a checkpoint): the ring then drops its oldest items.
void transaction::prune(std::uint64_t committed) noexcept {
  if (participant_ == nullptr) return;
  // The walks below reach other transactions' versions: only a batch's
  // epoch keeps them alive.
  WEAVE_ASSERT(epoch_guard::current(engine_->epochs_) == participant_);
  const std::uint64_t oldest = engine_->epochs_.lowest_floor(committed);  // 0: not known now
  if (oldest != 0) {
    // Twice what this commit defers, and some: the ring drains as fast as
    // it fills, and no commit pays for a long backlog alone.
    participant_->run_deferred(
        oldest,
        [&](void* t, std::uint64_t oid) {
          cut_below_visible(static_cast<table*>(t)->head(oid).load(std::memory_order_acquire), oldest,
                            *participant_);
        },
        2 * writes_.size() + 16);
  }
  for (const detail::write_entry& w : writes_) {
    if (oldest != 0) cut_below_visible(w.v, oldest, *participant_);
    // Nothing behind: a new record (no replaced version to wait for).
    if (w.v->older.load(std::memory_order_relaxed) != nullptr) participant_->defer(w.t, w.oid, committed);
  }
}

}  // namespace weave::txn
