#pragma once
// Threads that start all or none. A std::thread that is still joinable when
// an exception unwinds past it ends the process, so a loop of emplace_back
// that fails at thread k (no memory for a stack, a thread limit) turned a
// clear error into an abort. thread_group starts `count` threads that run
// their body only once every one of them has started; if one cannot be
// started, none runs it, those started are joined, and a std::system_error
// says which thread failed.

#include <atomic>
#include <cstddef>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace weave {

class thread_group {
 public:
  template <class Body>  // Body: void(std::size_t thread), copied into each thread
  thread_group(std::size_t count, const Body& body) {
    threads_.reserve(count);
    for (std::size_t t = 0; t < count; ++t) {
      try {
        threads_.emplace_back([this, body, t] {
          int s;
          while ((s = state_.load(std::memory_order_acquire)) == starting) std::this_thread::yield();
          if (s == running) body(t);
        });
      } catch (const std::system_error& e) {
        cancel();
        throw std::system_error(
            e.code(), "cannot start thread " + std::to_string(t + 1) + " of " + std::to_string(count));
      } catch (...) {
        cancel();
        throw;
      }
    }
    state_.store(running, std::memory_order_release);
  }
  thread_group(const thread_group&) = delete;
  thread_group& operator=(const thread_group&) = delete;
  ~thread_group() { join(); }

  // Waits for every thread to finish its body.
  void join() noexcept {
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  void cancel() noexcept {
    state_.store(cancelled, std::memory_order_release);
    join();
  }

  static constexpr int starting = 0, running = 1, cancelled = 2;
  std::atomic<int> state_{starting};
  std::vector<std::thread> threads_;
};

}  // namespace weave
