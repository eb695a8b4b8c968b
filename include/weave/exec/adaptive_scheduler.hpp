#pragma once
// Chooses, while it runs, between sequential and interleaved execution and the
// group size, so that a caller need not know whether the data is cached.
//
// Calibration runs short windows of real requests: one sequential, one
// interleaved with a probe group. Their times per request, the suspensions
// counted in the interleaved window and the machine's switch cost give the
// stage costs of the analytical model, which yields a group size (Formula
// 3.2) and the speedup to expect (Formula 3.4). A third window runs the
// model's group, and the fastest of the three wins; interleaving must beat
// sequential by `min_gain`, so cached data runs sequentially.
// Every `recheck_interval` requests it times the current choice against
// neighbours (sequential, a smaller and a larger group) on short windows and
// keeps the fastest, once a second pair of windows confirms it: the data may
// have grown, shrunk or gone cold. A re-check
// that changes nothing doubles the interval to the next one (up to
// `max_recheck_interval`), because the losing windows cost real time; for
// the same reason a sequential window that lost before gets fewer requests.
//
// Every request runs exactly once: the windows are part of the work.

#include <algorithm>
#include <chrono>
#include <cstddef>

#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/model.hpp"
#include "weave/exec/run_stats.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/switch_cost.hpp"

namespace weave {

struct adaptive_options {
  std::size_t probe_group = 16;
  std::size_t max_group = 64;            // cap from the memory system's parallelism
  std::size_t window = 4096;             // requests per calibration window
  std::size_t recheck_interval = 1 << 16;
  std::size_t max_recheck_interval = 1 << 22;
  double min_gain = 0.03;                // interleave only when it saves at least this share
};

struct adaptive_decision {
  bool interleave = false;
  std::size_t group = 1;
  stage_costs costs;
  double predicted_speedup = 1;
};

class adaptive_scheduler {
 public:
  static constexpr std::size_t min_window = 16;

  explicit adaptive_scheduler(adaptive_options options = {}) : options_(options) {
    options_.max_group = std::clamp<std::size_t>(options_.max_group, 2, detail::max_group);
    options_.probe_group = std::clamp<std::size_t>(options_.probe_group, 2, options_.max_group);
    options_.window = std::max<std::size_t>(options_.window, 1);
    options_.recheck_interval = std::max<std::size_t>(options_.recheck_interval, 1);
    options_.max_recheck_interval = std::max(options_.max_recheck_interval, options_.recheck_interval);
    interval_ = options_.recheck_interval;
  }

  const adaptive_decision& decision() const noexcept { return decision_; }
  bool calibrated() const noexcept { return calibrated_; }

  template <class Make, class Sink>
  run_stats run(std::size_t first, std::size_t last, Make&& make, Sink&& sink) {
    run_stats total;
    std::size_t pos = first;
    // A run too short for full windows calibrates on shorter ones (down to
    // min_window requests), so that short queries need not run sequentially.
    const std::size_t w = std::min(options_.window, (last - first) / 6);
    if (!calibrated_ && w >= min_window) pos = calibrate(pos, w, make, sink, total);
    while (pos < last) {
      const std::size_t chunk = std::min(interval_, last - pos);
      total += run_current(pos, pos + chunk, make, sink).stats;
      pos += chunk;
      if (calibrated_ && last - pos >= recheck_windows * options_.window) pos = recheck(pos, make, sink, total);
    }
    return total;
  }

  template <class Make, class Sink>
  run_stats run(std::size_t count, Make&& make, Sink&& sink) {
    return run(0, count, make, sink);
  }

 private:
  struct timed {
    run_stats stats;
    double ns_per_request;
  };

  template <class Make, class Sink>
  timed run_with(bool interleave, std::size_t group, std::size_t first, std::size_t last,
                 Make& make, Sink& sink) const {
    const auto start = std::chrono::steady_clock::now();
    run_stats stats = interleave ? interleaved_scheduler{group}.run(first, last, make, sink)
                                 : sequential_scheduler{}.run(first, last, make, sink);
    const auto stop = std::chrono::steady_clock::now();
    const double ns = std::chrono::duration<double, std::nano>(stop - start).count();
    return {stats, ns / static_cast<double>(std::max<std::size_t>(last - first, 1))};
  }

  template <class Make, class Sink>
  timed run_current(std::size_t first, std::size_t last, Make& make, Sink& sink) const {
    return run_with(decision_.interleave, decision_.group, first, last, make, sink);
  }

