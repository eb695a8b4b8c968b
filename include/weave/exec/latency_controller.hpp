#pragma once
// Chooses a group size (batch size, or pipeline depth) that keeps the 99th
// percentile of request latency under a target while running as many
// requests at once as that allows.
//
// A larger group hides more misses, so throughput grows with it, but every
// request in a group waits for the others' turns, so its latency grows too.
// After each window of finished requests the controller updates, for the
// group it ran, the window's p99 and throughput, smoothed over the windows
// run at that group and forgotten after a while; and, over all windows, the
// p99 per request in flight, which tells how the load has changed since a
// group's figures were taken. Then:
//
//   p99 over the target        back to the group it grew from, if it just
//                              grew; else shrink in proportion to the
//                              excess (by half at most: one slow spell of
//                              the machine must not throw the group away)
//   p99 well under the target  grow by half (at least one), but not into
//   (under 85% of it)          or past a group seen to exceed 85% of it
//                              (its p99 scaled by the change in load since)
//   the last growth ran        go back to the fastest smaller group seen
//   clearly slower than the    lately, and do not grow past it for a
//   fastest smaller group      while: more in flight is not always faster
//                              (contention, a full L1)
//
// Decisions go by a group's smoothed p99, so a window somewhat over the
// target may move nothing, and one far over it acts at once. A group runs a
// few windows before it grows or is judged, so that one odd window decides
// nothing alone; shrinking needs no such wait. A window far slower than its
// group's usual (a page fault storm, another process) halves the group but
// stays out of the figures; the next few windows are taken as they come, so
// that a real change of load still reaches them.
//
// So it settles on the largest group that meets the target and follows the
// load as it changes. latency_target_scheduler runs requests with it; this
// class is only the decision, fed by its caller.

#include <cstddef>
#include <vector>

namespace weave {

struct latency_target_options {
  double p99_us = 0;  // the target; must be > 0
  std::size_t min_group = 1;
  std::size_t max_group = 32;  // at most 256, the ring's largest group
  std::size_t start_group = 4;
  std::size_t window = 1000;  // finished requests behind each decision, at least 100
  // A group of one runs in order under sequential_policy: with no other
  // request to hide its misses behind, a suspension only costs. Off where
  // requests wait for the disk by parking (transactions under durability
  // sync), which a ring of one overlaps with the next request.
  bool sequential_at_one = true;
};

class latency_controller {
 public:
  // Throws std::invalid_argument (one line) for options that cannot work.
  explicit latency_controller(const latency_target_options& options);

  const latency_target_options& options() const noexcept { return options_; }
  // The group the next requests should run in.
  std::size_t group() const noexcept { return group_; }
  // Requests still to finish before the current window is full.
  std::size_t wanted() const noexcept {
    return samples_.size() >= options_.window ? 0 : options_.window - samples_.size();
  }

  // One request has finished after `latency_us`.
  void record(double latency_us) { samples_.push_back(latency_us); }
  // Wall time spent running the current window's requests.
  void add_time(double seconds) noexcept { seconds_ += seconds; }
  // Once the window is full (wanted() == 0): decides the group for the
  // next one and starts it.
  void end_window();

  // What it did so far, for reports.
  std::size_t windows() const noexcept { return windows_; }
  std::size_t changes() const noexcept { return changes_; }
  // The mean group over the finished windows (each weighs the same).
  double mean_group() const noexcept;
  // Windows whose p99 was over the target.
  std::size_t missed() const noexcept { return missed_; }

 private:
  // What was seen at one group size, smoothed over the windows run at it.
  struct group_seen {
    double p99_us = 0;
    double per_second = 0;
    double per_request_us = 0;  // the load's p99 per request in flight then
    std::size_t window = 0;     // the window it was last updated in (0: never)
    std::size_t windows = 0;    // run at this group since it was last forgotten
  };
  bool fresh(const group_seen& s) const noexcept;
  // The p99 expected at group k now, if it was seen lately; 0 if not.
  double expected_p99(std::size_t k) const noexcept;

  latency_target_options options_;
  std::size_t group_;
  std::size_t ceiling_;              // no larger group while the cap lasts
  std::size_t ceiling_windows_ = 0;  // windows until the cap is lifted
  std::size_t grew_from_ = 0;        // the group before a growth not yet judged (0: none)
  std::size_t quiet_windows_ = 0;    // windows after an outlier that are taken as they come
  std::size_t stay_ = 0;             // windows run at the current group
  double per_request_us_ = 0;        // p99 / group, smoothed over all windows
  std::vector<group_seen> seen_;     // by group size
  std::vector<double> samples_;
  double seconds_ = 0;
  std::size_t windows_ = 0;
  std::size_t changes_ = 0;
  std::size_t missed_ = 0;
  double group_sum_ = 0;
};

}  // namespace weave
