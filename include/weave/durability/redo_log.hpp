#pragma once
// Group commit. Workers append committed transactions to buffers of their
// own (a lock per buffer, which only the flusher also takes: no lock shared
// by the workers), after drawing their commit timestamp and before completing
// it; a flusher thread gathers the buffers every group window, or sooner when
// one fills, writes them as one group and syncs it. A round first reads the
// commit clock's completed timestamp (`through`, log_format.hpp): once the
// round is durable, so is every commit at or before it. A commit is durable
// when durable_through() reaches its timestamp, and so is everything it read.
//
// Modes: under `sync` a commit is acknowledged only when durable (a
// coroutine suspends until then and its worker runs other transactions; a
// sequential caller waits); under `async` it is acknowledged at once and a
// crash may lose what is not yet durable: the group window and up to two
// groups' write and sync, more when the flusher waits for a core
// (exposure()); `off` keeps no log at all (the engine then has no redo_log).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "weave/durability/exposure.hpp"
#include "weave/durability/log_format.hpp"
#include "weave/durability/log_writer.hpp"

namespace weave::durability {

enum class durability_mode { off, async, sync };

struct log_options {
  durability_mode mode = durability_mode::sync;
  // How long the flusher gathers commits into a group before it writes
  // them; a commit then also waits for the group's write and sync (sync),
  // or a crash may lose that much (async).
  std::chrono::microseconds group_window{200};
  // A buffer this full wakes the flusher before the window ends.
  std::size_t group_bytes = std::size_t{1} << 20;
  std::size_t segment_bytes = std::size_t{64} << 20;
  // Smaller segments would be a file per group: thousands in a directory.
  static constexpr std::size_t min_segment_bytes = std::size_t{1} << 10;
};
// Throws std::invalid_argument for options no log runs with: a negative
// window, or segments under min_segment_bytes.
void validate(const log_options& options);

class redo_log {
 public:
  // A worker's buffer; join() once per worker thread, keep it for the log's life.
  // Each on lines of its own: workers append to theirs at every commit.
  class alignas(128) buffer {
   private:
    friend class redo_log;
    std::mutex mutex_;
    group_builder builder_;
    // The flusher's: what it swapped out last round, emptied but with its
    // capacity, so a worker's buffer does not grow from nothing each round.
    group_builder spare_;
  };

  // Starts a new segment in `directory` (which must exist) with a restart
  // group, and the flusher. `completed` is the commit clock's: every commit
  // at or before what it returns has been appended or will never be. `read`
  // is recovery's scan of the log, whose torn tail it cut (else the log is
  // read here). Throws std::system_error if the segment cannot be written.
  redo_log(const std::filesystem::path& directory, log_options options, std::function<std::uint64_t()> completed,
           const log_scan* read = nullptr);
  // Flushes what is buffered and stops the flusher.
  ~redo_log();
  redo_log(const redo_log&) = delete;
  redo_log& operator=(const redo_log&) = delete;

  buffer& join();

  // Buffers a transaction whose commit timestamp is drawn and not yet
  // complete. Throws std::length_error for a record larger than a group.
  void append(buffer& b, std::uint64_t commit, std::span<const logged_write> writes);
  // Every commit at or before this is durable.
  std::uint64_t durable_through() const noexcept { return durable_through_.load(std::memory_order_acquire); }
  bool durable(std::uint64_t commit) const noexcept { return durable_through() >= commit; }
  // Reaches a commit once it is durable, or at once everything when the log
  // fails: what a coroutine parks on (exec/park.hpp), then asks durable().
  const std::atomic<std::uint64_t>& settled() const noexcept { return settled_; }
  // Waits until `commit` is durable; false if the log failed first (the
  // commit must not be acknowledged).
  bool wait_durable(std::uint64_t commit);
  // Asks the flusher for a round now rather than at the end of the window.
  void hurry();
  static void hurry_erased(void* log) { static_cast<redo_log*>(log)->hurry(); }
  // Deletes the segments a checkpoint at `snapshot` makes needless.
  std::size_t remove_segments_through(std::uint64_t snapshot);
  // A write or sync failed: nothing appended since is or will be durable.
  bool failed() const noexcept { return failed_.load(std::memory_order_acquire); }
  // The failure, for a message.
  std::string failure() const;

  const log_options& options() const noexcept { return options_; }
  // The log's identity, which its segments name (log_format.hpp); fixed
  // once the log is open.
  std::uint64_t identity() const noexcept { return writer_.log(); }
  std::uint64_t bytes_written() const noexcept { return bytes_.load(std::memory_order_relaxed); }
  std::uint64_t groups_written() const noexcept { return groups_.load(std::memory_order_relaxed); }
  // Time spent in write and fdatasync, all groups together.
  std::uint64_t write_nanoseconds() const noexcept { return write_ns_.load(std::memory_order_relaxed); }
  // Each round's worst exposure to a crash (exposure.hpp), for the rounds
  // that made a commit durable.
  exposure_histogram::counts exposure() const noexcept { return exposure_.snapshot(); }

 private:
  void flusher();
  // One round: gathers every buffer, writes and syncs the group.
  void flush_round();

  log_options options_;
  std::function<std::uint64_t()> completed_;
  std::mutex writer_mutex_;  // the flusher's rounds, and segment removal
  log_writer writer_;
  std::uint64_t written_through_ = 0;  // of the last group written
  std::uint64_t written_last_ = 0;     // the latest commit written
  std::chrono::steady_clock::time_point round_began_;  // the last round's, before it read `through`
  exposure_histogram exposure_;
  std::vector<group_builder> round_;   // the flusher's groups, and their
  std::string sealed_;                 // bytes, kept for their capacity
  std::mutex buffers_mutex_;  // join() and the flusher's walk over the list
  std::deque<buffer> buffers_;
  alignas(64) std::atomic<std::uint64_t> durable_through_{0};
  std::atomic<std::uint64_t> settled_{0};
  std::atomic<bool> failed_{false};
  std::atomic<bool> hurry_{false};
  std::atomic<std::uint64_t> bytes_{0}, groups_{0}, write_ns_{0};
  mutable std::mutex failure_mutex_;
  std::string failure_;
  std::mutex wake_mutex_;  // the flusher's sleep and the waiters' (sequential commits)
  std::condition_variable wake_;    // the flusher: a window ended, a buffer filled, stop
  std::condition_variable flushed_;  // the waiters: a round is durable, or the log failed
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace weave::durability
