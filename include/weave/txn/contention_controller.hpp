#pragma once
// Chooses the batch (or pipeline depth) of a worker's interleaved
// transactions from the conflicts they meet: additive increase and
// multiplicative decrease, as in congestion control. After each window of
// finished transactions,
//
//   conflicted runs per finished transaction      the batch
//   over shrink_above (5%)                        halves (down to 1)
//   under grow_below (1%)                         grows by one (up to max_group)
//   in between                                    stays
//
// A conflicted run is one that aborted on a write-write conflict or a
// serialization failure; a caller that retries aborted transactions counts
// each run, so the rate may exceed one. contention_scheduler runs
// transactions with it; this class is only the decision, fed by its caller.
//
// Why conflicts: a batch hides misses only if its transactions can all go
// on. An interleaved transaction holds its pending versions across its
// siblings' turns, so the larger the batch, the longer a hot record stays
// locked and the more often the other workers' transactions collide with
// it (docs/results/contention.md, "A batch that follows its conflicts").
// The rule sees what the worker meets, including conflicts the other
// workers cause alone: where those stay over the threshold even one at a
// time, it stays at one, and a larger batch that would pay despite them is
// not tried.

#include <cstddef>
#include <cstdint>

namespace weave::txn {

struct contention_options {
  std::size_t max_group = 8;   // the batch while nothing conflicts; at most 256
  std::size_t window = 256;    // finished transactions behind each decision
  double shrink_above = 0.05;  // conflicted runs per finished transaction
  double grow_below = 0.01;
  // A batch of one runs without suspending (sequential_policy): with no
  // sibling to hide its misses behind, a suspension only costs. Off where
  // commits wait for the disk (a durable engine under `sync`): a ring of one
  // still runs the next transaction while a commit is parked.
  bool sequential_at_one = true;
};

class contention_controller {
 public:
  // Throws std::invalid_argument (one line) for options that cannot work.
  explicit contention_controller(const contention_options& options);

  const contention_options& options() const noexcept { return options_; }
  // The group the next transactions should run in.
  std::size_t group() const noexcept { return group_; }
  // Transactions still to finish before the current window is full.
  std::size_t wanted() const noexcept {
    return finished_ >= options_.window ? 0 : options_.window - finished_;
  }
  // `finished` transactions have finished, after `conflicts` conflicted
  // runs; decides once the window is full (a window may span many calls).
  void record(std::size_t finished, std::uint64_t conflicts);

  // What it did so far, for reports.
  std::size_t windows() const noexcept { return windows_; }
  std::size_t changes() const noexcept { return changes_; }
  // The mean group over the finished windows (each weighs the same).
  double mean_group() const noexcept {
    return windows_ == 0 ? static_cast<double>(group_) : group_sum_ / static_cast<double>(windows_);
  }

 private:
  contention_options options_;
  std::size_t group_;
  std::size_t finished_ = 0;
  std::uint64_t conflicts_ = 0;
  std::size_t windows_ = 0;
  std::size_t changes_ = 0;
  double group_sum_ = 0;
};

}  // namespace weave::txn
