#pragma once
// Where task descriptors come from: three levels, so that spawning a task
// costs a few instructions and no global malloc in steady state.
//
//   1. each worker's free list, last in first out, so a new task reuses the
//      descriptor freed most recently, which is still in its cache; touched
//      only by its worker (a task freed on another worker joins that
//      worker's list);
//   2. a shared depot of batches, under a mutex, taken from and returned to
//      a batch at a time when a worker's list runs dry or grows long;
//   3. blocks carved from a chunk arena when the depot is empty too.

#include <cstddef>
#include <mutex>
#include <vector>

#include "weave/memory/chunk_arena.hpp"
#include "weave/tasks/annotated_task.hpp"

namespace weave::tasks {

class task_depot {
 public:
  static constexpr std::size_t batch = 64;

  // A chain of `batch` free descriptors linked through `next`.
  annotated_task* take() {
    std::lock_guard<std::mutex> g(mutex_);
    if (!batches_.empty()) {
      annotated_task* b = batches_.back();
      batches_.pop_back();
      return b;
    }
    auto* block = static_cast<annotated_task*>(arena_.allocate(batch * sizeof(annotated_task), 64));
    for (std::size_t i = 0; i < batch; ++i) {
      new (&block[i]) annotated_task;
      block[i].next = i + 1 < batch ? &block[i + 1] : nullptr;
    }
    carved_ += batch;
    return block;
  }

  void give(annotated_task* chain) {
    std::lock_guard<std::mutex> g(mutex_);
    batches_.push_back(chain);
  }

  std::size_t carved() const {
    std::lock_guard<std::mutex> g(mutex_);
    return carved_;
  }

 private:
  mutable std::mutex mutex_;
  chunk_arena arena_{64 << 10, 16 << 20};
  std::vector<annotated_task*> batches_;
  std::size_t carved_ = 0;
};

// One worker's free list over the shared depot.
class task_allocator {
 public:
  explicit task_allocator(task_depot& depot) noexcept : depot_(&depot) {}
  task_allocator(const task_allocator&) = delete;
  task_allocator& operator=(const task_allocator&) = delete;
  ~task_allocator() {
    while (free_ != nullptr) give_batch();
  }

  annotated_task* allocate() {
    if (free_ == nullptr) {
      free_ = depot_->take();
      count_ = task_depot::batch;
    }
    annotated_task* t = free_;
    free_ = t->next;
    --count_;
    t->next = nullptr;
    return t;
  }

  void free(annotated_task* t) noexcept {
    t->next = free_;
    free_ = t;
    if (++count_ >= 2 * task_depot::batch) give_batch();
  }

 private:
  // Hands the depot a batch from the top of the list (or what there is).
  void give_batch() {
    annotated_task* head = free_;
    annotated_task* last = head;
    std::size_t n = 1;
    while (n < task_depot::batch && last->next != nullptr) {
      last = last->next;
      ++n;
    }
    free_ = last->next;
    last->next = nullptr;
    count_ -= n;
    depot_->give(head);
  }

  task_depot* depot_;
  annotated_task* free_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace weave::tasks
