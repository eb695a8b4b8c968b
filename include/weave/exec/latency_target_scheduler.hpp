#pragma once
// Runs requests interleaved in groups whose size a latency_controller
// chooses as it goes: the largest group (batch, or pipeline depth) that
// keeps the 99th percentile of request latency under a target.
//
//   latency_target_scheduler s({.p99_us = 200});        // strict batches
//   latency_target_scheduler s({.p99_us = 200}, true);  // pipeline
//   s.run(count, make, sink);   // as any scheduler; keep `s` across runs
//
// A request's latency runs from the moment its slot takes it (its task is
// made) to the moment its result reaches the sink, as a client of the
// worker would see it. The scheduler keeps its controller between runs,
// so a worker that runs chunk after chunk keeps learning. A group of one
// runs in order under sequential_policy (unless the options say otherwise),
// so `make` must take either policy, as with any scheduler. Each request
// costs two clock reads, which is nothing beside a transaction but not
// beside a single index probe: this is for operations of microseconds.

#include <chrono>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "weave/exec/detail/ring.hpp"
#include "weave/exec/latency_controller.hpp"
#include "weave/exec/request_stream.hpp"
#include "weave/exec/run_stats.hpp"
#include "weave/exec/sequential_scheduler.hpp"

namespace weave {

class latency_target_scheduler {
 public:
  explicit latency_target_scheduler(const latency_target_options& options, bool pipeline = false)
      : controller_(options), pipeline_(pipeline) {}

  const latency_controller& controller() const noexcept { return controller_; }
  bool pipeline() const noexcept { return pipeline_; }

  template <class Make, class Sink>
  run_stats run(std::size_t first, std::size_t last, Make&& make, Sink&& sink) {
    static_assert(!detail::is_streamed<std::remove_cvref_t<Make>>,
                  "a streamed operation has no per-request task to time: give one task per request");
    detail::check_range(first, last);
    using clock = std::chrono::steady_clock;
    run_stats total;
    std::size_t base = first;
    const auto timed_make = [&]<class Policy>(Policy policy, std::size_t i) {
      started_[i - base] = clock::now();
      return make(policy, i);
    };
    const auto timed_sink = [&](std::size_t i, auto&&... result) {
      controller_.record(
          std::chrono::duration<double, std::micro>(clock::now() - started_[i - base]).count());
      sink(i, std::forward<decltype(result)>(result)...);
    };
    while (base < last) {
      const std::size_t group = controller_.group();
      const std::size_t n = detail::requests_for_window(controller_.wanted(), group, pipeline_, last - base);
      started_.resize(n);
      const auto start = clock::now();
      if (group == 1 && controller_.options().sequential_at_one) {
        total += sequential_scheduler{}.run(base, base + n, timed_make, timed_sink);
      } else {
        // The pipeline refills a finished request's slot at once; strict batches do not.
        total += detail::run_ring<interleaved_policy>(group, pipeline_, base, base + n, timed_make, timed_sink);
      }
      controller_.add_time(std::chrono::duration<double>(clock::now() - start).count());
      if (controller_.wanted() == 0) controller_.end_window();
      base += n;
    }
    return total;
  }

  template <class Make, class Sink>
  run_stats run(std::size_t count, Make&& make, Sink&& sink) {
    return run(0, count, make, sink);
  }

 private:
  latency_controller controller_;
  bool pipeline_;
  std::vector<std::chrono::steady_clock::time_point> started_;  // of the requests of the current run
};

template <>
inline constexpr bool runs_streamed<latency_target_scheduler> = false;

}  // namespace weave
