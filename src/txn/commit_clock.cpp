#include "weave/txn/commit_clock.hpp"

#include <sched.h>

namespace weave::txn {

commit_clock::commit_clock() noexcept {
  for (auto& d : done_) d.store(0, std::memory_order_relaxed);
}

void commit_clock::pause(unsigned& spins) noexcept {
  // Spin briefly (the committer ahead is stamping a few versions), then let
  // a descheduled one run: with more threads than cores it may need our core.
  if (++spins < 64) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  } else {
    sched_yield();
  }
}

std::uint64_t commit_clock::draw() noexcept {
  const std::uint64_t ts = drawn_.fetch_add(1, std::memory_order_acq_rel) + 1;
  // Its slot in done_ is free once now() is within a window of it.
  for (unsigned spins = 0; ts - now() >= window;) pause(spins);
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
  for (unsigned spins = 0; now() < ts;) {
    pause(spins);
    advance();
  }
}

}  // namespace weave::txn
