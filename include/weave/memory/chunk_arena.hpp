#pragma once
// Bump allocation from huge_buffer chunks. Chunks grow geometrically, so a
// small structure stays small, and the large ones ask for transparent huge
// pages (huge_buffer's rule): a structure of gigabytes that is read at random
// (index nodes, record versions) then costs a cache miss per access but
// rarely a page walk. Memory is returned only when the arena goes.
// Not thread-safe: owners lock around it.

#include <algorithm>
#include <cstddef>
#include <vector>

#include "weave/memory/huge_buffer.hpp"
#include "weave/memory/prefault.hpp"

namespace weave {

class chunk_arena {
 public:
  explicit chunk_arena(std::size_t first_chunk = 64 << 10, std::size_t largest_chunk = std::size_t{64} << 20) noexcept
      : next_chunk_(first_chunk), largest_chunk_(largest_chunk) {}

  // `bytes` at an address aligned to `align` (a power of two up to 4096).
  void* allocate(std::size_t bytes, std::size_t align) {
    std::size_t at = (used_ + align - 1) & ~(align - 1);
    if (chunks_.empty() || at + bytes > chunks_.back().size()) {
      chunks_.emplace_back(std::max(next_chunk_, bytes));
      next_chunk_ = std::min(2 * next_chunk_, largest_chunk_);
      at = 0;
      // The caller writes the first huge page now; the rest of a large
      // chunk is faulted in meanwhile by the prefault thread.
      constexpr std::size_t huge_page = huge_buffer<std::byte>::huge_page;
      huge_buffer<std::byte>& chunk = chunks_.back();
      if (chunk.size() > 2 * huge_page) prefault_async(chunk.data() + huge_page, chunk.size() - huge_page);
    }
    used_ = at + bytes;
    return chunks_.back().data() + at;
  }

  // A chunk of `bytes` with each of its pages written to, for adopt():
  // memory a process has not touched costs a page fault and the kernel's
  // zeroing when it is first written, and on a VM often a fault in the host
  // too, and this pays it now. Throws std::bad_alloc if it cannot be mapped.
  static huge_buffer<std::byte> touched_chunk(std::size_t bytes) {
    huge_buffer<std::byte> chunk(bytes);
    volatile std::byte* p = chunk.data();
    for (std::size_t i = 0; i < bytes; i += page) p[i] = std::byte{0};  // zero already: keeps it so
    return chunk;
  }

  // Makes `chunk` the one the next allocations take (the rest of the
  // current one goes unused).
  void adopt(huge_buffer<std::byte> chunk) {
    if (chunk.size() == 0) return;
    chunks_.push_back(std::move(chunk));
    used_ = 0;
  }

 private:
  static constexpr std::size_t page = 4096;

  std::vector<huge_buffer<std::byte>> chunks_;
  std::size_t used_ = 0;
  std::size_t next_chunk_;
  std::size_t largest_chunk_;
};

}  // namespace weave
