#pragma once
// The resume loop shared by the interleaved and batched schedulers.
//
// Each of up to `group` slots runs one long-lived coroutine that takes the
// next request, runs it to its result, hands that to the sink and takes the
// next. A run gets no more slots than its requests fill: a streamed operation
// whose slots take N requests at a time (streamed<N>) gets one slot per N.
// For a streamed operation (request_stream.hpp) that coroutine is the
// operation itself, looping over requests in one frame. For one task per
// request it is a driver that awaits each request's task: finishing a
// request and starting the next is then a pair of symmetric transfers inside
// the slot. Either way the new request runs to its first miss (and issues
// that prefetch) before control comes back here, and the loop below only
// ever resumes whatever frame of a slot suspended last.
//
// With `refill` the slots share the whole range, so a finished request's
// slot takes the next one at once. Without it (strict batches) each batch of
// `group` requests gets fresh slots, and the next batch starts only when all
// have finished.
//
// An operation that parks (park.hpp: a commit waiting for the disk) leaves
// the ring: its slot takes the next request at once, and the parked frame is
// resumed once its counter is there, which is checked once per pass over the
// ring. A resumed frame that suspends again on memory joins the ring, which
// then runs one slot too many until a driver sees `excess` and retires.
//
// The loop makes no heap allocation and no indirect call besides resume(),
// except for the list of parked frames and the slot arrays of a ring run
// inside a request of another (ring_slots): once a thread and depth for the
// first four depths, and each run deeper than that or at thread exit.

#include <array>
#include <coroutine>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#include "weave/assert.hpp"
#include "weave/exec/detail/completion.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/park.hpp"
#include "weave/exec/policy.hpp"
#include "weave/exec/request_stream.hpp"
#include "weave/exec/run_stats.hpp"
#include "weave/exec/task.hpp"

namespace weave::detail {

inline constexpr std::size_t max_group = 256;

// The requests the drivers of one ring take from.
template <class Make, class Sink>
struct request_queue {
  Make& make;
  Sink& sink;
  std::size_t next;
  std::size_t last;
  std::size_t yields = 0;  // returns to the ring that were not suspensions of a request
  std::size_t excess = 0;  // slots to retire: parked frames came back to the ring
};

// Hands control back to the ring: resumed like a suspended request.
struct yield_to_ring : suspend_to_scheduler {
  bool await_ready() const noexcept { return false; }
  void await_resume() const noexcept {}
};

// Requests a driver runs between two returns to the ring. Requests that never
// suspend chain through symmetric transfers; compiled as tail calls they take
// no stack, but where they are not (sanitizer builds) the chain would grow
// the native stack without bound. (A streamed operation needs no such turn:
// its requests follow each other inside its own loop, with no transfer
// between them.)
inline constexpr std::size_t requests_per_turn = 64;

// The slot of a ring that runs one task per request.
template <class Policy, class Make, class Sink>
task<void> drive(request_queue<Make, Sink>& queue) {
  for (std::size_t done = 1; queue.next < queue.last; ++done) {
    if (queue.excess > 0) {
      --queue.excess;
      co_return;
    }
    const std::size_t i = queue.next++;
    if constexpr (std::is_void_v<typename task_of<Make, Policy>::value_type>) {
      co_await queue.make(Policy{}, i);
      queue.sink(i);
    } else {
      queue.sink(i, co_await queue.make(Policy{}, i));
    }
    // Other slots may take the last requests meanwhile: the loop re-checks.
    if (done % requests_per_turn == 0) {
      ++queue.yields;
      co_await yield_to_ring{};
    }
  }
}

// The slots of a ring and the frame each resumes next. A ring runs per call
// of a scheduler's run(), which may be one per query (fetch_row runs one over
// a row's columns), and zeroing and destroying arrays of 2 * max_group
// entries cost more than a run of a few requests (callgrind: 155 of 362
// instructions a column on a 100-column row). So each thread keeps the
// arrays of its rings and empties only the slots a run used. A ring started
// inside a running one (a request that runs a scheduler itself, as
// multi_get does inside an interleaved transaction) takes the next arrays
// of its thread's stack of kept ones, made the first time that depth is
// reached: 8 KiB made, zeroed and freed per nested run cost more than the
// few lookups it interleaves.
class ring_slots {
 public:
  static constexpr std::size_t capacity = 2 * max_group;
  // Depths whose arrays a thread keeps; deeper rings make their own.
  static constexpr std::size_t kept_depths = 4;

  // The depth counts this ring only once it has its arrays: a bad_alloc
  // here leaves the thread's depth as it was.
  ring_slots() {
    kept& k = thread_kept();
    const std::size_t depth = k.depth;
    if (depth == 0) {
      arrays_ = &thread_arrays();
    } else if (depth <= kept_depths && !k.closed) {
      arrays*& at = k.nested[depth - 1];
      if (at == nullptr) {
        static thread_local const janitor clean_up_at_exit;
        static_cast<void>(clean_up_at_exit);
        at = new arrays();
        ++k.made;
      }
      arrays_ = at;
    } else {
      owned_ = std::make_unique<arrays>();
      arrays_ = owned_.get();
      ++k.made;
    }
    ++k.depth;
  }
  ring_slots(const ring_slots&) = delete;
  ring_slots& operator=(const ring_slots&) = delete;
  // Destroys the frames still held (finished ones, or every one after a throw).
  ~ring_slots() {
    for (std::size_t k = 0; k < used_; ++k) arrays_->slots[k] = task<void>{};
    --thread_kept().depth;
  }

