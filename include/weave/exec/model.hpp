#pragma once
// The analytical model of interleaved execution (Psaropoulos' thesis, 3.1).
//
// An operation is a chain of stages separated by likely misses. Per stage it
// computes for T_compute, stalls for T_stall when run alone, and pays T_switch
// when it suspends instead. Interleaving G operations hides a stall once the
// other G-1 operations have enough work to cover it:
//
//   (G - 1) (T_compute + T_switch) >= T_stall - T_switch          (Formula 3.2)
//
// and, with every stall hidden, the speedup over running them one by one is
//
//   (T_compute + T_stall) / (T_compute + T_switch)                (Formula 3.4)
//
// Stages of a real structure are not alike: a search's top levels stay
// cached and stall for a few nanoseconds, its deep ones miss to DRAM. The
// speedup follows the mean stall, but a group must cover the longest one,
// or every deep stage waits out the rest of its miss. So Formula 3.2 takes
// the latency of one miss alone at the structure's size (`miss_ns`, a
// pointer chase measured out of cache) where it exceeds the mean stall.
//
// A ring may hold slots that each advance `width` operations in lockstep per
// resume. Then the other operations that cover a slot's stall are those of
// the other slots, (G - width) of them, and a group is whole slots:
//
//   (G - width) (T_compute + T_switch) >= T_stall - T_switch
//
// T_compute must be what a stage costs out of cache with its stall hidden:
// measured on cached data, a stage costs something else (each cached load
// waits in turn, and nothing of the page walks and the memory's queues shows).
// estimate_stage_costs takes it from a run that interleaves cold requests.
//
// The formulas know nothing of the memory system's limits: callers cap G by
// the misses in flight that `weave bench mlp` finds worth it, and pass
// max_speedup its best time per miss, which it charges a stage in the
// share of a miss that the stage stalls for.

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace weave {

struct stage_costs {
  double compute_ns = 0;  // work between two suspension points
  double stall_ns = 0;    // what the miss costs when nothing hides it, per stage on average
  double switch_ns = 0;   // suspend + resume of another operation
  double miss_ns = 0;     // one out-of-cache miss alone, the longest stall (0: not measured)
};

// Formula 3.2: the smallest group that hides every stall, in whole slots of
// `width` operations. `max_group` caps it (the misses the memory system
// overlaps), though never below two slots where there is a stall to hide:
// one slot alone waits out every miss it issues.
inline std::size_t group_size(const stage_costs& c, std::size_t max_group = 256, std::size_t width = 1) {
  const double w = static_cast<double>(std::max<std::size_t>(width, 1));
  const double target = std::max(std::max(c.stall_ns, c.miss_ns) - c.switch_ns, 0.0);
  if (target <= 0) return static_cast<std::size_t>(w);
  const double cover = std::max(c.compute_ns + c.switch_ns, 1e-3);
  const double slots = std::ceil(target / (w * cover)) + 1;
  const double cap = std::max(std::ceil(static_cast<double>(max_group) / w), 2.0);
  return static_cast<std::size_t>(w * std::clamp(slots, 1.0, cap));
}

// The least time a stage takes because of the memory system: it serves
// `ns_per_miss` a miss with many in flight (from `weave bench mlp`; 0: no
// such cap), but not every stage misses. One whose mean stall is a fifth of
// a miss alone takes, on average, a fifth of a miss from memory (a binary
// search's top levels hit in cache). Capping every stage at a whole miss put
// binary search's speedup 15%-31% low on an Intel VM, where a fifth of its
// 23 stages went to DRAM.
inline double memory_ns_per_stage(const stage_costs& c, double ns_per_miss) {
  const double share = c.miss_ns > 0 ? std::clamp(c.stall_ns / c.miss_ns, 0.0, 1.0) : 1.0;
  return ns_per_miss * share;
}

// Formula 3.4: the speedup once every stall is hidden. A stage can go no
// faster than the memory system serves its misses (memory_ns_per_stage).
inline double max_speedup(const stage_costs& c, double ns_per_miss = 0) {
  return (c.compute_ns + c.stall_ns) /
         std::max({c.compute_ns + c.switch_ns, memory_ns_per_stage(c, ns_per_miss), 1e-3});
}

// Stage costs from two runs over the same kind of requests: one sequential,
// one interleaved with a group large enough to hide most stalls. Per request
// there are `stages` suspension points. The interleaved run costs
// compute + switch per stage; the sequential run costs compute + stall.
inline stage_costs estimate_stage_costs(double sequential_ns, double interleaved_ns,
                                        double stages, double switch_ns) {
  stage_costs c;
  if (stages <= 0) {
    c.compute_ns = sequential_ns;
    c.switch_ns = switch_ns;
    return c;
  }
  c.switch_ns = switch_ns;
  c.compute_ns = std::max(interleaved_ns / stages - switch_ns, 0.0);
  c.stall_ns = std::max(sequential_ns / stages - c.compute_ns, 0.0);
  return c;
}

}  // namespace weave
