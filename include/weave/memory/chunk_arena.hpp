#pragma once
// Bump allocation from chunks mapped straight from the kernel. Chunks grow
// geometrically, so a small structure stays small, and from 4 MiB on they
// ask for transparent huge pages: a structure of gigabytes that is read at
// random (index nodes, record versions) then costs a cache miss per access
// but rarely a page walk. Memory is returned only when the arena goes.
// Not thread-safe: owners lock around it.

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace weave {

class chunk_arena {
 public:
  static constexpr std::size_t huge_from = std::size_t{4} << 20;

  explicit chunk_arena(std::size_t first_chunk = 64 << 10, std::size_t largest_chunk = std::size_t{64} << 20) noexcept
      : next_chunk_(first_chunk), largest_chunk_(largest_chunk) {}
  chunk_arena(const chunk_arena&) = delete;
  chunk_arena& operator=(const chunk_arena&) = delete;
  ~chunk_arena() {
    for (const auto& [p, bytes] : chunks_) ::munmap(p, bytes);
  }

  // `bytes` at an address aligned to `align` (a power of two up to 4096).
  void* allocate(std::size_t bytes, std::size_t align) {
    std::size_t at = (used_ + align - 1) & ~(align - 1);
    if (chunks_.empty() || at + bytes > chunks_.back().second) {
      map_chunk(bytes);
      at = 0;
    }
    used_ = at + bytes;
    total_ += bytes;
    return static_cast<std::byte*>(chunks_.back().first) + at;
  }

  // Bytes handed out so far.
  std::size_t bytes() const noexcept { return total_; }

 private:
  void map_chunk(std::size_t at_least) {
    const std::size_t bytes = std::max(next_chunk_, at_least);
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (bytes >= huge_from) ::madvise(p, bytes, MADV_HUGEPAGE);
    chunks_.emplace_back(p, bytes);
    used_ = 0;
    next_chunk_ = std::min(2 * next_chunk_, largest_chunk_);
  }

  std::vector<std::pair<void*, std::size_t>> chunks_;
  std::size_t used_ = 0;
  std::size_t total_ = 0;
  std::size_t next_chunk_;
  std::size_t largest_chunk_;
};

}  // namespace weave