  template <class Make, class Sink>
  std::size_t calibrate(std::size_t pos, std::size_t w, Make& make, Sink& sink, run_stats& total) {
    const timed seq = run_with(false, 1, pos, pos + w, make, sink);
    sequential_ns_ = seq.ns_per_request;
    const timed probe = run_with(true, options_.probe_group, pos + w, pos + 2 * w, make, sink);
    total += seq.stats;
    total += probe.stats;
    pos += 2 * w;

    const double stages = static_cast<double>(probe.stats.suspensions) / static_cast<double>(w);
    decision_.costs = estimate_stage_costs(seq.ns_per_request, probe.ns_per_request, stages,
                                           switch_cost_ns());
    decision_.predicted_speedup = max_speedup(decision_.costs);
    const std::size_t model = std::max<std::size_t>(group_size(decision_.costs, options_.max_group), 2);

    // The model proposes a group; a window at that group decides between it,
    // the probe group and sequential execution.
    double best_ns = seq.ns_per_request * (1 - options_.min_gain);
    decision_.interleave = false;
    decision_.group = model;
    if (stages > 0 && probe.ns_per_request < best_ns) {
      best_ns = probe.ns_per_request;
      decision_.interleave = true;
      decision_.group = options_.probe_group;
    }
    if (stages > 0 && model != options_.probe_group) {
      const timed m = run_with(true, model, pos, pos + w, make, sink);
      total += m.stats;
      pos += w;
      if (m.ns_per_request < best_ns) {
        decision_.interleave = true;
        decision_.group = model;
      }
    }
    calibrated_ = true;
    return pos;
  }

  struct candidate {
    bool interleave;
    std::size_t group;
    bool operator==(const candidate&) const = default;
  };

  // Times the current choice and its neighbours on one window each. A
  // neighbour that looks faster is timed once more against the current choice
  // and replaces it only if it wins again: a window can be slowed by an
  // interrupt or by the other core, and changes made on one window let the
  // group drift down on noise to where interleaving loses (seen: G=21 walking
  // to G=2 on a 2 GiB hash table, then sequential for good).
  // The most windows a re-check runs: four candidates and two confirmations.
  static constexpr std::size_t recheck_windows = 6;

  template <class Make, class Sink>
  std::size_t recheck(std::size_t pos, Make& make, Sink& sink, run_stats& total) {
    const std::size_t w = options_.window;
    const std::size_t g = decision_.group;
    const std::size_t smaller = std::max<std::size_t>(g * 3 / 4, 2);
    const std::size_t larger = std::min<std::size_t>(std::max(g * 4 / 3, g + 1), options_.max_group);
    const candidate current{decision_.interleave, g};
    const auto time = [&](const candidate& c, std::size_t n) {
      const timed t = run_with(c.interleave, c.group, pos, pos + n, make, sink);
      if (!c.interleave) sequential_ns_ = t.ns_per_request;
      total += t.stats;
      pos += n;
      return t.ns_per_request;
    };

    const candidate candidates[] = {current, {!decision_.interleave, g}, {true, smaller}, {true, larger}};
    // The current choice keeps its place unless another one is clearly faster.
    double best_ns = time(current, w) * (1 - options_.min_gain);
    candidate best = current;
    std::size_t best_n = w;
    for (std::size_t k = 1; k < std::size(candidates); ++k) {
      const candidate& c = candidates[k];
      if (k >= 2 && !decision_.interleave) break;  // group neighbours matter only when interleaving
      // A sequential window gets the time of an interleaved one, not its
      // requests: on DRAM it is several times slower and would cost more than
      // the re-check can win.
      std::size_t n = w;
      if (!c.interleave && sequential_ns_ > 0) {
        const double share = best_ns / sequential_ns_;
        n = std::clamp<std::size_t>(static_cast<std::size_t>(static_cast<double>(w) * share), w / 16 + 1, w);
      }
      const double ns = time(c, n);
      if (ns < best_ns) {
        best_ns = ns;
        best = c;
        best_n = n;
      }
    }
    if (best != current) {
      const double again = time(best, best_n);
      if (again >= time(current, w) * (1 - options_.min_gain)) best = current;
    }
    const bool changed = best != current;
    interval_ = changed ? options_.recheck_interval : std::min(interval_ * 2, options_.max_recheck_interval);
    decision_.interleave = best.interleave;
    decision_.group = best.group;
    return pos;
  }

  adaptive_options options_;
  std::size_t interval_;  // requests until the next re-check
  adaptive_decision decision_;
  double sequential_ns_ = 0;  // per request, in the last sequential window
  bool calibrated_ = false;
};

}  // namespace weave
