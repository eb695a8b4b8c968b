#pragma once
// Vectors whose storage a thread's transactions hand on to the next one, so
// that read and write sets cost no allocation in steady state.

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
    if (v.capacity() == 0 || spares_.size() >= max_spares) return;
    try {
      spares_.push_back(std::move(v));
    } catch (const std::bad_alloc&) {  // keeping it is only an optimization
    }
  }

 private:
  static constexpr std::size_t max_spares = 256;
  static inline thread_local std::vector<std::vector<T>> spares_;
};

}  // namespace weave::txn::detail
