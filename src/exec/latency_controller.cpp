#include "weave/exec/latency_controller.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "weave/exec/detail/ring.hpp"

namespace weave {

namespace {

// Grow while the p99 is under this share of the target, and shrink to
// where it is predicted to be: room for the noise of the next windows.
constexpr double aim = 0.85;
// Weight of a new window in the smoothed figures (after the first few,
// which are averaged).
constexpr double weight = 0.25;
// Windows a group runs before it may grow or be judged: a window's
// throughput varies by several percent (a TPC-C window of 1,000
// transactions holds more or fewer long ones).
constexpr std::size_t settled_windows = 4;
// A larger group must not be slower than the one it grew from by more than this.
constexpr double slower = 0.05;
// A window's p99 this many times its group's usual is an outlier.
constexpr double outlier = 3;
// Windows that figures seen at a group, and a cap from a slower group, last.
constexpr std::size_t memory_windows = 64;

// The mean of the first 1 / weight figures, then an exponential average.
double smooth(double old, double now, std::size_t count) {
  const double w = std::max(weight, 1.0 / static_cast<double>(count));
  return (1 - w) * old + w * now;
}

}  // namespace

latency_controller::latency_controller(const latency_target_options& options) : options_(options) {
  if (!(options.p99_us > 0) || !std::isfinite(options.p99_us)) {
    throw std::invalid_argument(
        fmt::format("a latency target must be a positive number of microseconds, not {}", options.p99_us));
  }
  if (options.min_group < 1 || options.max_group > detail::max_group ||
      options.min_group > options.max_group) {
    throw std::invalid_argument(fmt::format("the group range {}..{} must lie within 1..{}", options.min_group,
                                            options.max_group, detail::max_group));
  }
  if (options.window < 100) {
    throw std::invalid_argument(
        fmt::format("a latency window of {} requests is too few for a 99th percentile "
                    "(at least 100)",
                    options.window));
  }
  group_ = std::clamp(options.start_group, options.min_group, options.max_group);
  ceiling_ = options.max_group;
  seen_.resize(options.max_group + 1);
  samples_.reserve(options.window);
}

double latency_controller::mean_group() const noexcept {
  return windows_ == 0 ? static_cast<double>(group_) : group_sum_ / static_cast<double>(windows_);
}

bool latency_controller::fresh(const group_seen& s) const noexcept {
  return s.window != 0 && windows_ - s.window < memory_windows;
}

double latency_controller::expected_p99(std::size_t k) const noexcept {
  const group_seen& s = seen_[k];
  if (!fresh(s) || s.per_request_us <= 0) return 0;
  return s.p99_us * per_request_us_ / s.per_request_us;
}

void latency_controller::end_window() {
  if (samples_.empty()) return;
  const auto rank = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(samples_.size()))) - 1;
  std::nth_element(samples_.begin(), samples_.begin() + static_cast<std::ptrdiff_t>(rank), samples_.end());
  const double p99 = samples_[rank];
  const double rate = seconds_ > 0 ? static_cast<double>(samples_.size()) / seconds_ : 0;
  samples_.clear();
  seconds_ = 0;
  ++windows_;
  group_sum_ += static_cast<double>(group_);
  const double target = options_.p99_us;
  if (p99 > target) ++missed_;

  const auto g = static_cast<double>(group_);
  group_seen& here = seen_[group_];
  // A window far slower than this group's usual: a slow spell of the
  // machine (a page fault storm, another process). Halve the group, but keep
  // the window out of the figures, or it would bar the group for as long as
  // they last. Then take the next few windows as they come, whatever they
  // say: if the load itself has changed, they must teach the figures so.
  if (quiet_windows_ > 0) {
    --quiet_windows_;
  } else if (fresh(here) && p99 > outlier * here.p99_us) {
    quiet_windows_ = settled_windows;
    grew_from_ = 0;
    stay_ = 0;
    const std::size_t next = std::max(group_ / 2, options_.min_group);
    if (next != group_) ++changes_;
    group_ = next;
    return;
  }
  per_request_us_ = smooth(per_request_us_, p99 / g, windows_);
  here.windows = fresh(here) ? here.windows + 1 : 1;
  here.p99_us = smooth(here.p99_us, p99, here.windows);
  here.per_second = smooth(here.per_second, rate, here.windows);
  here.per_request_us = per_request_us_;
  here.window = windows_;
  if (ceiling_windows_ > 0 && --ceiling_windows_ == 0) ceiling_ = options_.max_group;

  std::size_t next = group_;
  const double p = here.p99_us;
  const bool settled = ++stay_ >= settled_windows;  // windows run at this group since it was set
  if (p > target && grew_from_ != 0) {
    // The last growth went too far: back to where it came from.
    next = grew_from_;
    grew_from_ = 0;
  } else if (p > target) {
    // Latency grows about in proportion to the group: shrink by the excess.
    const auto proportional = static_cast<std::size_t>(g * aim * target / p);
    next = std::max({proportional, group_ / 2, options_.min_group});
    if (group_ > options_.min_group) next = std::min(next, group_ - 1);
  } else if (grew_from_ != 0 && settled) {
    // The last growth, judged against the fastest smaller group seen lately,
    // not only the one it grew from: else growths each a little slower than
    // the last add up (with throughput falling 0.6% a group past 8, the old
    // rule settled at 18, 6% slower than 8). Kept unless clearly slower.
    std::size_t fastest = grew_from_;
    for (std::size_t k = options_.min_group; k < group_; ++k) {
      if (fresh(seen_[k]) && seen_[k].per_second > seen_[fastest].per_second) fastest = k;
    }
    if (here.per_second < seen_[fastest].per_second * (1 - slower)) {
      // And no growth past it for a while: a cap at the group it grew from
      // would let it sit there until the fastest's figures were forgotten,
      // and then drift on.
      next = fastest;
      ceiling_ = fastest;
      ceiling_windows_ = memory_windows;
    }
    grew_from_ = 0;
  } else if (grew_from_ == 0 && settled && p < aim * target && group_ < ceiling_) {
    // Up to half again, stopping below the first group expected to exceed
    // the aim (latency grows with the group: the ones past it would too).
    const std::size_t most = std::min({std::max(group_ + 1, group_ * 3 / 2), ceiling_, options_.max_group});
    while (next < most && expected_p99(next + 1) <= aim * target) ++next;
    if (next > group_) grew_from_ = group_;
  }
  if (next != group_) {
    ++changes_;
    stay_ = 0;
  }
  group_ = next;
}

}  // namespace weave
