#pragma once
// The transaction engine: tables, the commit clock, and the epochs that
// reclaim versions. Transactions (transaction.hpp) read a snapshot of the
// clock and commit through it; including this header brings them too.
//
// An engine lives in memory only (the constructor) or in a data directory
// (engine::open): then every committed transaction goes to a redo log, a
// checkpoint of every table can be taken while transactions run, and opening
// the directory again recovers the newest checkpoint and the log after it
// (durability/ has the files). Durability modes: under `sync` a commit is
// acknowledged once its log group is durable; under `async` at once, and a
// crash may lose the commits of the last group window (log_options).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "weave/durability/data_directory.hpp"
#include "weave/durability/redo_log.hpp"

#include "weave/memory/epoch.hpp"
#include "weave/txn/commit_clock.hpp"
#include "weave/txn/reservations.hpp"
#include "weave/txn/status.hpp"
#include "weave/txn/table.hpp"

namespace weave::txn {

class transaction;

// How a durable engine runs.
struct engine_options {
  isolation level = isolation::snapshot;
  // The durability mode (sync or async; not off) and group commit.
  durability::log_options log;
  // A checkpoint this often, by a thread of the engine's (zero: only when
  // checkpoint() is called).
  std::chrono::milliseconds checkpoint_every{0};
  // Opens the directory to see what it holds, writing nothing: recovery
  // leaves a torn tail in place (recovery_report::torn_bytes says how much)
  // and starts no log segment, a transaction that writes fails to commit
  // (log_failure), and no table or checkpoint is made. `weave recover`.
  bool read_only = false;
};

// What opening a data directory found and did.
struct recovery_report {
  std::uint64_t checkpoint = 0;  // the snapshot of the checkpoint loaded (0: none)
  std::uint64_t checkpoint_records = 0;
  std::uint64_t checkpoint_bytes = 0;
  std::uint64_t log_transactions = 0;  // replayed
  std::uint64_t log_discarded = 0;     // logged, never acknowledged: not replayed
  std::uint64_t log_bytes = 0;
  std::uint64_t torn_bytes = 0;        // the torn tail cut off the last segment
  std::uint64_t last_commit = 0;       // the clock starts after it
  double seconds = 0;
  // Where the seconds went, in parts that overlap: until the checkpoint was
  // loaded; reading, checking and decoding the log (its own thread, time
  // spent waiting for the replay left out); applying its writes (on every
  // core).
  double checkpoint_seconds = 0, log_read_seconds = 0, replay_seconds = 0;
};

class engine {
 public:
  explicit engine(isolation level = isolation::snapshot) : level_(level) {}
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;
  ~engine();

  // An engine over a data directory (created if missing): its tables and
  // records as the last run left them. Throws durability::data_directory_error
  // for a directory that cannot be used, durability::log_corruption for
  // damaged files (naming the file and byte), std::system_error for a file
  // it cannot read or write, std::invalid_argument for options.log.mode == off,
  // log options no log runs with (durability::validate) or a negative
  // checkpoint interval (these before the directory is touched).
  static std::unique_ptr<engine> open(const std::filesystem::path& directory, engine_options options = {});

  // A table that grows as records arrive; `expected_records` only readies
  // that many slots up front. With `inline_value_bytes` > 0 a record whose
  // first value is at most that long keeps that version in its slot, which
  // saves a read a miss until the record is overwritten and costs each slot
  // 48 bytes plus that many, rounded up to 64 (table.hpp); for tables of
  // short values written once and read often. Throws std::invalid_argument
  // if the name is empty, holds a line break or is taken, or if
  // inline_value_bytes exceeds table::max_inline_value_bytes. The table is
  // made first; a durable engine then names it in the catalog; then it is
  // visible.
  table& create_table(std::string name, key_kind keys = key_kind::integer, std::size_t expected_records = 0,
                      std::size_t inline_value_bytes = 0);
  // The table of that name, or null.
  table* find_table(std::string_view name);
  std::vector<table*> tables();

