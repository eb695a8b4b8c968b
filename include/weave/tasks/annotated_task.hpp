#pragma once
// A task: a small piece of work that runs to completion on one worker, with
// the annotations the runtime schedules, prefetches and synchronizes by.
//
// A descriptor is two cache lines: the annotations, then the operation's
// own state inline (payload), so that prefetching a task's descriptor
// brings everything it needs but its data object. A task never changes its
// own descriptor while it runs (an optimistic reader may be run again);
// what comes next is a new task it spawns.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "weave/tasks/annotations.hpp"

namespace weave::tasks {

class context;

enum class priority : std::uint8_t { normal, high };

struct alignas(64) annotated_task {
  static constexpr std::size_t bytes = 128;
  static constexpr std::uint16_t anywhere = 0xffff;

  annotated_task* next = nullptr;              // link in a pool's inbox
  data_object* object = nullptr;               // what it reads or writes; null: none
  void (*run)(const annotated_task&, context&) = nullptr;
  std::uint16_t owner = 0;                     // the object's owner (from its object_ref)
  std::uint16_t target = anywhere;             // the worker it asks for, if any
  std::uint16_t object_lines = 0;              // lines of the object worth prefetching
  access mode = access::read;
  sync_kind sync = sync_kind::none;
  priority rank = priority::normal;

  static constexpr std::size_t payload_offset = 40;
  static constexpr std::size_t payload_bytes = bytes - payload_offset;
  alignas(8) std::byte payload[payload_bytes];

  // Back to no annotations (a recycled descriptor keeps its last ones).
  void reset() noexcept {
    next = nullptr;
    object = nullptr;
    run = nullptr;
    owner = 0;
    target = anywhere;
    object_lines = 0;
    mode = access::read;
    sync = sync_kind::none;
    rank = priority::normal;
  }

  // The operation state, a trivially copyable type that fits the payload.
  template <class State>
  State& state() noexcept {
    check<State>();
    return *std::launder(reinterpret_cast<State*>(payload));
  }
  template <class State>
  const State& state() const noexcept {
    check<State>();
    return *std::launder(reinterpret_cast<const State*>(payload));
  }
  template <class State>
  void set_state(const State& s) noexcept {
    check<State>();
    std::memcpy(payload, &s, sizeof s);
  }

  // Points the task at an object: how it accesses it, the synchronization
  // the object is annotated with, and how many of its lines to prefetch.
  template <class Object>
  void annotate(object_ref<Object> ref, access a, sync_kind s, std::uint16_t lines) noexcept {
    annotate(ref.get(), ref.owner(), a, s, lines);
  }
  // The same, with the owner given apart from the object.
  void annotate(data_object* p, std::uint16_t object_owner, access a, sync_kind s, std::uint16_t lines) noexcept {
    object = p;
    owner = object_owner;
    mode = a;
    sync = s;
    object_lines = lines;
  }

 private:
  template <class State>
  static constexpr void check() noexcept {
    static_assert(std::is_trivially_copyable_v<State>, "task state is copied byte by byte");
    static_assert(sizeof(State) <= payload_bytes, "task state too large for a descriptor");
    static_assert(alignof(State) <= 8);
  }
};
static_assert(sizeof(annotated_task) == annotated_task::bytes);
static_assert(offsetof(annotated_task, payload) == annotated_task::payload_offset);

}  // namespace weave::tasks
