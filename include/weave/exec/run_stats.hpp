#pragma once
#include <cstddef>
#include <stdexcept>

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

namespace detail {

// A scheduler runs the requests [first, last): first past last is a
// caller's mistake, not an empty run (it would count toward 2^64).
inline void check_range(std::size_t first, std::size_t last) {
  if (first > last) throw std::invalid_argument("a scheduler runs requests [first, last): first is past last");
}

}  // namespace detail

}  // namespace weave
