#pragma once
// Thread-local free lists of small blocks, so that allocating one costs a
// few instructions instead of a malloc. Each user names its own pool with a
// tag type (coroutine frames, record versions): pools share no lists, so one
// kind of block never fragments another's.
//
// Blocks are rounded up to 64-byte size classes. Each thread keeps one free
// list per class; a block freed on another thread simply joins that thread's
// list. Blocks are carved from 64 KiB chunks that live until the process
// ends (from an arena that turns to huge pages as it grows: a table of
// gigabytes of versions read at random should not pay a page walk per
// version), and a thread that exits hands its free blocks to the pool's
// depot, so threads that come and go reuse memory instead of growing it.
// Blocks larger than the largest class fall back to operator new.

#include <cstddef>
#include <mutex>
#include <new>

#include "weave/memory/chunk_arena.hpp"

namespace weave {

template <class Tag>
class block_pool {
 public:
  static constexpr std::size_t granule = 64;
  static constexpr std::size_t class_count = 32;  // blocks up to 2 KiB are pooled

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
  static constexpr std::size_t chunk_bytes = 64 * 1024;

  static constexpr std::size_t class_of(std::size_t bytes) noexcept { return (bytes - 1) / granule; }

  // Owns every chunk and the blocks that exited threads left behind.
  struct depot {
    std::mutex mutex;
    chunk_arena chunks{chunk_bytes};
    block* lists[class_count] = {};

    static depot& instance() {
      // Never destroyed: blocks of detached threads may outlive static destructors.
      static depot* d = new depot;
      return *d;
    }
  };

  // Returns the exiting thread's free blocks to the depot.
  struct thread_exit {
    bool armed = false;
    ~thread_exit() {
      if (!armed) return;
      depot& d = depot::instance();
      std::lock_guard lock(d.mutex);
      for (std::size_t c = 0; c < class_count; ++c) {
        block* list = free_[c];
        if (list == nullptr) continue;
        block* tail = list;
        while (tail->next != nullptr) tail = tail->next;
        tail->next = d.lists[c];
        d.lists[c] = list;
        free_[c] = nullptr;
      }
    }
  };

  // Slow path: take the depot's blocks of the class or carve a new chunk.
  [[gnu::noinline]] static void* refill(std::size_t c) {
    thread_local thread_exit on_exit;
    on_exit.armed = true;
    depot& d = depot::instance();
    {
      std::lock_guard lock(d.mutex);
      if (d.lists[c] != nullptr) {
        free_[c] = d.lists[c];
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
    }
    block* b = free_[c];
    free_[c] = b->next;
    return b;
  }

  static inline thread_local constinit block* free_[class_count] = {};
};

}  // namespace weave
