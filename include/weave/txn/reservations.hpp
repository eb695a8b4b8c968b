#pragma once
// Reservations keep transactions from making the write conflicts they then
// pay for.
//
// Transactions interleaved on a worker run side by side, and beside those of
// the other workers, so two that update the same hot record (TPC-C's
// warehouse and district rows, a Zipfian key) collide, and first-updater-wins
// aborts the later one. A transaction that names its hot records before it
// begins reserves them:
//
//   txn::transaction t = db.begin(co_await hot.reserve<Policy>(tokens));
//
// It waits while another transaction holds one of them: suspended under a
// policy that suspends (its worker runs its siblings meanwhile), else
// spinning (the holder runs on another thread). It begins once it has them
// all: its snapshot then holds the holder's commit, and its writes do not
// conflict with it. A transaction keeps its reservation until it commits or
// aborts in memory, not while it waits for the disk.
//
// Advisory: a reservation decides who goes first, never correctness
// (conflicts are still detected at every write). Records share `slots` slots
// by hash, so two records exclude each other now and then. A reservation
// takes all its slots or none and never waits holding one, so waits form no
// cycle; it gives up after its patience (10 ms unless said) rather than
// hang when the holder cannot run (a transaction left open outside the
// scheduler on the same thread), and the transaction then begins without it.
//
// Scope: the transactions that share an object exclude each other; any
// thread may reserve and release. One per worker stops the collisions a
// worker makes itself at no cost in parallelism; one shared by the workers
// stops those between workers too, which pays for a few hot rows held
// briefly (TPC-C) and not for many keys held across many misses (YCSB
// under Zipf, where half the transactions want the hottest key).

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "weave/exec/load.hpp"
#include "weave/exec/policy.hpp"
#include "weave/exec/task.hpp"
#include "weave/txn/detail/backoff.hpp"

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
  std::vector<std::uint64_t> slots_;  // sorted, each once
};

class reservations {
 public:
  static constexpr std::size_t slots = std::size_t{1} << 16;
  // How long a reservation waits before it gives up: far longer than a
  // transaction holds one, short enough that a holder that cannot run
  // costs little.
  static constexpr std::chrono::microseconds default_patience{10'000};

  explicit reservations(std::chrono::microseconds patience = default_patience);
  // Moved only while nothing is held (a worker's state set up in a vector).
  reservations(reservations&&) noexcept = default;
  reservations& operator=(reservations&&) noexcept = default;

  // A name for record `key` of table `t`. Any 64-bit names will do.
  static std::uint64_t token(const table& t, std::uint64_t key) noexcept;
  // The slot a name takes: names with one slot exclude each other.
  static std::size_t slot_of(std::uint64_t token) noexcept;

  // Waits until it holds the slots of all `tokens` (duplicates are fine).
  // Empty if it gave up. The tokens are read before the first suspension: a
  // caller's scratch buffer will do.
  template <execution_policy Policy>
  task<reservation> reserve(std::span<const std::uint64_t> tokens) {
    reservation r = wanting(tokens);
    if constexpr (Policy::suspends) {
      // The slots' lines, which the other workers write too, arrive while
      // the siblings run.
      for (const std::uint64_t s : r.slots_) weave::detail::prefetch_line(&state_->taken[s]);
      co_await next_pass<Policy>();
    }
    detail::backoff spin;
    std::chrono::steady_clock::time_point since{};
    std::size_t tries = 0;
    for (; !take(r); ++tries) {
      if (tries % 256 == 0) {  // the clock costs more than a try
        const auto now = std::chrono::steady_clock::now();
        if (tries == 0) {
          since = now;
        } else if (now - since >= patience_) {
          state_->given_up.fetch_add(1, std::memory_order_relaxed);
          r.slots_.clear();
          break;
        }
      }
      if constexpr (Policy::suspends) {
        co_await next_pass<Policy>();
      } else {
        spin.pause();
      }
    }
    // Counted once a reservation, not once a try: every worker writes this
    // line, and a count on each failed try made the waiters' passes over
    // the ring wait for it (12% of coro's time on TPC-C at one warehouse,
    // two workers).
    if (tries > 0) state_->waits.fetch_add(1, std::memory_order_relaxed);
    co_return r;
  }

  // The same without waiting: empty if one of the slots is held.
  reservation try_reserve(std::span<const std::uint64_t> tokens) {
    reservation r = wanting(tokens);
    if (!take(r)) r.slots_.clear();
    return r;
  }

  // Slots held now (a scan: for tests and tools).
  std::size_t held() const noexcept;
  // Reservations that found a slot held at least once, and those that went
  // without.
  std::uint64_t waits() const noexcept { return state_->waits.load(std::memory_order_relaxed); }
  std::uint64_t given_up() const noexcept { return state_->given_up.load(std::memory_order_relaxed); }

 private:
  friend class reservation;
  struct state {
    std::atomic<std::uint8_t> taken[slots];  // 1: held
    alignas(64) std::atomic<std::uint64_t> waits{0};
    std::atomic<std::uint64_t> given_up{0};
  };

  // A reservation not yet taken, of the slots of `tokens`.
  static reservation wanting(std::span<const std::uint64_t> tokens);
  // Takes all of r's slots (r then holds them), or none if one is held.
  bool take(reservation& r) noexcept;
  void give_back(std::span<const std::uint64_t> held) noexcept;

  std::unique_ptr<state> state_;
  std::chrono::microseconds patience_;
};

}  // namespace weave::txn
