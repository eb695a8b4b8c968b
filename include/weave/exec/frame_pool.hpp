#pragma once
// Recycles coroutine frames so that starting an operation costs a few
// instructions instead of a malloc.
//
// Frames are rounded up to 64-byte size classes. Each thread keeps one free
// list per class; a frame freed on another thread simply joins that thread's
// list. Blocks are carved from 64 KiB chunks that live until the process ends,
// and a thread that exits hands its free blocks to a shared depot, so threads
// that come and go (one per benchmark repeat) reuse memory instead of growing.
// Frames larger than the largest class fall back to operator new.

#include <cstddef>

namespace weave::detail {

class frame_pool {
 public:
  static constexpr std::size_t granule = 64;
  static constexpr std::size_t class_count = 32;  // frames up to 2 KiB are pooled

  static void* allocate(std::size_t bytes) {
    const std::size_t c = class_of(bytes);
    if (c >= class_count) return ::operator new(bytes);
    if (block* b = free_[c]) {
      free_[c] = b->next;
      return b;
    }
    return refill(c);
  }

  static void deallocate(void* p, std::size_t bytes) noexcept {
    const std::size_t c = class_of(bytes);
    if (c >= class_count) {
      ::operator delete(p);
      return;
    }
    auto* b = static_cast<block*>(p);
    b->next = free_[c];
    free_[c] = b;
  }

 private:
  struct block {
    block* next;
  };

  static constexpr std::size_t class_of(std::size_t bytes) noexcept {
    return (bytes - 1) / granule;
  }

  // Slow path: take blocks from the depot or carve a new chunk.
  static void* refill(std::size_t c);

  friend struct frame_pool_thread_exit;
  static inline thread_local constinit block* free_[class_count] = {};
};

}  // namespace weave::detail
