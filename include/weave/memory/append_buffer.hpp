#pragma once
// An append-only array on huge pages: the storage of structures that grow
// (Delta dictionaries, their index nodes). Growing doubles the capacity and
// copies, so references into it are invalidated by push_back, like a vector.

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "weave/memory/huge_buffer.hpp"

namespace weave {

template <class T>
class append_buffer {
 public:
  append_buffer() = default;
  explicit append_buffer(std::size_t capacity) { reserve(capacity); }

  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
  T* data() noexcept { return store_.data(); }
  const T* data() const noexcept { return store_.data(); }
  T& operator[](std::size_t i) noexcept { return store_[i]; }
  const T& operator[](std::size_t i) const noexcept { return store_[i]; }

  // Index of the new element.
  std::size_t push_back(const T& value) {
    if (size_ == store_.size()) reserve(std::max<std::size_t>(16, store_.size() * 2));
    store_[size_] = value;
    return size_++;
  }

  void reserve(std::size_t capacity) {
    if (capacity <= store_.size()) return;
    huge_buffer<T> grown(capacity);
    if (size_ > 0) std::memcpy(static_cast<void*>(grown.data()), store_.data(), size_ * sizeof(T));
    store_ = std::move(grown);
  }

  // Grows (or shrinks) to `count` elements; grown ones hold zero bytes or
  // whatever a shrink left there.
  void resize(std::size_t count) {
    if (count > store_.size()) reserve(std::max(count, store_.size() * 2));
    size_ = count;
  }

 private:
  huge_buffer<T> store_;
  std::size_t size_ = 0;
};

}  // namespace weave
