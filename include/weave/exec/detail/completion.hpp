#pragma once
// What schedulers share about a request's task: its type, and an owner that
// destroys a released frame however the caller leaves.

#include <coroutine>
#include <cstddef>
#include <type_traits>

#include "weave/exec/task.hpp"

namespace weave::detail {

template <class Make, class Policy>
using task_of = std::invoke_result_t<Make&, Policy, std::size_t>;

template <class Handle>
struct frame_owner {
  Handle handle;
  explicit frame_owner(Handle h) noexcept : handle(h) {}
  frame_owner(const frame_owner&) = delete;
  frame_owner& operator=(const frame_owner&) = delete;
  ~frame_owner() { handle.destroy(); }
};

}  // namespace weave::detail
