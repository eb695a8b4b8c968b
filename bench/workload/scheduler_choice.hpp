#pragma once
// Which scheduler runs the interleaved modes of the transaction benchmarks:
// strict batches (a batch's transactions start together and the next batch
// waits for all of them) or the pipeline (a finished transaction's slot takes
// the next one at once). `--scheduler batch,pipeline` runs both in one
// process, so that the two can be compared without the drift between
// processes.

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace weave::bench {

enum class scheduler_choice { batch, pipeline };

// The name in the JSON lines' "scheduler" field and on the command line.
constexpr std::string_view scheduler_name(scheduler_choice s) {
  return s == scheduler_choice::pipeline ? "pipeline" : "batch";
}

inline bool runs_pipeline(const std::vector<scheduler_choice>& list) {
  return std::find(list.begin(), list.end(), scheduler_choice::pipeline) != list.end();
}

// One or both, each once: a scheduler named twice would run its
// configurations twice.
inline void check_schedulers(const std::vector<scheduler_choice>& list) {
  if (list.empty()) throw std::invalid_argument("nothing to run: no scheduler");
  for (auto s = list.begin(); s != list.end(); ++s) {
    if (std::find(list.begin(), s, *s) != s) {
      throw std::invalid_argument(fmt::format("--scheduler: '{}' is named twice", scheduler_name(*s)));
    }
  }
}

}  // namespace weave::bench
