#pragma once
// One worker's tasks: what it runs next, in order, and an inbox other
// workers push to.
//
// The queue is a ring of descriptor pointers, so that the worker can look a
// few tasks ahead (to prefetch them) without walking a list; tasks of high
// priority have a ring of their own that is served first. Only the worker
// touches its rings. Other workers push onto the inbox, a lock-free stack
// (one compare-and-swap per push); the worker takes the whole stack at once
// and appends it in arrival order. Once in a pool a task is never stolen.

#include <atomic>
#include <cstddef>
#include <memory>

#include "weave/tasks/annotated_task.hpp"

namespace weave::tasks {

class task_ring {
 public:
  task_ring() : slots_(std::make_unique<annotated_task*[]>(16)), mask_(15) {}

  bool empty() const noexcept { return head_ == tail_; }
  std::size_t size() const noexcept { return tail_ - head_; }

  void push(annotated_task* t) {
    if (size() == mask_ + 1) grow();
    slots_[tail_++ & mask_] = t;
  }
  annotated_task* pop() noexcept { return slots_[head_++ & mask_]; }
  // The k-th task from the front (k < size()).
  annotated_task* peek(std::size_t k) const noexcept { return slots_[(head_ + k) & mask_]; }

 private:
  // Doubling keeps growth rare: in steady state the ring holds the tasks of
  // the operations in flight and never reallocates.
  void grow() {
    const std::size_t capacity = mask_ + 1;
    auto bigger = std::make_unique<annotated_task*[]>(2 * capacity);
    for (std::size_t i = 0; i < capacity; ++i) bigger[i] = slots_[(head_ + i) & mask_];
    slots_ = std::move(bigger);
    head_ = 0;
    tail_ = capacity;
    mask_ = 2 * capacity - 1;
  }

  std::unique_ptr<annotated_task*[]> slots_;
  std::size_t mask_;
  std::size_t head_ = 0;
  std::size_t tail_ = 0;
};

class task_pool {
 public:
  bool empty() const noexcept { return urgent_.empty() && queue_.empty(); }
  std::size_t size() const noexcept { return urgent_.size() + queue_.size(); }

  void push(annotated_task* t) { (t->rank == priority::high ? urgent_ : queue_).push(t); }
  annotated_task* pop() noexcept { return urgent_.empty() ? queue_.pop() : urgent_.pop(); }
  // The k-th task that pop() would return (k < size()).
  annotated_task* peek(std::size_t k) const noexcept {
    return k < urgent_.size() ? urgent_.peek(k) : queue_.peek(k - urgent_.size());
  }

  // From any thread.
  void push_remote(annotated_task* t) noexcept {
    annotated_task* top = inbox_.load(std::memory_order_relaxed);
    do {
      t->next = top;
    } while (!inbox_.compare_exchange_weak(top, t, std::memory_order_release, std::memory_order_relaxed));
  }

  bool inbox_empty() const noexcept { return inbox_.load(std::memory_order_relaxed) == nullptr; }

  // Moves what other workers pushed into the queue, oldest first.
  void take_inbox() {
    annotated_task* t = inbox_.exchange(nullptr, std::memory_order_acquire);
    annotated_task* reversed = nullptr;
    while (t != nullptr) {
      annotated_task* next = t->next;
      t->next = reversed;
      reversed = t;
      t = next;
    }
    while (reversed != nullptr) {
      annotated_task* next = reversed->next;
      reversed->next = nullptr;
      push(reversed);
      reversed = next;
    }
  }

 private:
  task_ring urgent_;
  task_ring queue_;
  alignas(64) std::atomic<annotated_task*> inbox_{nullptr};
};

}  // namespace weave::tasks
