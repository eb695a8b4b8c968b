#pragma once
// Runs requests one after the other. With sequential_policy (the default) an
// operation never suspends, so this is the plain loop the interleaved
// schedulers are measured against. Given interleaved_policy it still works:
// each suspended operation is resumed at once, which is what a stall costs.

#include <cstddef>
#include <type_traits>
#include <utility>

#include "weave/exec/load.hpp"
#include "weave/exec/policy.hpp"
#include "weave/exec/run_stats.hpp"

namespace weave {

template <execution_policy Policy = sequential_policy>
class basic_sequential_scheduler {
 public:
  template <class Make, class Sink>
  run_stats run(std::size_t first, std::size_t last, Make&& make, Sink&& sink) const {
    // Each task lives and dies in this loop, which lets the compiler inline
    // its body here. Under sequential_policy it runs to the end in one
    // resume; a task that suspends anyway is resumed at once.
    run_stats stats;
    for (std::size_t i = first; i < last; ++i) {
      auto op = make(Policy{}, i);
      op.handle().resume();
      while (!op.done()) {
        ++stats.suspensions;
        detail::take_resume_point().resume();
      }
      if constexpr (std::is_void_v<typename decltype(op)::value_type>) {
        op.handle().promise().result();
        sink(i);
      } else {
        sink(i, std::move(op.handle().promise()).result());
      }
    }
    stats.requests = last - first;
    return stats;
  }

  template <class Make, class Sink>
  run_stats run(std::size_t count, Make&& make, Sink&& sink) const {
    return run(0, count, make, sink);
  }
};

using sequential_scheduler = basic_sequential_scheduler<>;

}  // namespace weave
