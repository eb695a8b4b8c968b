#pragma once
// Keeps `group` operations in flight and resumes them round-robin; each
// prefetches before it suspends, so its line arrives while the others run.
// A finished operation's slot takes the next request at once.

#include <cstddef>
#include <stdexcept>

#include "weave/exec/detail/ring.hpp"
#include "weave/exec/policy.hpp"

namespace weave {

class interleaved_scheduler {
 public:
  static constexpr std::size_t max_group = detail::max_group;

  explicit interleaved_scheduler(std::size_t group) : group_(group) {
    if (group < 1 || group > max_group)
      throw std::invalid_argument("group size must be between 1 and 256");
  }

  std::size_t group() const noexcept { return group_; }

  template <class Make, class Sink>
  run_stats run(std::size_t first, std::size_t last, Make&& make, Sink&& sink) const {
    return detail::run_ring<interleaved_policy>(group_, true, first, last, make, sink);
  }

  template <class Make, class Sink>
  run_stats run(std::size_t count, Make&& make, Sink&& sink) const {
    return run(0, count, make, sink);
  }

 private:
  std::size_t group_;
};

}  // namespace weave
