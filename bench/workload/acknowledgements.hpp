#pragma once
// Deferred acknowledgements (--acks deferred) as a benchmark's worker keeps
// them: commits made in memory (transaction::commit_deferred) that it may
// count, and whose latency ends, only once their log group is durable.
// Shared by `weave bench ycsb` and `weave bench tpcc`.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <stdexcept>

#include "weave/txn/engine.hpp"

namespace weave::bench {

class pending_acknowledgements {
 public:
  using clock_type = std::chrono::steady_clock;

  bool empty() const noexcept { return pending_.empty(); }

  // A commit made at `durable_at` by a transaction that began at `start`;
  // `tag` is the caller's (a transaction kind, say).
  void add(std::uint64_t durable_at, clock_type::time_point start, std::uint32_t tag = 0) {
    pending_.push_back({durable_at, start, tag});
  }

  // Acknowledges, oldest first, the commits durable by now: done(tag,
  // latency_us) for each. Throws std::runtime_error if the log failed first.
  template <class Done>
  void acknowledge(const txn::engine& db, Done&& done) {
    while (!pending_.empty()) {
      const entry& e = pending_.front();
      const std::optional<txn::commit_status> a = db.acknowledgement(e.durable_at);
      if (!a) return;
      if (*a != txn::commit_status::committed) refused();
      done(e.tag, static_cast<float>(std::chrono::duration<double, std::micro>(clock_type::now() - e.start).count()));
      pending_.pop_front();
    }
  }

  // At the end of a timed run: the commits not yet acknowledged do not
  // count, but each is waited for (so that none is left to the next run)
  // and must not have been refused. Returns how many there were.
  std::size_t settle(txn::engine& db) {
    for (const entry& e : pending_) {
      if (db.wait_acknowledgement(e.durable_at) != txn::commit_status::committed) refused();
    }
    const std::size_t late = pending_.size();
    pending_.clear();
    return late;
  }

  [[noreturn]] static void refused() { throw std::runtime_error("a commit was refused: the log failed"); }

 private:
  struct entry {
    std::uint64_t durable_at;
    clock_type::time_point start;
    std::uint32_t tag;
  };
  std::deque<entry> pending_;
};

}  // namespace weave::bench
