#pragma once
// Runs requests one after the other. With sequential_policy (the default) an
// operation never suspends, so this is the plain loop the interleaved
// schedulers are measured against. Given interleaved_policy it still works:
// each suspended operation is resumed at once, which is what a stall costs.

#include <cstddef>
#include <type_traits>
#include <utility>

#include "weave/exec/detail/completion.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/policy.hpp"
#include "weave/exec/request_stream.hpp"
#include "weave/exec/run_stats.hpp"

namespace weave {

template <execution_policy Policy = sequential_policy>
class basic_sequential_scheduler {
 public:
  template <class Make, class Sink>
  run_stats run(std::size_t first, std::size_t last, Make&& make, Sink&& sink) const {
    detail::check_range(first, last);
    run_stats stats;
    if constexpr (detail::is_streamed<std::remove_cvref_t<Make>>) {
      // One task of the operation runs every request, in its own loop.
      detail::shared_requests<std::remove_reference_t<Make>, std::remove_reference_t<Sink>> shared{
          make, sink, first, last};
      auto slot = detail::slot_task<Policy>(shared);
      finish(slot, stats);
    } else {
      for (std::size_t i = first; i < last; ++i) {
        if constexpr (std::is_void_v<typename detail::task_of<Make, Policy>::value_type>) {
          complete(make, i, stats);
          sink(i);
        } else {
          sink(i, complete(make, i, stats));
        }
      }
    }
    stats.requests = last - first;
    return stats;
  }

  template <class Make, class Sink>
  run_stats run(std::size_t count, Make&& make, Sink&& sink) const {
    return run(0, count, make, sink);
  }

 private:
  // Runs request i to its end and returns its result. The task lives and dies
  // inside this function, not in the loop of run(): clang then allocates its
  // frame on the stack and, once the function is inlined into the loop, keeps
  // the whole operation in registers (it does not elide a frame created in
  // a loop body). Under sequential_policy the request runs in one resume; a
  // task that suspends anyway is resumed at once.
  template <class Make>
  static typename detail::task_of<Make, Policy>::value_type complete(Make& make, std::size_t i,
                                                                    run_stats& stats) {
    auto op = make(Policy{}, i);
    return finish(op, stats);
  }

  // Resumes `op` until it ends; returns its result.
  template <class T>
  static T finish(task<T>& op, run_stats& stats) {
    op.handle().resume();
    while (!op.done()) {
      ++stats.suspensions;
      detail::take_resume_point().resume();
    }
    return std::move(op.handle().promise()).result();
  }
};

using sequential_scheduler = basic_sequential_scheduler<>;

}  // namespace weave
