#include "weave/txn/serial_safety_net.hpp"

#include <algorithm>

#include "weave/txn/detail/backoff.hpp"

namespace weave::txn {
namespace {

void latch(const version* v) noexcept {
  for (detail::backoff wait; v->latch.exchange(true, std::memory_order_acquire);) {
    while (v->latch.load(std::memory_order_relaxed)) wait.pause();
  }
}

void unlatch(const version* v) noexcept { v->latch.store(false, std::memory_order_release); }

// The oldest version of a new record's chain: the transaction's first write
// to it.
const version* bottom_of(const detail::write_entry& w) noexcept {
  const version* v = w.v;
  while (const version* older = v->older.load(std::memory_order_acquire)) v = older;
  return v;
}

}  // namespace

std::uint64_t serial_safety_net::commit(commit_clock& clock, std::span<const detail::write_entry> writes,
                                        bool (*log)(void*, std::uint64_t), void* context) {
  std::vector<const version*> latched = detail::spare_vectors<const version*>::take();
  latched = reads_;
  latched.insert(latched.end(), below_.begin(), below_.end());
  for (const detail::write_entry& w : writes) {
    if (const version* o = w.overwritten()) {
      latched.push_back(o);
    } else {
      latched.push_back(bottom_of(w));  // where readers of the absence leave their stamps
    }
  }
  std::sort(latched.begin(), latched.end());
  latched.erase(std::unique(latched.begin(), latched.end()), latched.end());
  for (const version* v : latched) latch(v);
  // Drawn under the latches: see the top of the header.
  const std::uint64_t ts = clock.draw();
  // A failed log write aborts after the check has published its stamps:
  // they only order later commits more strictly than needed.
  const bool ok = check_and_publish(ts, writes) && (log == nullptr || log(context, ts));
  if (ok) {
    for (const detail::write_entry& w : writes) w.v->stamp.store(ts, std::memory_order_release);
  }
  for (const version* v : latched) unlatch(v);
  detail::spare_vectors<const version*>::give(latched);
  clock.complete(ts);  // an abort completes its timestamp too, with nothing stamped
  return ok ? ts : 0;
}

bool serial_safety_net::check_and_publish(std::uint64_t ts, std::span<const detail::write_entry> writes) {
  std::uint64_t predecessor = 0;  // latest commit that must come before
  std::uint64_t successor = ts;   // earliest stamp that must come after
  for (const version* r : reads_) {
    predecessor = std::max(predecessor, r->stamp.load(std::memory_order_relaxed));
    successor = std::min(successor, r->sstamp.load(std::memory_order_relaxed));
  }
  for (const version* b : below_) {
    const std::uint64_t s = b->stamp.load(std::memory_order_acquire);
    if (s == 0) {  // its insert aborted: b is the tombstone we read
      successor = std::min(successor, b->sstamp.load(std::memory_order_relaxed));
    } else if (!(s & pending)) {
      return false;  // the inserter committed first; its successor stamp is not kept
    }
  }
  for (const detail::write_entry& w : writes) {
    const version* o = w.overwritten();
    // A new record: readers of its absence left their stamps in its oldest version.
    if (o == nullptr) o = bottom_of(w);
    predecessor = std::max(predecessor, o->pstamp.load(std::memory_order_relaxed));
  }
  // Readers of the ranges we inserted into; read before our own ranges are
  // marked, so that a leaf we read and inserted into does not order us after
  // ourselves. The read is a read-modify-write: see the top of the header.
  for (std::atomic<std::uint64_t>* mark : inserted_into_) {
    predecessor = std::max(predecessor, mark->fetch_add(0, std::memory_order_acq_rel));
  }
  if (successor <= predecessor) return false;
  // Mark, then check: an inserter that changes a leaf after the check finds
  // the mark. Every mark is written, even with its own value, to order the
  // two read-modify-writes.
  for (const range_read& r : ranges_) {
    std::uint64_t m = r.mark->load(std::memory_order_relaxed);
    while (!r.mark->compare_exchange_weak(m, std::max(m, ts), std::memory_order_acq_rel, std::memory_order_relaxed)) {
    }
  }
  for (const range_read& r : ranges_) {
    if (r.version->load(std::memory_order_acquire) != r.seen) return false;
  }
  for (const version* r : reads_) {
    r->pstamp.store(std::max(r->pstamp.load(std::memory_order_relaxed), ts), std::memory_order_relaxed);
  }
  for (const version* b : below_) {
    b->pstamp.store(std::max(b->pstamp.load(std::memory_order_relaxed), ts), std::memory_order_relaxed);
  }
  for (const detail::write_entry& w : writes) {
    if (const version* o = w.overwritten()) o->sstamp.store(successor, std::memory_order_relaxed);
    w.v->pstamp.store(std::max(w.v->pstamp.load(std::memory_order_relaxed), ts), std::memory_order_relaxed);
  }
  return true;
}

}  // namespace weave::txn
