#include "weave/txn/contention_controller.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "weave/exec/detail/ring.hpp"

namespace weave::txn {

contention_controller::contention_controller(const contention_options& options)
    : options_(options), group_(options.max_group) {
  if (options.max_group < 1 || options.max_group > weave::detail::max_group) {
    throw std::invalid_argument(
        fmt::format("a batch of {} is outside 1..{}", options.max_group, weave::detail::max_group));
  }
  if (options.window < 1) throw std::invalid_argument("a contention window needs at least one transaction");
  if (!(options.grow_below >= 0 && options.grow_below <= options.shrink_above &&
        std::isfinite(options.shrink_above))) {
    throw std::invalid_argument(
        fmt::format("conflict thresholds {} (grow below) and {} (shrink above) are out of order",
                    options.grow_below, options.shrink_above));
  }
}

void contention_controller::record(std::size_t finished, std::uint64_t conflicts) {
  finished_ += finished;
  conflicts_ += conflicts;
  if (finished_ < options_.window) return;
  const double rate = static_cast<double>(conflicts_) / static_cast<double>(finished_);
  finished_ = 0;
  conflicts_ = 0;
  ++windows_;
  group_sum_ += static_cast<double>(group_);
  std::size_t next = group_;
  if (rate > options_.shrink_above) {
    next = std::max<std::size_t>(group_ / 2, 1);
  } else if (rate < options_.grow_below) {
    next = std::min(group_ + 1, options_.max_group);
  }
  if (next != group_) ++changes_;
  group_ = next;
}

}  // namespace weave::txn
