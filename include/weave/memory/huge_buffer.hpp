#pragma once
// A zero-filled array for DRAM-sized structures. It is mapped straight from
// the kernel and asks for transparent huge pages, so that a random lookup
// costs a cache miss but rarely a page walk; pages are only backed once
// touched, so a generous capacity costs address space, not memory.
//
// Only a whole, aligned 2 MiB extent can be a huge page. An array of 2 MiB
// or more is mapped in whole huge pages when rounding up adds at most an
// eighth: a dictionary of 10^6 integers (3.8 MiB) was otherwise half in
// small pages, and Linux (since 6.12; 6.7-6.11 aligned every mapping of 2
// MiB or more, 6.1 none) aligns a mapping to a huge page only when its
// length is a multiple of one. (Aligning every mapping by hand, with the
// unaligned head and tail given back, measured slower on reconstruction:
// docs/results/column.md.) bytes() is what the array holds; it may take up
// to mapped_bytes(size()) of memory.

#include <sys/mman.h>

#include <cstddef>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

namespace weave {

template <class T>
class huge_buffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "huge_buffer holds plain data");

 public:
  huge_buffer() noexcept = default;
  explicit huge_buffer(std::size_t count) : size_(count) {
    if (count == 0) return;
    if (count > (std::numeric_limits<std::size_t>::max() - huge_page) / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = mapped_bytes(count);
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (bytes >= huge_page) ::madvise(p, bytes, MADV_HUGEPAGE);
    data_ = static_cast<T*>(p);
  }
  huge_buffer(huge_buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  huge_buffer& operator=(huge_buffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  huge_buffer(const huge_buffer&) = delete;
  huge_buffer& operator=(const huge_buffer&) = delete;
  ~huge_buffer() { release(); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }

  static constexpr std::size_t huge_page = std::size_t{2} << 20;
  // What an array of `count` elements maps.
  static std::size_t mapped_bytes(std::size_t count) noexcept {
    const std::size_t bytes = count * sizeof(T);
    const std::size_t rounded = (bytes + huge_page - 1) / huge_page * huge_page;
    return bytes >= huge_page && rounded - bytes <= bytes / 8 ? rounded : bytes;
  }

 private:
  void release() noexcept {
    if (data_ != nullptr) ::munmap(data_, mapped_bytes(size_));
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace weave
