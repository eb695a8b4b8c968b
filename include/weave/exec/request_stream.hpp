#pragma once
// Operations over a stream of requests: the flattened hot path.
//
// A request run as a task of its own pays for a frame, a ramp, a transfer in
// and out, and the hand-over of its result through the promise: about as many
// instructions as a hash probe itself. An operation written over a request
// stream loops instead: it takes a request, runs it to its result, delivers
// the result and takes the next, all in one frame. A scheduler keeps one such
// loop per slot, and a suspension resumes straight into the operation: one
// level of coroutine, as in CoroBase's flattened design.
//
// The same source serves a single request. one_request<A, R> is a stream of
// one request whose finish() returns the result, so an operation declared as
//
//   template <execution_policy Policy, request_stream<std::uint64_t, R> Requests>
//   typename Requests::task_type find(const hash_table&, Requests requests) {
//     while (requests.next()) {
//       ... requests.argument() ... co_await load<Policy>(...) ...
//       requests.deliver(result);
//     }
//     co_return requests.finish();
//   }
//
// is a task<R> for one key (to await inside another operation) and a
// task<void> for a scheduler's slot. A scheduler runs it over requests
// [first, last) when given streamed(operation, argument_of):
//
//   scheduler.run(n, weave::streamed([&](auto policy, auto requests) {
//                   return find<decltype(policy)>(table, requests); },
//                 [&](std::size_t i) { return keys[i]; }), sink);
//
// streamed<N>(...) says that a slot takes N requests at a time (an
// operation that runs a request_batch of N), so that a ring makes no more
// slots than a short run fills.

#include <array>
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "weave/exec/task.hpp"

namespace weave {

// What an operation may ask of the stream it runs over: take the next request
// (false when there is none), read its argument, deliver its result, and end
// (co_return finish()). Result void means deliver() takes nothing.
template <class S, class Argument, class Result>
concept request_stream = requires(S s) {
  typename S::task_type;
  { s.next() } -> std::same_as<bool>;
  { s.argument() } -> std::convertible_to<Argument>;
  s.finish();
} && (std::is_void_v<Result> ? requires(S s) { s.deliver(); }
                             : requires(S s) { s.deliver(std::declval<Result>()); });

// A stream an operation may take several requests from before it delivers
// them (a binary search advances a few in lockstep): ticket(), read right
// after next(), names the request taken, and deliver_to(ticket, result)
// delivers its result in any order. A stream of one request has no tickets:
// an operation then takes one request at a time.
template <class S, class Argument, class Result>
concept ticketed_request_stream = request_stream<S, Argument, Result> && requires(S s) {
  { s.ticket() } -> std::same_as<std::size_t>;
} && (std::is_void_v<Result> ? requires(S s, std::size_t t) { s.deliver_to(t); }
                             : requires(S s, std::size_t t) { s.deliver_to(t, std::declval<Result>()); });

// Up to Width requests of a stream, taken together by an operation that
// runs them in lockstep (Width above 1 needs a ticketed_request_stream).
// take() fills as many places as the stream has requests and repeats the
// first argument in the rest, so the lockstep needs no test for them;
// deliver(requests, j, result) answers place j, which must hold a request
// (j < size()).
template <std::size_t Width, class Argument, class Requests>
class request_batch {
  static_assert(Width >= 1);

 public:
  // False when the stream had no request left.
  bool take(Requests& requests) {
    taken_ = 0;
    while (taken_ < Width && requests.next()) {
      argument_[taken_] = requests.argument();
      if constexpr (Width > 1) ticket_[taken_] = requests.ticket();
      ++taken_;
    }
    for (std::size_t j = taken_; j > 0 && j < Width; ++j) argument_[j] = argument_[0];
    return taken_ > 0;
  }
  std::size_t size() const noexcept { return taken_; }
  const Argument& operator[](std::size_t j) const noexcept { return argument_[j]; }

  template <class... Result>
  void deliver(Requests& requests, std::size_t j, Result&&... result) {
    if constexpr (Width > 1) {
      requests.deliver_to(ticket_[j], std::forward<Result>(result)...);
    } else {
      requests.deliver(std::forward<Result>(result)...);
    }
  }

 private:
  std::array<Argument, Width> argument_{};
  std::array<std::size_t, Width> ticket_{};
  std::size_t taken_ = 0;
};

// A stream of one request, for awaiting an operation on one argument. The
// result is a value (default-constructible, it starts out as R{}), which the
// operation delivers before it finishes.
template <class Argument, class Result>
class one_request {
 public:
  using task_type = task<Result>;

