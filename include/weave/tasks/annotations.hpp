#pragma once
// What the task runtime knows about the data a task touches.
//
// An object that tasks are annotated with starts with a data_object header:
// its synchronization kind, the worker that owns it (runs its sequenced
// tasks), how often an operation is expected to touch it (for placement),
// and one word that holds its latch or version. Application code never
// latches: the runtime reads the annotations of the task it is about to run
// and applies the synchronization itself.
//
// Whoever links to an object keeps its owner beside the pointer (an
// object_ref), so a task can be routed to its object's pool without reading
// the object: that read is exactly the miss the runtime wants to prefetch.

#include <atomic>
#include <cstdint>

#include "weave/assert.hpp"

namespace weave::tasks {

enum class access : std::uint8_t { read, write };

enum class sync_kind : std::uint8_t {
  none,              // the application guarantees no conflicting tasks
  latch,             // an exclusive spinlock around every task
  rwlatch,           // shared for readers, exclusive for writers
  schedule,          // every task runs on the owner's pool, one after another: no latch
  optimistic,        // writers run on the owner's pool; readers run anywhere and are
                     // re-run when the object's version changed under them
  optimistic_latch,  // readers as under optimistic; writers run anywhere and hold
                     // the version odd as a latch (one that finds it odd is put back)
};

struct data_object {
  // Latch state (latch: 1 = held; rwlatch: bit 0 writer, readers above) or
  // version (optimistic, optimistic_latch: odd while a writer runs).
  std::atomic<std::uint64_t> word{0};
  float frequency = 0;  // expected touches per operation
  std::uint16_t owner = 0;
  sync_kind sync = sync_kind::none;
};

// A pointer to a data object with its owner in the top 16 bits (user-space
// addresses on x86-64 and AArch64 use 48).
template <class Object>
class object_ref {
 public:
  object_ref() = default;
  object_ref(Object* p, std::uint16_t owner) noexcept
      : bits_(reinterpret_cast<std::uintptr_t>(p) | (std::uintptr_t{owner} << 48)) {
    WEAVE_ASSERT(reinterpret_cast<std::uintptr_t>(p) >> 48 == 0);  // no 57-bit or tagged addresses
  }
  explicit object_ref(Object* p) noexcept : object_ref(p, p ? p->owner : 0) {}

  Object* get() const noexcept { return reinterpret_cast<Object*>(bits_ & ((std::uintptr_t{1} << 48) - 1)); }
  Object* operator->() const noexcept { return get(); }
  std::uint16_t owner() const noexcept { return static_cast<std::uint16_t>(bits_ >> 48); }
  explicit operator bool() const noexcept { return bits_ != 0; }
  std::uint64_t raw() const noexcept { return bits_; }
  static object_ref from_raw(std::uint64_t raw) noexcept {
    object_ref r;
    r.bits_ = raw;
    return r;
  }
  friend bool operator==(object_ref, object_ref) = default;

 private:
  std::uintptr_t bits_ = 0;
};

inline const char* to_string(sync_kind s) noexcept {
  switch (s) {
    case sync_kind::none: return "none";
    case sync_kind::latch: return "latch";
    case sync_kind::rwlatch: return "rwlatch";
    case sync_kind::schedule: return "schedule";
    case sync_kind::optimistic: return "optimistic";
    case sync_kind::optimistic_latch:
      return "optimistic-latch";
  }
  return "?";
}

}  // namespace weave::tasks
