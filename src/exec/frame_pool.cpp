#include "weave/exec/frame_pool.hpp"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "weave/memory/chunk_arena.hpp"

namespace weave::detail {
namespace {

constexpr std::size_t chunk_bytes = 64 * 1024;

// Owns every chunk and the blocks that exited threads left behind. Chunks
// come from an arena that turns to huge pages as it grows: record versions
// live here too, and a table of gigabytes read at random should not pay a
// page walk per version.
struct depot {
  std::mutex mutex;
  chunk_arena chunks{chunk_bytes};
  void* lists[frame_pool::class_count] = {};

  static depot& instance() {
    // Never destroyed: frames of detached threads may outlive static destructors.
    static depot* d = new depot;
    return *d;
  }
};

}  // namespace

// Returns the exiting thread's free blocks to the depot.
struct frame_pool_thread_exit {
  bool armed = false;
  ~frame_pool_thread_exit() {
    if (!armed) return;
    depot& d = depot::instance();
    std::lock_guard lock(d.mutex);
    for (std::size_t c = 0; c < frame_pool::class_count; ++c) {
      frame_pool::block* list = frame_pool::free_[c];
      if (list == nullptr) continue;
      frame_pool::block* tail = list;
      while (tail->next != nullptr) tail = tail->next;
      tail->next = static_cast<frame_pool::block*>(d.lists[c]);
      d.lists[c] = list;
      frame_pool::free_[c] = nullptr;
    }
  }
};

void* frame_pool::refill(std::size_t c) {
  thread_local frame_pool_thread_exit on_exit;
  on_exit.armed = true;

  depot& d = depot::instance();
  std::lock_guard lock(d.mutex);
  if (d.lists[c] != nullptr) {
    free_[c] = static_cast<block*>(d.lists[c]);
    d.lists[c] = nullptr;
  } else {
    const std::size_t size = (c + 1) * granule;
    auto* base = static_cast<std::byte*>(d.chunks.allocate(chunk_bytes, alignof(std::max_align_t)));
    for (std::size_t off = 0; off + size <= chunk_bytes; off += size) {
      auto* b = reinterpret_cast<block*>(base + off);
      b->next = free_[c];
      free_[c] = b;
    }
  }
  block* b = free_[c];
  free_[c] = b->next;
  return b;
}

}  // namespace weave::detail