  explicit one_request(Argument argument) : argument_(std::move(argument)) {}

  bool next() noexcept { return std::exchange(pending_, false); }
  const Argument& argument() const noexcept { return argument_; }
  void deliver(Result result) { result_ = std::move(result); }
  Result finish() { return std::move(result_); }

 private:
  Argument argument_;
  Result result_{};
  bool pending_ = true;
};

template <class Argument>
class one_request<Argument, void> {
 public:
  using task_type = task<void>;

  explicit one_request(Argument argument) : argument_(std::move(argument)) {}

  bool next() noexcept { return std::exchange(pending_, false); }
  const Argument& argument() const noexcept { return argument_; }
  void deliver() const noexcept {}
  void finish() const noexcept {}

 private:
  Argument argument_;
  bool pending_ = true;
};

// An operation over request streams and the argument of request i, for a
// scheduler to run: operation(policy, requests) returns the task of one slot.
// RequestsPerSlot is how many requests a slot takes at a time when it
// interleaves (the width of its request_batch): a ring makes no more slots
// than a run's requests fill, so a 10-column row at 16 slots of four
// columns makes three frames, not ten of which seven end at once.
template <class Operation, class ArgumentOf, std::size_t RequestsPerSlot = 1>
struct streamed_operation {
  static_assert(RequestsPerSlot >= 1);
  static constexpr std::size_t requests_per_slot = RequestsPerSlot;
  Operation operation;
  ArgumentOf argument_of;
};

template <std::size_t RequestsPerSlot = 1, class Operation, class ArgumentOf>
streamed_operation<Operation, ArgumentOf, RequestsPerSlot> streamed(Operation operation,
                                                                    ArgumentOf argument_of) {
  return {std::move(operation), std::move(argument_of)};
}

// Whether a scheduler runs streamed operations. One that times each request
// on its own (latency_target_scheduler) does not; an operation that has a
// streamed form then gives it one task per request instead.
template <class Scheduler>
inline constexpr bool runs_streamed = true;

namespace detail {

template <class T>
inline constexpr bool is_streamed = false;
template <class Operation, class ArgumentOf, std::size_t RequestsPerSlot>
inline constexpr bool is_streamed<streamed_operation<Operation, ArgumentOf, RequestsPerSlot>> = true;

// The requests [next, last) that the slots of one run share.
template <class Streamed, class Sink>
struct shared_requests {
  Streamed& streamed;
  Sink& sink;
  std::size_t next;
  std::size_t last;
};

// One slot's view of the shared requests: each next() takes the first one
// left, and deliver() hands its result to the sink under its index
// (deliver_to() under the index of an earlier one). It keeps its own
// pointers to what it uses on every request, so that reaching them is one
// load from the frame rather than a chain through `shared`. A slot lives
// within one batch, so it may keep the batch's end too.
template <class Shared>
class slot_requests {
 public:
  using task_type = task<void>;

  explicit slot_requests(Shared& shared) noexcept
      : next_(&shared.next), last_(shared.last), argument_of_(&shared.streamed.argument_of), sink_(&shared.sink) {}

  bool next() noexcept {
    if (*next_ == last_) return false;
    current_ = (*next_)++;
    return true;
  }
  decltype(auto) argument() const { return (*argument_of_)(current_); }
  template <class... Result>
  void deliver(Result&&... result) {
    (*sink_)(current_, std::forward<Result>(result)...);
  }
  // The request's index is its ticket.
  std::size_t ticket() const noexcept { return current_; }
  template <class... Result>
  void deliver_to(std::size_t ticket, Result&&... result) {
    (*sink_)(ticket, std::forward<Result>(result)...);
  }
  void finish() const noexcept {}

 private:
  std::size_t* next_;
  std::size_t last_;
  decltype(&std::declval<Shared&>().streamed.argument_of) argument_of_;
  decltype(&std::declval<Shared&>().sink) sink_;
  std::size_t current_ = 0;
};

// The task of one slot that runs requests of `shared` under Policy.
template <class Policy, class Shared>
auto slot_task(Shared& shared) {
  return shared.streamed.operation(Policy{}, slot_requests<Shared>{shared});
}

}  // namespace detail
}  // namespace weave
