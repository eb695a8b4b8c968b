// Issue 18 section 0 on the Zen 5 VM: what a hash probe costs in AMAC, in
// the library's coroutine (coro-lib), and in a coroutine whose suspension
// jumps straight to the next slot's frame instead of returning to the ring
// (xfer). Usage: ./a.out K G... with 2^10 * K keys and groups G; with HEAD=1
// in the environment every looked-up key heads its chain (one entry per
// probe, so the branch on whether the chain goes on never mispredicts).
// Build (from the repository): clang++-19 -std=c++20 -O3 -march=native
//   -DNDEBUG -Iinclude -I. probe_heads.cpp build/release/libweave.a
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#include <string>
#include <cstdlib>
#include "bench/baselines/hash_probe.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/index/hash_table.hpp"
using namespace weave;
static std::uint64_t mix(std::uint64_t x) { x ^= x >> 31; x *= 0x9E3779B97F4A7C15ull; x ^= x >> 29; return x; }

struct xring { std::coroutine_handle<>* leaves; std::size_t k; std::size_t live; };
inline thread_local constinit xring* cur = nullptr;

struct xload : detail::suspend_to_scheduler {
  const hash_table::entry* ptr;
  bool await_ready() const noexcept { detail::prefetch_line(ptr); return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> self) noexcept {
    xring* r = cur;
    std::size_t k = r->k;
    r->leaves[k] = self;
    if (++k == r->live) {
      return detail::resume_nothing();
    }
    r->k = k;
    return r->leaves[k];
  }
  hash_table::entry await_resume() const noexcept { return *ptr; }
};
template <class Requests>
typename Requests::task_type xfind(const hash_table& table, Requests requests) {
  while (requests.next()) {
    const std::uint64_t key = requests.argument();
    std::optional<std::uint32_t> found;
    for (std::size_t at = table.bucket_of(key);;) {
      const hash_table::entry e = co_await xload{{}, &table.at(at)};
      if (e.next == hash_table::empty) break;
      if (e.key == key) { found = e.value; break; }
      if (e.next == hash_table::end) break;
      at = e.next;
    }
    requests.deliver(std::move(found));
  }
  co_return requests.finish();
}


template <class Make>
void xrun(std::size_t group, Make make) {
  std::array<task<void>, 256> slots;
  std::array<std::coroutine_handle<>, 256> leaves;
  xring r{leaves.data(), 0, 0};
  cur = &r;
  std::size_t live = group;
  for (std::size_t k = 0; k < live; ++k) { slots[k] = make(); leaves[k] = slots[k].handle(); }
  r.live = live;
  for (std::size_t k = 0; live > 0;) {
    r.k = k;
    leaves[k].resume();
    k = r.k;
    if (!slots[k].done()) [[likely]] {
      // end of pass (leaf stored by the awaiter)
      if (++k == live) k = 0;
      continue;
    }
    slots[k].handle().promise().result();
    --live; r.live = live;
    slots[k] = std::move(slots[live]);
    leaves[k] = leaves[live];
    if (k == live) k = 0;
  }
  cur = nullptr;
}

int main(int argc, char** argv) {
  std::size_t n = std::stoull(argv[1]) << 10;
  hash_table table(n, 1.0);
  for (std::size_t i = 0; i < n; ++i) table.insert(mix(i), static_cast<std::uint32_t>(i));
  std::mt19937_64 rng(3);
  std::vector<std::uint64_t> keys(2 << 20);
  for (auto& k : keys) k = mix(rng() % n);
  if (const char* h = getenv("HEAD"); h != nullptr && *h == '1') { for (auto& k : keys) { for (;;) { k = mix(rng() % n); if (table.at(table.bucket_of(k)).key == k) break; } } }
  auto time = [&](const char* name, std::size_t group, auto f) {
    double best = 1e9; std::uint64_t sum = 0;
    for (int r = 0; r < 3; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      sum = f();
      double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / keys.size();
      best = std::min(best, ns);
    }
    std::printf("%-8s G=%-3zu %6.2f ns (%lu)\n", name, group, best, (unsigned long)sum);
  };
  for (int a = 2; a < argc; ++a) {
    std::size_t group = std::stoull(argv[a]);
    time("amac", group, [&] { return baselines::amac_lookup(table, keys, group); });
    time("coro-lib", group, [&] {
      std::uint64_t sum = 0;
      auto sink = [&](std::size_t, const std::optional<std::uint32_t>& v) { sum += v ? *v : 0; };
      auto ops = streamed([&](auto policy, auto requests) { return find<decltype(policy)>(table, requests); },
                          [k = keys.data()](std::size_t i) { return k[i]; });
      interleaved_scheduler{group}.run(0, keys.size(), ops, sink);
      return sum; });

    time("xfer", group, [&] {
      std::uint64_t sum = 0;
      auto sink = [&](std::size_t, const std::optional<std::uint32_t>& v) { sum += v ? *v : 0; };
      auto s = streamed([&](auto, auto requests) { return xfind(table, requests); },
                          [k = keys.data()](std::size_t i) { return k[i]; });
      detail::shared_requests<decltype(s), decltype(sink)> shared{s, sink, 0, keys.size()};
      xrun(group, [&] { return xfind(table, detail::slot_requests<decltype(shared)>{shared}); });
      return sum; });
  }
}
