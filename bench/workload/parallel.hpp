#pragma once
// Runs `count` requests split evenly over `threads` pinned threads that start
// together, and returns the wall-clock time from the common start to the
// last thread's finish.

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <thread>
#include <vector>

namespace weave::bench {

// Pins the calling thread to one CPU, the t-th modulo their number.
inline void pin_to_cpu(std::size_t t) {
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<int>(t % cpus), &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

template <class Work>  // Work: void(std::size_t thread, std::size_t first, std::size_t last)
double run_threads(std::size_t threads, std::size_t count, Work&& work) {
  using clock = std::chrono::steady_clock;
  std::atomic<bool> go{false};
  std::vector<clock::time_point> finished(threads);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      pin_to_cpu(t);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      work(t, count * t / threads, count * (t + 1) / threads);
      finished[t] = clock::now();
    });
  }
  const auto start = clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : pool) th.join();
  auto last = start;
  for (const auto& f : finished) last = std::max(last, f);
  return std::chrono::duration<double, std::nano>(last - start).count();
}

}  // namespace weave::bench