  task<void>* slots() noexcept { return arrays_->slots.data(); }
  std::coroutine_handle<>* leaves() noexcept { return arrays_->leaves.data(); }
  // Slots [0, live) may hold frames from now on.
  void use(std::size_t live) noexcept { used_ = live > used_ ? live : used_; }

  // Arrays this thread has made for rings inside rings (for tests).
  static std::size_t nested_arrays_made() noexcept { return thread_kept().made; }

 private:
  struct arrays {
    std::array<task<void>, capacity> slots;
    std::array<std::coroutine_handle<>, capacity> leaves;
  };
  // Never destroyed: every run leaves its slots empty, and a ring run from
  // another thread_local's destructor at thread exit must not find them gone.
  union kept_arrays {
    kept_arrays() : held() {}
    ~kept_arrays() {}
    arrays held;
  };
  static arrays& thread_arrays() {
    thread_local kept_arrays kept;
    return kept.held;
  }
  // Trivially destructible for the same reason; the janitor frees the
  // nested arrays at thread exit, after which every nested ring makes its
  // own.
  struct kept {
    std::size_t depth;
    std::size_t made;
    bool closed;
    arrays* nested[kept_depths];
  };
  static kept& thread_kept() noexcept {
    thread_local constinit kept k{};
    return k;
  }
  struct janitor {
    ~janitor() {
      kept& k = thread_kept();
      k.closed = true;
      // No ring runs while it does: a thread's thread_locals go one at a
      // time, and this one runs none.
      for (arrays*& a : k.nested) {
        delete a;
        a = nullptr;
      }
    }
  };

