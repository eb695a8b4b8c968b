#pragma once
// Epoch-based reclamation, and the lowest floor still in use.
//
// A worker joins once and then brackets each batch of its work (transactions,
// or a span of tasks in the task runtime) with an epoch_guard, not each
// operation: entering costs a store and a fence.
// Memory unlinked from a shared structure while readers may still hold it
// (an aborted version, versions pruned from a chain) is retired with the
// global epoch of the moment and freed once the epoch has advanced twice:
// by then every batch that could have seen it has left.
//
// A worker in a batch also publishes a floor: a number its user chooses when
// the batch begins, below which nothing of the batch will look (the
// transaction engine uses its clock: every transaction of the batch reads a
// snapshot at or after it). The lowest floor over the workers bounds what
// any running batch may still use. Work outside any guard holds the floor
// (hold_floor/release_floor), and no lowest floor is known while it runs.
// Within a batch the floor rises as its items (its transactions) end: the
// user brackets each item (begin_item, end_item) and says what later items
// will look at no lower than. Items join the current generation; once every
// item of the generation before has ended, the floor rises to where the
// current one began and a new generation begins. A long batch of short
// items (or a pipeline that is never empty) then holds pruning back about
// two items' lifetimes, not its whole length: with one floor per batch of
// 512 transactions, a Zipfian key's chain kept every version of the batch's
// span, and each commit walked them all (docs/results/contention.md).
//
// A thread may be inside guards of several managers at once (a task-runtime
// worker running transactions); current(manager) finds its guard's
// participant for that manager.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "weave/assert.hpp"

namespace weave {

class epoch_manager;

// One worker's membership: its epoch and floor, and what it retired.
class participant {
 public:
  static constexpr std::uint64_t idle = 0;
  static constexpr std::uint64_t no_floor = std::numeric_limits<std::uint64_t>::max();

  explicit participant(epoch_manager& m) : manager_(&m) {}
  participant(const participant&) = delete;
  participant& operator=(const participant&) = delete;
  ~participant();

  void retire(void* p, void (*free)(void*));
  std::size_t pending() const noexcept { return retired_.size(); }
  // Room for one more retire(), which then cannot throw; false without
  // memory. For callers that must not fail once they have unlinked
  // something (a committed transaction's pruning): they ask first.
  bool make_room_to_retire() noexcept {
    if (retired_.size() < retired_.capacity()) return true;
    try {
      retired_.reserve(std::max<std::size_t>(64, 2 * retired_.capacity()));
      return true;
    } catch (...) {
      return false;
    }
  }

  // Work that must wait until the lowest floor (epoch_manager::lowest_floor:
  // every running batch's, none while work outside a batch holds it) has
  // reached `floor`: the transaction engine cuts the version a commit
  // replaced once no snapshot can read it. Kept in the order deferred, which
  // must be the order of `floor` (a worker's commits draw rising
  // timestamps). The ring does not grow: past max_deferred the oldest item
  // is dropped, and its record keeps the replaced version until its next
  // write prunes it.
  static constexpr std::size_t max_deferred = 4096;
  void defer(void* owner, std::uint64_t id, std::uint64_t floor) noexcept {
    if (deferred_.empty()) {
      try {
        deferred_.resize(max_deferred);
      } catch (...) {
        return;  // without memory for the ring, nothing is deferred
      }
    }
    if (deferred_count_ == max_deferred) {
      deferred_first_ = (deferred_first_ + 1) % max_deferred;
      --deferred_count_;
    }
    deferred_[(deferred_first_ + deferred_count_) % max_deferred] = {owner, id, floor};
    ++deferred_count_;
  }
  // Calls run(owner, id) for each deferred item whose floor every batch
  // has reached (at or below `lowest`), oldest first, at most `limit` of
  // them (so that a floor held back for long is not paid off by one caller).
  template <class Run>
  void run_deferred(std::uint64_t lowest, Run&& run, std::size_t limit = max_deferred) {
    for (; deferred_count_ > 0 && limit > 0; --limit) {
      const deferred_item& d = deferred_[deferred_first_];
      if (d.floor > lowest) return;
      run(d.owner, d.id);
      deferred_first_ = (deferred_first_ + 1) % max_deferred;
      --deferred_count_;
    }
  }
  std::size_t deferred() const noexcept { return deferred_count_; }

