#pragma once
// The transaction engine: tables, the commit clock, and the epochs that
// reclaim versions. Transactions (transaction.hpp) read a snapshot of the
// clock and commit through it; including this header brings them too.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "weave/memory/epoch.hpp"
#include "weave/txn/commit_clock.hpp"
#include "weave/txn/status.hpp"
#include "weave/txn/table.hpp"

namespace weave::txn {

class transaction;

class engine {
 public:
  explicit engine(isolation level = isolation::snapshot) : level_(level) {}
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // A table that grows as records arrive; `expected_records` only readies
  // that many slots up front. Throws std::invalid_argument if the name is
  // taken.
  table& create_table(std::string name, key_kind keys = key_kind::integer, std::size_t expected_records = 0);

  // The timestamp every commit at or before which is complete: a new
  // transaction's snapshot.
  std::uint64_t now() const noexcept { return clock_.now(); }

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
  commit_clock clock_;
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
  std::mutex tables_mutex_;
  epoch_manager epochs_;
  std::vector<std::unique_ptr<table>> tables_;  // retired versions are in no chain: any order of freeing
};

}  // namespace weave::txn

#include "weave/txn/transaction.hpp"
