#pragma once
#include <cstddef>

namespace weave {

// What a scheduler observed while running a range of requests.
struct run_stats {
  std::size_t requests = 0;
  std::size_t suspensions = 0;  // resumptions that did not finish a request

  run_stats& operator+=(const run_stats& o) noexcept {
    requests += o.requests;
    suspensions += o.suspensions;
    return *this;
  }
};

}  // namespace weave
