#include "weave/memory/prefault.hpp"

#include <pthread.h>
#include <sys/mman.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>
#include <thread>

namespace weave {
namespace {

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

struct range {
  void* address;
  std::size_t bytes;
};

// One per process. Its thread stops before fork() and starts again on
// demand after it: a child has none of its parent's threads, and a process
// with threads should not fork (ThreadSanitizer refuses to start threads in
// a child forked from one). The lock is held across fork(); the parent
// keeps its requests, the child starts with none. It is made before main()
// and never destroyed: code run at exit (or a fork() then) may still call
// it, and its thread ends with the process.
class prefaulter {
 public:
  prefaulter() {
    // Whether the kernel has MADV_POPULATE_WRITE (Linux 5.14), asked once on
    // a page of its own: a range may also fail because it was unmapped or
    // made inaccessible since it was asked for, which says nothing of the
    // kernel.
    void* page = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    bool works = page != MAP_FAILED && ::madvise(page, 4096, MADV_POPULATE_WRITE) == 0;
    if (page != MAP_FAILED) ::munmap(page, 4096);
    // Without the fork handlers a child could inherit a thread it has not.
    if (works && ::pthread_atfork(&before_fork, &after_fork_parent, &after_fork_child) != 0) works = false;
    unsupported_.store(!works, std::memory_order_relaxed);
  }

  void ask(void* address, std::size_t bytes) noexcept {
    if (bytes == 0 || unsupported_.load(std::memory_order_relaxed)) return;
    {
      std::lock_guard<std::mutex> g(mutex_);
      if (queued_ == queue_.size()) return;  // a hint: dropped
      if (!started_ && !start()) return;
      queue_[(first_ + queued_) % queue_.size()] = {address, bytes};
      ++queued_;
      ++asked_;
    }
    wake_.notify_one();
  }

  void drain() noexcept {
    std::unique_lock<std::mutex> g(mutex_);
    idle_.wait(g, [&] { return done_ == asked_; });
  }

  std::size_t populated() const noexcept { return populated_.load(std::memory_order_relaxed); }

  static prefaulter& self();

 private:
  void serve() {
    std::unique_lock<std::mutex> g(mutex_);
    for (;;) {
      wake_.wait(g, [&] { return queued_ > 0 || pausing_; });
      if (pausing_) return;
      const range r = queue_[first_];
      first_ = (first_ + 1) % queue_.size();
      --queued_;
      g.unlock();
      // A range unmapped or made inaccessible meanwhile fails: skipped.
      if (::madvise(r.address, r.bytes, MADV_POPULATE_WRITE) == 0)
        populated_.fetch_add(1, std::memory_order_relaxed);
      g.lock();
      ++done_;
      if (done_ == asked_) idle_.notify_all();
    }
  }

  static void before_fork() {
    prefaulter& p = self();
    std::unique_lock<std::mutex> g(p.mutex_);
    if (p.started_) {
      p.pausing_ = true;
      g.unlock();
      p.wake_.notify_all();
      p.thread_.join();
      g.lock();
      p.pausing_ = false;
      p.started_ = false;
    }
    g.release();  // held across fork()
  }
  static void after_fork_parent() {
    prefaulter& p = self();
    if (p.queued_ > 0 && !p.start()) {
      p.done_ += p.queued_;  // dropped: drain() must not wait for them
      p.queued_ = 0;
      p.idle_.notify_all();
    }
    p.mutex_.unlock();
    p.wake_.notify_one();
  }
  static void after_fork_child() {
    prefaulter& p = self();
    // The parent's requests are its own; its waiters did not come along.
    new (&p.wake_) std::condition_variable();
    new (&p.idle_) std::condition_variable();
    p.first_ = p.queued_ = 0;
    p.asked_ = p.done_ = 0;
    p.mutex_.unlock();
  }
  // Under mutex_.
  bool start() noexcept {
    try {
      thread_ = std::thread([this] { serve(); });
    } catch (...) {
      return false;
    }
    started_ = true;
    return true;
  }

  std::mutex mutex_;
  std::condition_variable wake_;  // a request, or a pause for fork()
  std::condition_variable idle_;  // every request done
  std::array<range, 64> queue_{};
  std::size_t first_ = 0;
  std::size_t queued_ = 0;
  std::uint64_t asked_ = 0;
  std::uint64_t done_ = 0;
  bool started_ = false;
  bool pausing_ = false;  // for fork()
  std::atomic<bool> unsupported_{false};
  std::atomic<std::size_t> populated_{0};
  std::thread thread_;
};

prefaulter& prefaulter::self() {
  static prefaulter& p = *new prefaulter;
  return p;
}

// Made before main(), while the process has one thread: a fork() during
// the first use would otherwise leave the child a half-made object.
[[maybe_unused]] prefaulter& made_early = prefaulter::self();

}  // namespace

void prefault_async(void* address, std::size_t bytes) noexcept { prefaulter::self().ask(address, bytes); }
void prefault_drain() noexcept { prefaulter::self().drain(); }
std::size_t prefaulted_ranges() noexcept { return prefaulter::self().populated(); }

}  // namespace weave
