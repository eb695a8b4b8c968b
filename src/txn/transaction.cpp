#include "weave/txn/transaction.hpp"

#include <stdexcept>

namespace weave::txn {

table& engine::create_table(std::string name, key_kind keys, std::size_t expected_records) {
  std::lock_guard<std::mutex> g(tables_mutex_);
  for (const auto& t : tables_) {
    if (t->name() == name) throw std::invalid_argument("table '" + name + "' exists");
  }
  tables_.push_back(std::make_unique<table>(std::move(name), keys, expected_records));
  return *tables_.back();
}

transaction::transaction(engine& e)
    : engine_(&e),
      participant_(epoch_guard::current(e.epochs_)),
      id_(e.next_id()),
      serializable_(e.level_ == isolation::serializable) {
  // Outside a batch the transaction holds off pruning; it says so before
  // it reads its snapshot, so that no version it may need goes first.
  if (participant_ == nullptr) e.epochs_.hold_floor();
  if (serializable_) ssn_.start();
  begin_ = e.now();
}

transaction::transaction(transaction&& o) noexcept
    : engine_(o.engine_),
      participant_(o.participant_),
      begin_(o.begin_),
      id_(o.id_),
      serializable_(o.serializable_),
      state_(o.state_),
      writes_(std::move(o.writes_)),
      ssn_(std::move(o.ssn_)) {
  o.state_ = state::finished;
}

commit_status transaction::commit() {
  if (state_ == state::finished) throw std::logic_error("transaction already finished");
  if (state_ == state::failed) {
    abort();
    return commit_status::write_conflict;
  }
  std::uint64_t ts = 0;
  if (serializable_) {
    // A reader takes a commit stamp too: later overwriters of what it read,
    // and inserters into ranges it read, must order themselves after it.
    if (!writes_.empty() || !ssn_.empty()) {
      ts = ssn_.commit(engine_->clock_, writes_);
      if (ts == 0) {
        abort();
        return commit_status::serialization_failure;
      }
    }
  } else if (!writes_.empty()) {
    ts = engine_->clock_.draw();
    for (const detail::write_entry& w : writes_) w.v->stamp.store(ts, std::memory_order_release);
    engine_->clock_.complete(ts);
  }
  if (!writes_.empty()) prune(ts);
  finish();
  return commit_status::committed;
}

void transaction::abort() {
  if (state_ == state::finished) return;
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
    // A reader may be looking at it: freed once no batch can.
    if (participant_ != nullptr) {
      participant_->retire(it->v, &version::destroy_erased);
    } else {
      it->t->retire(it->v);
    }
  }
  finish();
}

void transaction::finish() noexcept {
  detail::spare_vectors<detail::write_entry>::give(writes_);
  if (serializable_) ssn_.clear();
  state_ = state::finished;
  if (participant_ == nullptr) engine_->epochs_.release_floor();
}

// Cuts the chains this transaction wrote below the newest version every
// running transaction sees: nothing can reach what is behind it. Done by
// the committer, so the cost is spread over the writes.
void transaction::prune(std::uint64_t committed) {
  if (participant_ == nullptr) return;
  const std::uint64_t oldest = engine_->epochs_.lowest_floor(committed);
  if (oldest == 0) return;
  for (const detail::write_entry& w : writes_) {
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

}  // namespace weave::txn
