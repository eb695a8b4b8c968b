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
// version). Free blocks move between threads through the pool's depot, in
// counted batches: a thread whose list of a class grows past a few chunks'
// worth hands the list over, and so does a thread that exits; a thread with
// none takes a batch before it carves a new chunk. So memory freed by one
// thread is reused by the others (recovery makes versions on one thread;
// the engine frees them on another), instead of growing.
// Blocks larger than the largest class fall back to operator new.

#include <algorithm>
#include <cstddef>
#include <limits>
#include <mutex>
#include <new>
#include <vector>

#include "weave/memory/chunk_arena.hpp"
#include "weave/memory/prefetch.hpp"

namespace weave {

template <class Tag>
class block_pool {
 public:
  static constexpr std::size_t granule = 64;
  // Blocks up to 8 KiB are pooled: a TPC-C transaction's frame (New-Order,
  // Payment with its customer row) is larger than 2 KiB, and a malloc of
  // that size took about 700 instructions, twice per transaction.
  static constexpr std::size_t class_count = 128;

  static void* allocate(std::size_t bytes) {
    const std::size_t c = class_of(bytes);
    if (c >= class_count) return ::operator new(bytes);
    if (block* b = free_[c]) {
      free_[c] = b->next;
      --count_[c];
      if constexpr (writes_ahead) {
        if (b->next != nullptr) prepare(b->next, c);
      }
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
    if (++count_[c] >= release_blocks(c)) release(c);
  }

  // Touches `bytes` of memory now (rounded up to whole chunks) for blocks
  // carved later, by any thread (chunk_arena::touched_chunk): a structure that
  // grows while it is used (new records' versions) then pays no page faults
  // as it does. The touching, seconds for gigabytes on a VM, holds no lock.
  static void reserve(std::size_t bytes) {
    if (bytes == 0) return;
    if (bytes > std::numeric_limits<std::size_t>::max() - chunk_bytes) throw std::bad_alloc();
    huge_buffer<std::byte> chunk =
        chunk_arena::touched_chunk((bytes + chunk_bytes - 1) / chunk_bytes * chunk_bytes);
    depot& d = depot::instance();
    std::lock_guard lock(d.mutex);
    d.chunks.adopt(std::move(chunk));
  }

  // Chunks carved so far (for tests: memory that is reused carves none).
  static std::size_t chunks() {
    depot& d = depot::instance();
    std::lock_guard lock(d.mutex);
    return d.carved;
  }
  static std::size_t carved_bytes() { return chunks() * chunk_bytes; }

 private:
  struct block {
    block* next;
  };
  struct batch {
    block* head;
    std::size_t count;
  };
  static constexpr std::size_t chunk_bytes = 64 * 1024;

  static constexpr std::size_t class_of(std::size_t bytes) noexcept { return (bytes - 1) / granule; }

  // A pool whose blocks are written whole as soon as they are taken, to
  // memory last touched long ago (versions: a value is copied into each)
  // says so in its tag (`static constexpr bool write_ahead = true`). The
  // next block of a class is then fetched for writing when one is taken:
  // the copy's stores find their lines in cache, instead of filling the
  // store buffer with misses that stall the next locked instruction. Up to
  // 8 lines.
  static constexpr bool writes_ahead = requires { requires Tag::write_ahead; };
  static void prepare(const block* b, std::size_t c) noexcept {
    detail::prefetch_lines_for_write(b, std::min<std::size_t>(c + 1, 8) * granule);
  }
  // A thread keeps up to four chunks' worth of a class before handing them over.
  static constexpr std::size_t release_blocks(std::size_t c) noexcept {
    return 4 * (chunk_bytes / ((c + 1) * granule));
  }

  // Owns every chunk and the batches of free blocks threads handed over.
  struct depot {
    std::mutex mutex;
    chunk_arena chunks{chunk_bytes};
    std::vector<batch> batches[class_count];
    std::size_t carved = 0;

    static depot& instance() {
      // Never destroyed: blocks of detached threads may outlive static destructors.
      static depot* d = new depot;
      return *d;
    }
  };

  // Hands the thread's free list of class c to the depot, as one batch.
  [[gnu::noinline]] static void release(std::size_t c) noexcept {
    arm();
    hand_over(c);
  }
  static void hand_over(std::size_t c) noexcept {
    if (free_[c] == nullptr) return;
    depot& d = depot::instance();
    {
      std::lock_guard lock(d.mutex);
      try {
        d.batches[c].push_back({free_[c], count_[c]});
      } catch (...) {
        return;  // no memory for the depot's record: the thread keeps its blocks
      }
    }
    free_[c] = nullptr;
    count_[c] = 0;
  }

  // Returns the exiting thread's free blocks to the depot.
  struct thread_exit {
    bool armed = false;
    ~thread_exit() {
      if (!armed) return;
      for (std::size_t c = 0; c < class_count; ++c) hand_over(c);
    }
  };
  // Makes sure the thread's blocks go back to the depot when it exits.
  static void arm() noexcept {
    thread_local thread_exit on_exit;
    on_exit.armed = true;
  }

  // Slow path: take a batch from the depot or carve a new chunk.
  [[gnu::noinline]] static void* refill(std::size_t c) {
    arm();
    depot& d = depot::instance();
    {
      std::lock_guard lock(d.mutex);
      if (!d.batches[c].empty()) {
        const batch b = d.batches[c].back();
        d.batches[c].pop_back();
        free_[c] = b.head;
        count_[c] = b.count;
      } else {
        const std::size_t size = (c + 1) * granule;
        auto* base = static_cast<std::byte*>(d.chunks.allocate(chunk_bytes, alignof(std::max_align_t)));
        ++d.carved;
        for (std::size_t off = 0; off + size <= chunk_bytes; off += size) {
          auto* b = reinterpret_cast<block*>(base + off);
          b->next = free_[c];
          free_[c] = b;
          ++count_[c];
        }
      }
    }
    block* b = free_[c];
    free_[c] = b->next;
    --count_[c];
    return b;
  }

  static inline thread_local constinit block* free_[class_count] = {};
  static inline thread_local constinit std::size_t count_[class_count] = {};
};

}  // namespace weave