  arrays* arrays_;
  std::unique_ptr<arrays> owned_;
  std::size_t used_ = 0;
};

// Resumes slot tasks round-robin until every request of [first, last) has
// run. Before each batch `set_end(end)` tells the slots where it ends, and
// `new_slot()` makes the task of each of its slots. A slot that throws ends
// the run: the exception reaches the caller, and the slots' frames (with
// every frame they await) are destroyed. Returns the resumptions that did
// not finish a slot. `excess` (null: slots never retire early) counts the
// slots that must retire because parked frames came back. A slot takes
// `per_slot` requests at a time, so a batch gets no more slots than that
// fills. With `refill`, `group` counts slots (up to group * per_slot
// requests in flight); without it, a strict batch is still `group` requests,
// run by group / per_slot slots.
template <class SetEnd, class NewSlot>
std::size_t run_slots(std::size_t group, bool refill, std::size_t first, std::size_t last, SetEnd set_end,
                      NewSlot new_slot, std::size_t* excess = nullptr, std::size_t per_slot = 1) {
  WEAVE_ASSERT(group >= 1 && group <= max_group && per_slot >= 1);
  // Room for frames that come back from parking while the ring is full.
  constexpr std::size_t capacity = ring_slots::capacity;
  ring_slots ring;
  task<void>* const slots = ring.slots();
  std::coroutine_handle<>* const leaves = ring.leaves();
  std::size_t resumes = 0;
  std::size_t finished = 0;
  struct parked_slot {
    task<void> slot;
    std::coroutine_handle<> leaf;
    park_request wait;
  };
  std::vector<parked_slot> parked;  // [oldest, size) wait
  std::size_t oldest = 0;
  std::size_t live = 0;
  parked_request_reset();

  // Takes the frame just suspended out of slot k if it parked; true if so.
  const auto park = [&](std::size_t k) {
    if (parked_request_empty()) [[likely]] return false;
    parked.push_back({std::move(slots[k]), leaves[k], take_park_request()});
    return true;
  };
  // Resumes the parked frames whose counters are there, oldest first, while
  // the ring has room. A worker's commits park in timestamp order, so the
  // first frame not ready ends the look: the check costs one load while
  // nothing is ready. Each resumed frame is asked to retire once its request
  // is done (one that waits on memory again joins the ring, and another slot
  // retires instead).
  const auto wake = [&] {
    while (oldest < parked.size() && live < capacity && parked[oldest].wait.ready()) {
      parked_slot s = std::move(parked[oldest++]);
      if (excess != nullptr) ++*excess;
      s.leaf.resume();
      ++resumes;
      if (s.slot.done()) {
        ++finished;
        s.slot.handle().promise().result();
        continue;
      }
      s.leaf = take_resume_point();
      if (!parked_request_empty()) {
        s.wait = take_park_request();
        parked.push_back(std::move(s));
        continue;
      }
      slots[live] = std::move(s.slot);
      leaves[live] = s.leaf;
      ring.use(++live);
    }
    if (oldest == parked.size()) {
      parked.clear();
      oldest = 0;
    } else if (oldest > 1024 && oldest * 2 > parked.size()) {
      parked.erase(parked.begin(), parked.begin() + static_cast<std::ptrdiff_t>(oldest));
      oldest = 0;
    }
  };
  const auto any_parked = [&] { return oldest < parked.size(); };

  const std::size_t batch = refill ? last - first : group;
  for (std::size_t begin = first; begin < last; begin += batch) {
    const std::size_t end = begin + std::min(batch, last - begin);
    set_end(end);
    if (excess != nullptr) *excess = 0;
    live = std::min(group, (end - begin - 1) / per_slot + 1);
    ring.use(live);
    for (std::size_t k = 0; k < live; ++k) {
      slots[k] = new_slot();
      leaves[k] = slots[k].handle();
    }
    for (std::size_t k = 0; live > 0;) {
      leaves[k].resume();
      ++resumes;
      if (!slots[k].done()) {
        leaves[k] = take_resume_point();
        if (!park(k)) [[likely]] {
          if (++k == live) {
            k = 0;
            if (any_parked()) wake();
          }
          continue;
        }
        // The parked frame's slot takes the next request.
        slots[k] = new_slot();
        leaves[k] = slots[k].handle();
        continue;
      }
      // The slot ran out of requests, or failed: it leaves the ring.
      ++finished;
      slots[k].handle().promise().result();  // rethrows what the slot threw
      --live;
      slots[k] = std::move(slots[live]);
      leaves[k] = leaves[live];
      if (k == live) {
        k = 0;
        if (any_parked()) wake();
      }
    }
  }
  // Every request has run; the parked ones wait for their counters.
  while (any_parked()) {
    wake();
    for (std::size_t k = 0; live > 0;) {  // frames that came back and wait on memory
      leaves[k].resume();
      ++resumes;
      if (!slots[k].done()) {
        leaves[k] = take_resume_point();
        if (park(k)) {
          --live;
          slots[k] = std::move(slots[live]);
          leaves[k] = leaves[live];
          if (k == live) k = 0;
          continue;
        }
        k = k + 1 < live ? k + 1 : 0;
        continue;
      }
      ++finished;
      slots[k].handle().promise().result();
      --live;
      slots[k] = std::move(slots[live]);
      leaves[k] = leaves[live];
      if (k == live) k = 0;
    }
    if (any_parked()) {
      parked[oldest].wait.ask_to_hurry();  // else the wait lasts out the window
      std::this_thread::yield();
    }
  }
  return resumes - finished;
}

template <class Policy, class Make, class Sink>
run_stats run_ring(std::size_t group, bool refill, std::size_t first, std::size_t last,
                   Make& make, Sink& sink) {
  check_range(first, last);
  run_stats stats;
  stats.requests = last - first;
  if constexpr (is_streamed<std::remove_const_t<Make>>) {
    // Each slot is a task of the operation itself, looping over requests.
    shared_requests<Make, Sink> shared{make, sink, first, first};
    stats.suspensions = run_slots(
        group, refill, first, last, [&](std::size_t end) { shared.last = end; },
        [&] { return slot_task<Policy>(shared); }, nullptr, std::remove_const_t<Make>::requests_per_slot);
  } else {
    request_queue<Make, Sink> queue{make, sink, first, first};
    stats.suspensions = run_slots(
        group, refill, first, last, [&](std::size_t end) { queue.last = end; },
        [&] { return drive<Policy>(queue); }, &queue.excess);
    stats.suspensions -= queue.yields;
  }
  return stats;
}

// Requests to run before a controller that decides per window of finished
// requests (latency_target_scheduler, txn::contention_scheduler) decides
// again: the rest of its window, in whole batches unless the ring refills
// (a short last batch would hide fewer misses), but no more than `left`.
inline std::size_t requests_for_window(std::size_t wanted, std::size_t group, bool refill, std::size_t left) {
  std::size_t n = wanted > group ? wanted : group;
  if (!refill) n = (n + group - 1) / group * group;
  return n < left ? n : left;
}

// The scheduler class over run_ring; interleaved_scheduler and
// batched_scheduler name its two modes.
template <bool Refill>
class ring_scheduler {
 public:
  static constexpr std::size_t max_group = detail::max_group;

  explicit ring_scheduler(std::size_t group) : group_(group) {
    if (group < 1 || group > max_group) throw std::invalid_argument("group size must be between 1 and 256");
  }

  std::size_t group() const noexcept { return group_; }

  template <class Make, class Sink>
  run_stats run(std::size_t first, std::size_t last, Make&& make, Sink&& sink) const {
    return run_ring<interleaved_policy>(group_, Refill, first, last, make, sink);
  }

  template <class Make, class Sink>
  run_stats run(std::size_t count, Make&& make, Sink&& sink) const {
    return run(0, count, make, sink);
  }

 private:
  std::size_t group_;
};

}  // namespace weave::detail
