#pragma once
// A zero-filled array for DRAM-sized structures. It is mapped straight from
// the kernel and asks for transparent huge pages, so that a random lookup
// costs a cache miss but rarely a page walk; pages are only backed once
// touched, so a generous capacity costs address space, not memory.

#include <sys/mman.h>

#include <cstddef>
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
    const std::size_t bytes = count * sizeof(T);
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (bytes >= (2u << 20)) ::madvise(p, bytes, MADV_HUGEPAGE);
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

 private:
  void release() noexcept {
    if (data_ != nullptr) ::munmap(data_, size_ * sizeof(T));
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace weave
