#pragma once
// Runs one task to completion on the calling thread, resuming it each time it
// suspends. For tests, tools and one-off calls; not for throughput.

#include <utility>

#include "weave/exec/detail/completion.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/task.hpp"

namespace weave {

template <class T>
T sync_wait(task<T> t) {
  auto root = t.release();
  detail::frame_owner<typename task<T>::handle_type> owner{root};
  root.resume();
  while (!root.done()) detail::take_resume_point().resume();
  if constexpr (std::is_void_v<T>) {
    root.promise().result();
  } else if constexpr (std::is_reference_v<T>) {
    return root.promise().result();
  } else {
    return std::move(root.promise()).result();
  }
}

}  // namespace weave
