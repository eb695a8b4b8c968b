#pragma once
// Vectors whose storage a thread's transactions hand on to the next one, so
// that read and write sets cost no allocation in steady state. A vector
// grown past max_kept_bytes (a scan of a whole table, a huge write set) is
// freed instead: a thread keeps only what ordinary operations need.
//
// Thread-local: a vector given back while the thread's thread_locals are
// destroyed (a coroutine frame freed by one of their destructors) would
// find the spares gone. Nothing in weave frees frames then.

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace weave::txn::detail {

template <class T>
class spare_vectors {
 public:
  static std::vector<T> take() noexcept {
    if (spares_.empty()) return {};
    std::vector<T> v = std::move(spares_.back());
    spares_.pop_back();
    return v;
  }
  static void give(std::vector<T>& v) noexcept {
    v.clear();
    if (v.capacity() == 0 || v.capacity() > max_kept_bytes / sizeof(T) || spares_.size() >= max_spares) {
      std::vector<T>().swap(v);
      return;
    }
    try {
      spares_.push_back(std::move(v));
    } catch (const std::bad_alloc&) {  // keeping it is only an optimization
    }
  }

 private:
  static constexpr std::size_t max_spares = 256;
  static constexpr std::size_t max_kept_bytes = std::size_t{64} << 10;
  static inline thread_local std::vector<std::vector<T>> spares_;
};

// A vector taken from the thread's spares for one operation and given back
// when it ends (or when its coroutine frame is destroyed).
template <class T>
class spare_vector {
 public:
  spare_vector() noexcept : v_(spare_vectors<T>::take()) {}
  spare_vector(const spare_vector&) = delete;
  spare_vector& operator=(const spare_vector&) = delete;
  ~spare_vector() { spare_vectors<T>::give(v_); }

  std::vector<T>& operator*() noexcept { return v_; }
  std::vector<T>* operator->() noexcept { return &v_; }

 private:
  std::vector<T> v_;
};

}  // namespace weave::txn::detail
