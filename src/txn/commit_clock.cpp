#include "weave/txn/commit_clock.hpp"

#include "weave/txn/detail/backoff.hpp"

namespace weave::txn {

commit_clock::commit_clock() noexcept {
  for (auto& d : done_) d.store(0, std::memory_order_relaxed);
}

std::uint64_t commit_clock::draw() noexcept {
  const std::uint64_t ts = drawn_.fetch_add(1, std::memory_order_acq_rel) + 1;
  // Its slot in done_ is free once now() is within a window of it.
  for (detail::backoff wait; ts - now() >= window;) wait.pause();
  return ts;
}

void commit_clock::advance() noexcept {
  std::uint64_t t = now_.load(std::memory_order_acquire);
  while (done_[(t + 1) % window].load(std::memory_order_acquire) == t + 1) {
    // On failure t is the value another thread moved now() to: go on from it.
    if (now_.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel, std::memory_order_acquire)) ++t;
  }
}

void commit_clock::complete(std::uint64_t ts) noexcept {
  done_[ts % window].store(ts, std::memory_order_release);
  advance();
  for (detail::backoff wait; now() < ts;) {
    wait.pause();
    advance();
  }
}

}  // namespace weave::txn
