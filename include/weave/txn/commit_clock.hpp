#pragma once
// Commit timestamps without a commit lock.
//
// A committer draws its timestamp from an atomic counter, stamps its
// versions with it in parallel with other committers, and then completes
// it. Snapshots read now(): the largest timestamp at or below which every
// commit is complete (stamped, or decided to abort). A commit finished out
// of order waits in complete() until the ones before it finish, and whoever
// finishes the oldest moves now() past every complete one after it. So a
// snapshot never sees half of a commit (all of its versions are stamped
// before now() reaches it), and a commit that returned is visible to every
// transaction begun after it.
//
// The wait is for other committers' stamping, a few stores each; a
// committer that is descheduled meanwhile holds back the others' return
// (they yield to it after a while), never their stamping.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace weave::txn {

class commit_clock {
 public:
  commit_clock() noexcept;
  commit_clock(const commit_clock&) = delete;
  commit_clock& operator=(const commit_clock&) = delete;

  // Every commit at or before this is complete: a new snapshot.
  std::uint64_t now() const noexcept { return now_.load(std::memory_order_acquire); }

  // A timestamp after every one drawn before. Waits only while `window`
  // commits are drawn and not yet complete.
  std::uint64_t draw() noexcept;

  // Timestamp `ts` has stamped its versions (or aborted). Returns once now()
  // has reached it.
  void complete(std::uint64_t ts) noexcept;

  // Starts the clock at `ts` (recovery: past every commit in the data);
  // only before the first draw().
  void start_at(std::uint64_t ts) noexcept {
    now_.store(ts, std::memory_order_release);
    drawn_.store(ts, std::memory_order_release);
  }

 private:
  static constexpr std::size_t window = 4096;
  // Moves now() past every complete timestamp that follows it.
  void advance() noexcept;

  alignas(64) std::atomic<std::uint64_t> now_{1};
  alignas(64) std::atomic<std::uint64_t> drawn_{1};
  // done_[ts % window] == ts once ts is complete.
  alignas(64) std::array<std::atomic<std::uint64_t>, window> done_;
};

}  // namespace weave::txn
