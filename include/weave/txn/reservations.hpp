#pragma once
// Reservations keep a worker from making the write conflicts it then pays
// for.
//
// Transactions interleaved on one worker run side by side, so two of them
// that update the same hot record (TPC-C's warehouse and district rows, a
// Zipfian key) collide, and first-updater-wins aborts the later one. A
// transaction that names its hot records before it begins reserves them on
// its worker:
//
//   txn::transaction t = db.begin(co_await mine.reserve<Policy>(tokens));
//
// It waits, suspended (its siblings run), while another transaction of the
// same worker holds one of them, and begins once all are free: its snapshot
// then holds the earlier transaction's commit, and its writes do not
// conflict with it. The transaction keeps the reservation until it commits
// or aborts in memory, not while it waits for the disk.
//
// Advisory: a reservation decides which of a worker's transactions goes
// first, never correctness (conflicts are still detected at every write),
// and nothing between workers. Under a policy that does not suspend it never
// waits (no sibling could run meanwhile), and it stops waiting after
// `patience` passes rather than hang when the holder cannot run (a
// transaction left open outside the scheduler); the transaction then begins
// without it. One object per worker thread, used by that thread only.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "weave/exec/load.hpp"
#include "weave/exec/policy.hpp"
#include "weave/exec/task.hpp"

namespace weave::txn {

class table;
class reservations;

// What a transaction holds: released when it finishes (or when dropped).
class reservation {
 public:
  reservation() noexcept = default;
  reservation(reservation&& o) noexcept;
  reservation& operator=(reservation&& o) noexcept;
  reservation(const reservation&) = delete;
  reservation& operator=(const reservation&) = delete;
  ~reservation() { release(); }

  bool empty() const noexcept { return owner_ == nullptr; }
  void release() noexcept;

 private:
  friend class reservations;
  reservations* owner_ = nullptr;  // null until taken
  std::vector<std::uint64_t> tokens_;
};

class reservations {
 public:
  // Passes of the scheduler a reservation waits before it gives up.
  static constexpr std::size_t patience = std::size_t{1} << 16;

  reservations();
  // Moved only while it holds nothing (a worker's state set up in a vector).
  reservations(reservations&&) noexcept = default;
  reservations& operator=(reservations&&) noexcept = default;

  // A name for record `key` of table `t`. Any 64-bit names will do; equal
  // names exclude each other, and so, rarely, do two that hash alike.
  static std::uint64_t token(const table& t, std::uint64_t key) noexcept;

  // Waits until no transaction of this worker holds any of `tokens` and
  // takes them all (duplicates are fine). Empty if it gave up. The tokens
  // are copied before the first suspension: a caller's scratch buffer will do.
  template <execution_policy Policy>
  task<reservation> reserve(std::span<const std::uint64_t> tokens) {
    reservation r = wanting(tokens);
    for (std::size_t pass = 0; !take(r); ++pass) {
      if (!Policy::suspends || pass == patience) {
        ++given_up_;
        r.tokens_.clear();
        break;
      }
      ++waits_;
      co_await next_pass<Policy>();
    }
    co_return r;
  }

  // Tokens held now.
  std::size_t held() const noexcept { return held_; }
  // Passes spent waiting, and reservations that went without.
  std::uint64_t waits() const noexcept { return waits_; }
  std::uint64_t given_up() const noexcept { return given_up_; }

 private:
  friend class reservation;
  // A reservation not yet taken, naming `tokens`.
  static reservation wanting(std::span<const std::uint64_t> tokens);
  // Takes all of r's tokens (r then holds them), or none if one is held.
  bool take(reservation& r);
  void give_back(std::span<const std::uint64_t> tokens) noexcept;
  std::size_t find(std::uint64_t stored) const noexcept;  // its slot, or an empty one
  void grow();

  // Open addressing with linear probing; 0 marks an empty slot.
  std::vector<std::uint64_t> slots_;
  std::size_t held_ = 0;
  std::uint64_t waits_ = 0, given_up_ = 0;
};

}  // namespace weave::txn
