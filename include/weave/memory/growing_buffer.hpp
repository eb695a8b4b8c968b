#pragma once
// A zero-filled array that grows in place. Its whole address range is
// reserved when it is made (no memory, no commit charge: the pages are
// inaccessible) and made usable a chunk at a time as it grows, so elements
// never move: a reader holding an index into the grown part needs no lock,
// and growing costs the hot path nothing. Chunks are 2 MiB, aligned, and
// ask for transparent huge pages, as huge_buffer does.

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <stdexcept>
#include <type_traits>

namespace weave {

template <class T>
class growing_buffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "growing_buffer holds plain data");

 public:
  static constexpr std::size_t chunk_bytes = std::size_t{2} << 20;

  // Room for up to `max_count` elements, none usable yet.
  explicit growing_buffer(std::size_t max_count) {
    if (max_count == 0 || max_count > (std::size_t{1} << 40) / sizeof(T)) {
      throw std::length_error("growing_buffer: a capacity of 1 to 2^40 bytes");
    }
    reserved_ = (max_count * sizeof(T) + chunk_bytes - 1) / chunk_bytes * chunk_bytes;
    // One chunk more, to start at a 2 MiB boundary (huge pages need it).
    void* p = ::mmap(nullptr, reserved_ + chunk_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    mapping_ = static_cast<std::byte*>(p);
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (at + chunk_bytes - 1) & ~(chunk_bytes - 1);
    data_ = reinterpret_cast<T*>(aligned);
    max_count_ = reserved_ / sizeof(T);
  }
  growing_buffer(const growing_buffer&) = delete;
  growing_buffer& operator=(const growing_buffer&) = delete;
  ~growing_buffer() { ::munmap(mapping_, reserved_ + chunk_bytes); }

  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }

  // Elements usable now (a multiple of a chunk's).
  std::size_t size() const noexcept { return usable_.load(std::memory_order_acquire); }
  std::size_t max_size() const noexcept { return max_count_; }

  // Makes the first `count` elements usable (zero-filled), if they are not.
  // Thread-safe; throws std::length_error beyond max_size() and
  // std::bad_alloc if the kernel refuses the memory.
  void grow_to(std::size_t count) {
    if (count <= size()) return;
    if (count > max_count_) throw std::length_error("growing_buffer: beyond its reserved size");
    std::lock_guard<std::mutex> g(mutex_);
    // Bytes, not elements: a chunk need not hold whole elements.
    const std::size_t have = mapped_;
    if (count * sizeof(T) <= have) return;
    // At least double (fewer calls while a table loads), whole chunks.
    std::size_t want = std::max(count * sizeof(T), 2 * have);
    want = std::min((want + chunk_bytes - 1) / chunk_bytes * chunk_bytes, reserved_);
    auto* from = reinterpret_cast<std::byte*>(data_) + have;
    if (::mprotect(from, want - have, PROT_READ | PROT_WRITE) != 0) throw std::bad_alloc();
    ::madvise(from, want - have, MADV_HUGEPAGE);
    mapped_ = want;
    usable_.store(want / sizeof(T), std::memory_order_release);
  }

 private:
  std::byte* mapping_ = nullptr;
  T* data_ = nullptr;
  std::size_t reserved_ = 0;  // bytes from data_
  std::size_t max_count_ = 0;
  std::atomic<std::size_t> usable_{0};
  std::size_t mapped_ = 0;  // bytes made usable (under mutex_)
  std::mutex mutex_;
};

}  // namespace weave
