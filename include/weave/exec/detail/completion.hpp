#pragma once
// What every scheduler does with a request: make its task, and hand the
// finished task's result to the sink before the frame goes back to the pool.

#include <coroutine>
#include <cstddef>
#include <type_traits>
#include <utility>

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

// Passes request `index`'s result to the sink; void tasks give sink(index).
template <class Handle, class Sink>
void deliver(Handle finished, std::size_t index, Sink& sink) {
  frame_owner<Handle> owner{finished};
  auto& promise = finished.promise();
  using result_t = decltype(promise.result());
  if constexpr (std::is_void_v<result_t>) {
    promise.result();
    sink(index);
  } else {
    sink(index, std::move(promise).result());
  }
}

}  // namespace weave::detail
