#pragma once
// Runs a worker's transactions interleaved in a batch (or pipeline depth)
// that a contention_controller chooses from the conflicts they meet:
// halved while they conflict, one more while they do not. A batch of one
// runs in order under sequential_policy (unless the options say otherwise),
// so the `make` it is given must take either policy, as with any scheduler.
//
//   txn::contention_scheduler s({.max_group = 8});         // strict batches
//   txn::contention_scheduler s({.max_group = 8}, true);   // pipeline
//   s.run(count, make, sink);   // as any scheduler; keep `s` across runs
//
// Conflicts are read from conflicts_on_this_thread() around each run of the
// ring, so every transaction the ring runs must be begun and finished on
// this thread (as a worker's are). The scheduler keeps its controller
// between runs, so a worker that runs chunk after chunk keeps learning.

#include <cstddef>
#include <cstdint>

#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/run_stats.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/txn/contention_controller.hpp"
#include "weave/txn/transaction.hpp"

namespace weave::txn {

class contention_scheduler {
 public:
  explicit contention_scheduler(const contention_options& options = {}, bool pipeline = false)
      : controller_(options), pipeline_(pipeline) {}

  const contention_controller& controller() const noexcept { return controller_; }
  bool pipeline() const noexcept { return pipeline_; }

  template <class Make, class Sink>
  run_stats run(std::size_t first, std::size_t last, Make&& make, Sink&& sink) {
    run_stats total;
    for (std::size_t base = first; base < last;) {
      const std::size_t group = controller_.group();
      const std::size_t n =
          weave::detail::requests_for_window(controller_.wanted(), group, pipeline_, last - base);
      const std::uint64_t before = conflicts_on_this_thread();
      // The two ring schedulers, not run_ring with a run-time flag: with the
      // refill known at compile time TPC-C ran about 5% faster. A batch of
      // one runs in order: a ring of one pays a suspension per miss and
      // hides none (docs/results/contention.md, "A batch of one in order").
      if (group == 1 && controller_.options().sequential_at_one) {
        total += sequential_scheduler{}.run(base, base + n, make, sink);
      } else if (pipeline_) {
        total += interleaved_scheduler{group}.run(base, base + n, make, sink);
      } else {
        total += batched_scheduler{group}.run(base, base + n, make, sink);
      }
      controller_.record(n, conflicts_on_this_thread() - before);
      base += n;
    }
    return total;
  }

  template <class Make, class Sink>
  run_stats run(std::size_t count, Make&& make, Sink&& sink) {
    return run(0, count, make, sink);
  }

 private:
  contention_controller controller_;
  bool pipeline_;
};

}  // namespace weave::txn