  // One item of the batch begins. It must look at nothing below what the
  // `floor` source of end_item (the engine's clock) gave before this call;
  // so a transaction reads its snapshot after it. Returns the item's
  // generation, for its end_item. Items begin and end on the batch's thread.
  unsigned begin_item() noexcept {
    ++owned_.running[owned_.current];
    return owned_.current;
  }
  // The item of generation `g` ends; `floor()` reads the source.
  template <class Floor>
  void end_item(unsigned g, Floor&& floor) {
    WEAVE_ASSERT(owned_.running[g] > 0);
    --owned_.running[g];
    const unsigned previous = owned_.current ^ 1u;
    if (owned_.running[previous] != 0) return;
    // Every running item began in the current generation, at or after its
    // start; with none running, later ones begin at or after now.
    const std::uint64_t now = floor();
    raise_floor(owned_.running[owned_.current] == 0 ? now : owned_.start[owned_.current]);
    owned_.current = previous;
    owned_.start[owned_.current] = now;
  }

 private:
  friend class epoch_manager;
  friend class epoch_guard;
  struct retired_object {
    void* p;
    void (*free)(void*);
    std::uint64_t epoch;
  };

  epoch_manager* manager_;
  std::atomic<std::uint64_t> epoch_{idle};
  std::atomic<std::uint64_t> floor_{no_floor};  // 0 while being set: blocks pruning
  // Items begun and not ended, by generation, and where each generation
  // began (0: not known). The batch's thread's alone, written at every
  // transaction's begin and end: on a line of their own, away from the
  // floor and epoch the other workers read at every commit.
  struct alignas(64) owned {
    std::size_t running[2] = {0, 0};
    std::uint64_t start[2] = {0, 0};
    unsigned current = 0;
  } owned_;

  void raise_floor(std::uint64_t to) noexcept {
    const std::uint64_t f = floor_.load(std::memory_order_relaxed);
    // Outside a batch (no_floor), or while the guard sets it (0), the floor
    // is the guard's. Release is more than pruning needs: it only unlinks
    // versions (freeing them waits for the epochs), and only items that have
    // ended looked below the new floor.
    if (f != no_floor && f != 0 && to > f) floor_.store(to, std::memory_order_release);
  }
  std::vector<retired_object> retired_;
  struct deferred_item {
    void* owner;
    std::uint64_t id;
    std::uint64_t floor;
  };
  std::vector<deferred_item> deferred_;  // a ring, made at the first defer()
  std::size_t deferred_first_ = 0;
  std::size_t deferred_count_ = 0;
};

class epoch_manager {
 public:
  epoch_manager() = default;
  epoch_manager(const epoch_manager&) = delete;
  epoch_manager& operator=(const epoch_manager&) = delete;
  ~epoch_manager() {
    for (auto& p : participants_) free_all(*p);
  }

  // A participant for the calling worker, valid as long as the manager.
  participant& join() {
    std::lock_guard<std::mutex> g(mutex_);
    if (participants_.size() == max_participants) throw std::length_error("too many workers joined");
    participants_.emplace_back(std::make_unique<participant>(*this));
    count_.store(participants_.size(), std::memory_order_release);
    return *participants_.back();
  }

  std::uint64_t epoch() const noexcept { return epoch_.load(std::memory_order_acquire); }

