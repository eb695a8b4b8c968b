#pragma once
// Chooses, while it runs, between sequential and interleaved execution and the
// group size, so that a caller need not know whether the data is cached.
//
// Calibration times windows of real requests: one interleaved with a probe
// group, one sequential. A first window at the probe group goes before them
// and its time is thrown away: it pays what only a first run pays (the
// frames' pages faulted in). Counted, it made a 100-column row's probe
// window 5,700 ns a request where later ones took about 140, and the
// model's group 2. The two timed windows' times per request, the
// suspensions counted in the interleaved one and the machine's switch cost
// give the stage costs of the analytical model, which yields a group size
// (Formula 3.2) and the speedup to expect (Formula 3.4). A last window runs
// the model's group, and the fastest of the three timed wins; interleaving
// must beat sequential by `min_gain`, so cached data runs sequentially.
// Every `recheck_interval` requests it times the current choice against
// neighbours (sequential, a smaller and a larger group) and keeps the
// fastest, once a second pair of windows confirms it: the data may have
// grown, shrunk or gone cold. A re-check that changes nothing doubles the
// interval to the next one (up to `max_recheck_interval`), because the losing
// windows cost real time; for the same reason a sequential window that lost
// before gets fewer requests.
//
// A window is a slice of a run (`window` requests, or a sixth of a shorter
// run, but at least `short_window` or `window`, whichever is less), or whole runs shorter than that, timed
// one by one and added up until together they hold a window's requests (a
// query that fetches a row's 100 columns is one run of 100 requests, and
// three of them make a window). So many short runs calibrate and re-check
// across runs, each timed as it will run: slices of a few dozen requests
// would overweight the ring's filling and draining, which favoured small
// groups (G=3 against 16 on 200 columns, at 1.3x-1.5x the time), and a window
// of one such row (about 15 us) was so noisy that re-checks walked the
// group down a step at a time. Until the first window is timed, a run goes
// at the probe group, and until calibration ends, with the best choice timed
// so far; between the windows of a re-check it goes with the current choice.
// A single run too short for the calibration's four windows therefore ends
// uncalibrated (calibrated() says so), at the probe group or sequential.
//
// Every request runs exactly once: the windows are part of the work.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <initializer_list>

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
  // The fewest requests a window times (the floor of `window`, and of a
  // re-check's shortened sequential window).
  static constexpr std::size_t min_window = 16;
  // The shortest slice of a run that is timed as a window (or `window`, if
  // less); a shorter run is timed whole and added to the next ones until
  // they hold a window's requests. The ring fills and drains once per
  // window, which in a few dozen requests would decide for small groups.
  static constexpr std::size_t short_window = 256;

  explicit adaptive_scheduler(adaptive_options options = {}) : options_(options) {
    options_.max_group = std::clamp<std::size_t>(options_.max_group, 2, detail::max_group);
    options_.probe_group = std::clamp<std::size_t>(options_.probe_group, 2, options_.max_group);
    options_.window = std::max<std::size_t>(options_.window, min_window);
    options_.recheck_interval = std::max<std::size_t>(options_.recheck_interval, 1);
    options_.max_recheck_interval = std::max(options_.max_recheck_interval, options_.recheck_interval);
    interval_ = options_.recheck_interval;
    decision_.interleave = true;
    decision_.group = options_.probe_group;
    plan({{true, options_.probe_group}, {false, 1}}, phase::calibrate);
  }

  const adaptive_decision& decision() const noexcept { return decision_; }
  // Calibration is the first plan, so every later phase comes after it.
  bool calibrated() const noexcept { return phase_ != phase::calibrate && phase_ != phase::model; }

  template <class Make, class Sink>
  run_stats run(std::size_t first, std::size_t last, Make&& make, Sink&& sink) {
    detail::check_range(first, last);
    run_stats total;
    std::size_t pos = first;
    // A run that holds several windows gets them in proportion, so that a
    // whole re-check fits in it (down to short_window requests each).
    const std::size_t slice =
        std::min(options_.window, std::max((last - first) / check_windows, short_window));
    while (pos < last) {
      if (phase_ != phase::none) {
        // The next window: a slice of the run, or the whole of a run shorter
        // than that; a run's short tail goes with the current choice.
        const std::size_t wanted = std::min(window_for(plan_[timed_]), slice);
        const std::size_t left = last - pos;
        if (left >= wanted) {
          const timed t =
              run_with(plan_[timed_].interleave, plan_[timed_].group, pos, pos + wanted, make, sink);
          total += t.stats;
          pos += wanted;
          record(t, wanted);
          continue;
        }
        if (pos == first) {
          // A whole run shorter than a window: part of one.
          const timed t = run_with(plan_[timed_].interleave, plan_[timed_].group, pos, last, make, sink);
          total += t.stats;
          gather(t, left, wanted);
          break;
        }
        total += run_current(pos, last, make, sink);
        break;
      }
      const std::size_t chunk = std::min(until_recheck_, last - pos);
      total += run_current(pos, pos + chunk, make, sink);
      pos += chunk;
      until_recheck_ -= chunk;
      if (until_recheck_ == 0) plan_recheck();
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

  struct candidate {
    bool interleave;
    std::size_t group;
    bool operator==(const candidate&) const = default;
  };

  // What the windows being timed are for.
  enum class phase {
    none,       // no window due: run the current choice
    calibrate,  // the probe group and sequential
    model,      // the model's group, against the better of those two
    recheck,    // the current choice and its neighbours
    confirm,    // a neighbour that won, against the current choice again
  };
  // The most windows a phase times: a re-check's four candidates.
  static constexpr std::size_t max_plan = 4;
  // The most windows a re-check takes: four candidates and two to confirm.
  static constexpr std::size_t check_windows = 6;

  template <class Make, class Sink>
  static run_stats run_as(bool interleave, std::size_t group, std::size_t first, std::size_t last, Make& make,
                          Sink& sink) {
    return interleave ? interleaved_scheduler{group}.run(first, last, make, sink)
                      : sequential_scheduler{}.run(first, last, make, sink);
  }

  template <class Make, class Sink>
  timed run_with(bool interleave, std::size_t group, std::size_t first, std::size_t last,
                 Make& make, Sink& sink) const {
    const auto start = std::chrono::steady_clock::now();
    run_stats stats = run_as(interleave, group, first, last, make, sink);
    const auto stop = std::chrono::steady_clock::now();
    const double ns = std::chrono::duration<double, std::nano>(stop - start).count();
    return {stats, ns / static_cast<double>(std::max<std::size_t>(last - first, 1))};
  }

  // Untimed: two clock reads a run cost more than a 10-column row's requests
  // gain (40-100 ns on these VMs).
  template <class Make, class Sink>
  run_stats run_current(std::size_t first, std::size_t last, Make& make, Sink& sink) const {
    return run_as(decision_.interleave, decision_.group, first, last, make, sink);
  }

  void plan(std::initializer_list<candidate> candidates, phase p) {
    planned_ = 0;
    for (const candidate& c : candidates) plan_[planned_++] = c;
    timed_ = 0;
    phase_ = p;
  }

  // Requests of a window that times `c`. A sequential window of a re-check
  // gets the time of an interleaved one, not its requests: on DRAM it is
  // several times slower and would cost more than the re-check can win.
  std::size_t window_for(const candidate& c) const {
    const std::size_t w = options_.window;
    if (c.interleave || phase_ != phase::recheck || timed_ == 0 || sequential_ns_ <= 0) return w;
    const double share = ns_[0] / sequential_ns_;
    return std::clamp<std::size_t>(static_cast<std::size_t>(static_cast<double>(w) * share),
                                   std::max(w / 16 + 1, min_window), w);
  }

  // Adds a run shorter than a window to the window it is part of, and
  // records that window once it holds `wanted` requests.
  void gather(const timed& t, std::size_t requests, std::size_t wanted) {
    gathered_stats_ += t.stats;
    gathered_ns_ += t.ns_per_request * static_cast<double>(requests);
    gathered_requests_ += requests;
    if (gathered_requests_ < wanted) return;
    const timed whole{gathered_stats_, gathered_ns_ / static_cast<double>(gathered_requests_)};
    record(whole, gathered_requests_);
  }

  // Takes the time of the window just run and, once a phase's windows are
  // all timed, decides.
  void record(const timed& t, std::size_t requests) {
    // Short runs gathered so far were for this window, or one before it.
    gathered_stats_ = {};
    gathered_ns_ = 0;
    gathered_requests_ = 0;
    if (!warmed_up_) {
      warmed_up_ = true;  // the first window: its time is thrown away, the next times the probe
      return;
    }
    const candidate c = plan_[timed_];
    ns_[timed_] = t.ns_per_request;
    if (!c.interleave) sequential_ns_ = t.ns_per_request;
    if (phase_ == phase::calibrate && c.interleave) {
      probe_stages_ = static_cast<double>(t.stats.suspensions) / static_cast<double>(requests);
    }
    if (++timed_ < planned_) {
      // Until the phase decides, go with the best timed so far.
      if (phase_ == phase::calibrate && timed_ == 1) adopt(c);
      return;
    }
    switch (phase_) {
      case phase::calibrate:
        decide_calibration();
        break;
      case phase::model:
        if (ns_[0] < best_ns_) adopt(plan_[0]);
        finish_check(false);
        break;
      case phase::recheck:
        decide_recheck();
        break;
      case phase::confirm:
        // plan_ = {neighbour, current}: the neighbour must win again.
        finish_check(ns_[0] < ns_[1] * (1 - options_.min_gain));
        break;
      case phase::none:
        break;
    }
  }

  void adopt(const candidate& c) {
    decision_.interleave = c.interleave;
    decision_.group = c.group;
  }

  // plan_ = {probe group, sequential}.
  void decide_calibration() {
    const double probe_ns = ns_[0], seq_ns = ns_[1];
    decision_.costs = estimate_stage_costs(seq_ns, probe_ns, probe_stages_, switch_cost_ns());
    decision_.predicted_speedup = max_speedup(decision_.costs);
    const std::size_t model = std::max<std::size_t>(group_size(decision_.costs, options_.max_group), 2);
    // The model proposes a group; a window at that group decides between it,
    // the probe group and sequential execution.
    best_ns_ = seq_ns * (1 - options_.min_gain);
    adopt({false, model});  // the group a re-check tries against sequential
    if (probe_stages_ > 0 && probe_ns < best_ns_) {
      best_ns_ = probe_ns;
      adopt({true, options_.probe_group});
    }
    if (probe_stages_ > 0 && model != options_.probe_group) {
      plan({{true, model}}, phase::model);
      return;
    }
    finish_check(false);
  }

  // Plans the windows of a re-check: the current choice first, whose window
  // also sizes the sequential one's.
  void plan_recheck() {
    const std::size_t g = decision_.group;
    const candidate current{decision_.interleave, g};
    if (!decision_.interleave) {
      plan({current, {true, g}}, phase::recheck);
      return;
    }
    // Group neighbours matter only when interleaving.
    const std::size_t smaller = std::max<std::size_t>(g * 3 / 4, 2);
    const std::size_t larger = std::min<std::size_t>(std::max(g * 4 / 3, g + 1), options_.max_group);
    plan({current, {false, g}, {true, smaller}, {true, larger}}, phase::recheck);
  }

  // Times the current choice and its neighbours on one window each. A
  // neighbour that looks faster is timed once more against the current choice
  // and replaces it only if it wins again: a window can be slowed by an
  // interrupt or by the other core, and changes made on one window let the
  // group drift down on noise to where interleaving loses (seen: G=21 walking
  // to G=2 on a 2 GiB hash table, then sequential for good).
  void decide_recheck() {
    // The current choice keeps its place unless another one is clearly faster.
    double best = ns_[0] * (1 - options_.min_gain);
    std::size_t winner = 0;
    for (std::size_t k = 1; k < planned_; ++k) {
      if (ns_[k] < best) {
        best = ns_[k];
        winner = k;
      }
    }
    if (winner == 0) {
      finish_check(false);
      return;
    }
    plan({plan_[winner], plan_[0]}, phase::confirm);
  }

  // Ends a phase: adopts the confirmed neighbour if `change`, and schedules
  // the next re-check (sooner after a change, later after none).
  void finish_check(bool change) {
    if (phase_ == phase::confirm) {
      if (change) adopt(plan_[0]);
      interval_ = change ? options_.recheck_interval : std::min(interval_ * 2, options_.max_recheck_interval);
    } else if (phase_ == phase::recheck) {
      interval_ = std::min(interval_ * 2, options_.max_recheck_interval);
    }
    until_recheck_ = interval_;
    phase_ = phase::none;
  }

  adaptive_options options_;
  std::size_t interval_;           // requests from one re-check to the next
  std::size_t until_recheck_ = 0;  // requests left until the next one
  adaptive_decision decision_;
  std::array<candidate, max_plan> plan_{};  // the windows of the current phase
  std::array<double, max_plan> ns_{};       // their times per request, as they are run
  std::size_t planned_ = 0;
  std::size_t timed_ = 0;
  phase phase_ = phase::none;
  double best_ns_ = 0;        // calibration: the time the model's group must beat
  double probe_stages_ = 0;   // calibration: suspensions per request at the probe group
  double sequential_ns_ = 0;  // per request, in the last sequential window
  bool warmed_up_ = false;    // whether the untimed first window has run
  // The short runs of the window being timed so far.
  run_stats gathered_stats_;
  double gathered_ns_ = 0;  // their time
  std::size_t gathered_requests_ = 0;
};

}  // namespace weave
