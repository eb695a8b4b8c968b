#pragma once
// `weave bench lookup`: every variant over the same structure and lookups,
// repeated, reporting the median time per lookup and the checksum.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <functional>
#include <vector>

#include "bench/lookup/workload.hpp"

namespace weave::bench {

struct lookup_options {
  workload_spec spec;
  std::vector<std::size_t> threads{1};
  std::vector<variant> variants{variant::naive, variant::gp, variant::amac, variant::coro, variant::adaptive};
  std::vector<std::size_t> groups{1, 2, 4, 8, 12, 16, 24, 32};
  bool group_auto = false;  // give gp, amac and coro the model's group size
  bool say_rounding = false;  // on stderr, which of coro's groups ran rounded to whole slots
  std::size_t repeat = 3;
  double ns_per_miss = 0;   // from the MLP probe; 0 leaves the ceiling out
};

struct lookup_row {
  variant v;
  std::size_t group;  // lookups in flight
  std::size_t threads;
  double ns_per_lookup;  // wall time / lookups: one repetition's, or the median over repetitions
  std::uint64_t checksum;
  double stages_per_lookup;  // likely misses waited on (variant_result::stages) per lookup
  bool interleaved;      // for auto: what it chose
  std::size_t repetition = 0;      // 1.. for one repetition's row; 0 for the aggregate
  std::vector<double> ns_samples;  // the aggregate's: every repetition's ns_per_lookup
};

// Throw std::invalid_argument, with a one-line reason, for options that cannot run.
void check_group_sizes(const std::vector<std::size_t>& groups);
// Lookups in flight for a requested group: coro's ring holds whole slots of
// `width` lookups, so a group is rounded up to a multiple of it.
std::size_t in_whole_slots(std::size_t group, std::size_t width);
// The groups asked for as they run (whole slots), each once, in the order
// asked; says on stderr which were rounded, so that a row's group is never
// a surprise and no configuration runs twice under two names.
std::vector<std::size_t> whole_slot_groups(const std::vector<std::size_t>& asked, std::size_t width,
                                           bool say_so);
void validate(const lookup_options& options);
// Whether a variant runs lookups in groups (gp, amac, coro, coro-task).
bool uses_group(variant v);

// The group size the analytical model picks for this workload (from a short calibration).
std::size_t model_group(const lookup_workload& workload);

// Runs every (variant, group, threads) configuration `repeat` times, interleaving
// the configurations inside each repeat so that noise hits them alike;
// `each_repetition` gets each configuration's row as each repetition ends.
// Returns one aggregate row per configuration. Throws std::runtime_error if
// two variants disagree on the checksum.
std::vector<lookup_row> run_lookup_bench(const lookup_options& options, const lookup_workload& workload,
                                         bool verbose,
                                         const std::function<void(const lookup_row&)>& each_repetition = {});

nlohmann::ordered_json to_json(const lookup_options& options, const lookup_workload& workload,
                               const lookup_row& row);

}  // namespace weave::bench
