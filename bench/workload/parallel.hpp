#pragma once
// Runs work on pinned threads that start together: `count` requests split
// evenly (run_threads), or chunks repeated for a time (run_threads_for).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <thread>
#include <vector>

#include "weave/exec/thread_group.hpp"
#include "weave/memory/machine.hpp"

namespace weave::bench {

template <class Work>  // Work: void(std::size_t thread, std::size_t first, std::size_t last)
double run_threads(std::size_t threads, std::size_t count, Work&& work) {
  using clock = std::chrono::steady_clock;
  std::atomic<bool> go{false};
  std::vector<clock::time_point> finished(threads);
  thread_group pool(threads, [&](std::size_t t) {
    machine::pin_thread(t);
    while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
    work(t, count * t / threads, count * (t + 1) / threads);
    finished[t] = clock::now();
  });
  const auto start = clock::now();
  go.store(true, std::memory_order_release);
  pool.join();
  auto last = start;
  for (const auto& f : finished) last = std::max(last, f);
  return std::chrono::duration<double, std::nano>(last - start).count();
}

// Each of `threads` pinned threads, started together, calls chunk(t) until
// `seconds` have passed since its start; returns the seconds each ran.
template <class Chunk>  // Chunk: void(std::size_t thread)
std::vector<double> run_threads_for(std::size_t threads, double seconds, Chunk&& chunk) {
  using clock = std::chrono::steady_clock;
  const auto run_for = std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds));
  std::atomic<bool> go{false};
  std::vector<double> elapsed(threads);
  thread_group pool(threads, [&](std::size_t t) {
    machine::pin_thread(t);
    while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
    const auto start = clock::now();
    while (clock::now() - start < run_for) chunk(t);
    elapsed[t] = std::chrono::duration<double>(clock::now() - start).count();
  });
  go.store(true, std::memory_order_release);
  pool.join();
  return elapsed;
}

}  // namespace weave::bench