  // Touches `bytes` of memory now for the versions of records written later
  // (block_pool::reserve), so that a database that grows while transactions
  // run (TPC-C's orders) pays its page faults here, not in them, as a JVM's
  // AlwaysPreTouch does for its heap. Versions come from a pool that every
  // engine of the process shares. Throws std::bad_alloc.
  static void reserve_version_memory(std::size_t bytes) { version_pool::reserve(bytes); }

  // The timestamp every commit at or before which is complete: a new
  // transaction's snapshot.
  std::uint64_t now() const noexcept { return clock_.now(); }

  transaction begin();
  // A transaction that holds `r` (reservations.hpp) until it finishes.
  transaction begin(reservation r);

  // A worker joins once, then brackets each batch of transactions with
  // enter(): versions its transactions unlink are reclaimed by epochs, and
  // versions no running transaction can see are pruned, at commit and, for
  // the version a commit replaced, by the worker's later commits once no
  // snapshot can read it. A transaction outside any batch (a checkpoint's)
  // holds pruning off while it runs.
  participant& join() { return epochs_.join(); }
  epoch_guard enter(participant& p) {
    return epoch_guard(p, [this] { return now(); });
  }
  const epoch_manager& epochs() const noexcept { return epochs_; }
  isolation level() const noexcept { return level_; }

  // Durable engines only (else null / nothing).
  const durability::redo_log* log() const noexcept { return log_.get(); }
  durability::durability_mode durability() const noexcept {
    return log_ ? log_->options().mode : durability::durability_mode::off;
  }
  // A deferred commit's acknowledgement (transaction::commit_deferred):
  // committed once `durable_at` is durable, log_failure if the log failed
  // first, nothing while neither has happened. wait_acknowledgement waits.
  // An engine without a log has nothing to wait for.
  std::optional<commit_status> acknowledgement(std::uint64_t durable_at) const noexcept {
    if (durable_at == 0 || log_ == nullptr || log_->durable(durable_at)) return commit_status::committed;
    if (log_->failed()) return commit_status::log_failure;
    return std::nullopt;
  }
  commit_status wait_acknowledgement(std::uint64_t durable_at) {
    if (durable_at == 0 || log_ == nullptr) return commit_status::committed;
    return log_->wait_durable(durable_at) ? commit_status::committed : commit_status::log_failure;
  }
  const recovery_report& recovery() const noexcept { return recovery_; }
  // Writes a checkpoint of every table at a snapshot taken now, while
  // transactions run, then deletes the log segments and older checkpoints it
  // makes needless. Returns its snapshot. Throws std::logic_error for an
  // in-memory engine, std::system_error if it cannot be written.
  std::uint64_t checkpoint();
  // The error of the last background checkpoint that failed, or empty.
  std::string checkpoint_failure() const;

 private:
  friend class transaction;
  engine(isolation level, const std::filesystem::path& directory, bool read_only);
  void recover(const engine_options& options);
  // Makes a table and, where `name_in_catalog`, names it in the data
  // directory's catalog (recovery makes the ones the catalog already names).
  table& add_table(std::string name, key_kind keys, std::size_t expected_records,
                   std::size_t inline_value_bytes, bool name_in_catalog);
  void checkpointer(std::chrono::milliseconds every);
  // This thread's buffer in the log.
  durability::redo_log::buffer& log_buffer();

  isolation level_;
  bool read_only_ = false;  // opened read-only: commits that write fail
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
  std::vector<std::unique_ptr<table>> tables_;
  // Declared after the tables, so destroyed before them: the versions it
  // has yet to free may live in the tables' slots.
  epoch_manager epochs_;

  // Durable engines: the directory (and its lock), the log, the checkpoints.
  std::unique_ptr<durability::data_directory> directory_;
  std::unique_ptr<durability::redo_log> log_;
  recovery_report recovery_;
  std::mutex checkpoint_mutex_;  // one checkpoint at a time
  mutable std::mutex checkpointer_mutex_;
  std::condition_variable checkpointer_wake_;
  bool stopping_ = false;
  std::string checkpoint_failure_;
  std::thread checkpointer_;
};

}  // namespace weave::txn

#include "weave/txn/transaction.hpp"