  // The lowest floor of a running batch, or `now` if it is lower; 0 if
  // unknown (a worker is entering a batch, or work outside a guard holds the
  // floor).
  std::uint64_t lowest_floor(std::uint64_t now) const noexcept {
    if (holds_.load(std::memory_order_seq_cst) > 0) return 0;
    std::uint64_t oldest = now;
    const std::size_t n = count_.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t f = participants_[i]->floor_.load(std::memory_order_seq_cst);
      if (f == 0) return 0;
      oldest = std::min(oldest, f);
    }
    return oldest;
  }

  void hold_floor() noexcept { holds_.fetch_add(1, std::memory_order_seq_cst); }
  void release_floor() noexcept { holds_.fetch_sub(1, std::memory_order_seq_cst); }

 private:
  friend class participant;
  friend class epoch_guard;

  // Advances the global epoch if every worker in a batch has seen it.
  void try_advance() noexcept {
    const std::uint64_t e = epoch();
    const std::size_t n = count_.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t local = participants_[i]->epoch_.load(std::memory_order_seq_cst);
      if (local != participant::idle && local != e) return;
    }
    std::uint64_t expected = e;
    epoch_.compare_exchange_strong(expected, e + 1, std::memory_order_acq_rel);
  }

  // Frees what `p` retired at least two epochs ago.
  void collect(participant& p) {
    const std::uint64_t e = epoch();
    auto keep = std::partition(p.retired_.begin(), p.retired_.end(),
                               [&](const participant::retired_object& r) { return r.epoch + 2 > e; });
    for (auto it = keep; it != p.retired_.end(); ++it) it->free(it->p);
    p.retired_.erase(keep, p.retired_.end());
  }

  static void free_all(participant& p) {
    for (auto& r : p.retired_) r.free(r.p);
    p.retired_.clear();
  }

  std::atomic<std::uint64_t> epoch_{1};
  std::atomic<std::int64_t> holds_{0};
  std::mutex mutex_;
  // Fixed capacity so that readers of the list never see it move.
  static constexpr std::size_t max_participants = 1024;
  std::vector<std::unique_ptr<participant>> participants_ = [] {
    std::vector<std::unique_ptr<participant>> v;
    v.reserve(max_participants);
    return v;
  }();
  std::atomic<std::size_t> count_{0};
};

inline participant::~participant() { epoch_manager::free_all(*this); }

inline void participant::retire(void* p, void (*free)(void*)) {
  retired_.push_back({p, free, manager_->epoch()});
}

// Brackets one batch of a worker's work. `floor` gives the batch's floor.
class epoch_guard {
 public:
  template <class Floor>
  epoch_guard(participant& p, Floor&& floor) : p_(&p), outer_(innermost()) {
    innermost() = this;
    p.floor_.store(0, std::memory_order_seq_cst);  // "being set": no lowest floor meanwhile
    p.epoch_.store(p.manager_->epoch(), std::memory_order_seq_cst);
    p.floor_.store(floor(), std::memory_order_seq_cst);
  }
  epoch_guard(const epoch_guard&) = delete;
  epoch_guard& operator=(const epoch_guard&) = delete;
  ~epoch_guard() {
    p_->floor_.store(participant::no_floor, std::memory_order_seq_cst);
    p_->epoch_.store(participant::idle, std::memory_order_seq_cst);
    innermost() = outer_;
    p_->manager_->try_advance();
    if (!p_->retired_.empty()) p_->manager_->collect(*p_);
  }

  // The participant of `m` whose batch the calling thread is in, if any.
  static participant* current(const epoch_manager& m) noexcept {
    for (const epoch_guard* g = innermost(); g != nullptr; g = g->outer_) {
      if (g->p_->manager_ == &m) return g->p_;
    }
    return nullptr;
  }

 private:
  static const epoch_guard*& innermost() noexcept {
    static thread_local const epoch_guard* g = nullptr;
    return g;
  }

  participant* p_;
  const epoch_guard* outer_;  // the guard this one is nested in, on this thread
};

}  // namespace weave
