#pragma once
// The resume loop shared by the interleaved and batched schedulers.
//
// Up to `group` requests are in flight, each a root frame plus the innermost
// frame that suspended last (the leaf, which is what gets resumed). One pass
// resumes every slot once. A finished slot is removed by moving the last slot
// into its place; with `refill` a new request takes the freed place at once,
// without it (strict batches) new requests start only when all have finished.
// The loop makes no heap allocation and no indirect call besides resume().

#include <array>
#include <cstddef>
#include <stdexcept>

#include "weave/assert.hpp"
#include "weave/exec/detail/completion.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/policy.hpp"
#include "weave/exec/run_stats.hpp"

namespace weave::detail {

inline constexpr std::size_t max_group = 256;

template <class Policy, class Make, class Sink>
run_stats run_ring(std::size_t group, bool refill, std::size_t first, std::size_t last,
                   Make& make, Sink& sink) {
  using handle_t = typename task_of<Make, Policy>::handle_type;
  struct slot {
    handle_t root;
    std::coroutine_handle<> leaf;
    std::size_t index;
  };
  WEAVE_ASSERT(group >= 1 && group <= max_group);

  std::array<slot, max_group> slots;
  std::size_t active = 0;
  // Frames still in flight when a task or the sink throws are destroyed here.
  struct cleanup {
    std::array<slot, max_group>& slots;
    std::size_t& active;
    ~cleanup() {
      for (std::size_t k = 0; k < active; ++k) slots[k].root.destroy();
    }
  } on_exit{slots, active};

  std::size_t next = first;
  auto start = [&] {
    handle_t root = make(Policy{}, next).release();
    slots[active] = slot{root, root, next};
    ++active;
    ++next;
  };

  run_stats stats;
  stats.requests = last - first;
  while (next < last || active > 0) {
    if (refill || active == 0) {
      while (active < group && next < last) start();
    }
    for (std::size_t k = 0; k < active;) {
      slot& s = slots[k];
      s.leaf.resume();
      if (!s.root.done()) {
        s.leaf = take_resume_point();
        ++stats.suspensions;
        ++k;
        continue;
      }
      const slot finished = s;
      s = slots[--active];  // slot k now holds the last one, resumed next
      deliver(finished.root, finished.index, sink);
      if (refill && next < last) start();
    }
  }
  return stats;
}

// The scheduler class over run_ring; interleaved_scheduler and
// batched_scheduler name its two modes.
template <bool Refill>
class ring_scheduler {
 public:
  static constexpr std::size_t max_group = detail::max_group;

  explicit ring_scheduler(std::size_t group) : group_(group) {
    if (group < 1 || group > max_group) throw std::invalid_argument("group size must be between 1 and 256");
  }

  std::size_t group() const noexcept { return group_; }

  template <class Make, class Sink>
  run_stats run(std::size_t first, std::size_t last, Make&& make, Sink&& sink) const {
    return run_ring<interleaved_policy>(group_, Refill, first, last, make, sink);
  }

  template <class Make, class Sink>
  run_stats run(std::size_t count, Make&& make, Sink&& sink) const {
    return run(0, count, make, sink);
  }

 private:
  std::size_t group_;
};

}  // namespace weave::detail
