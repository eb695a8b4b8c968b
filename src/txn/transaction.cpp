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

void transaction::finish() noexcept {
  detail::spare_vectors<detail::write_entry>::give(writes_);
  ssn_.clear();
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

status transaction::install(table& t, oid_t oid, std::string_view value, bool tombstone) {
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

}  // namespace weave::txn
