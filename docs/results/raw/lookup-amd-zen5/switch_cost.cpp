#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#include <string>
#include "bench/baselines/hash_probe.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/index/hash_table.hpp"
using namespace weave;
static std::uint64_t mix(std::uint64_t x) { x ^= x >> 31; x *= 0x9E3779B97F4A7C15ull; x ^= x >> 29; return x; }

template <bool Prefetch>
struct my_load : detail::suspend_to_scheduler {
  const hash_table::entry* ptr;
  bool await_ready() const noexcept { if (Prefetch) detail::prefetch_line(ptr); return false; }
  hash_table::entry await_resume() const noexcept { return *ptr; }
};
template <bool Prefetch, class Requests>
typename Requests::task_type myfind(const hash_table& table, Requests requests) {
  while (requests.next()) {
    const std::uint64_t key = requests.argument();
    std::optional<std::uint32_t> found;
    for (std::size_t at = table.bucket_of(key);;) {
      const hash_table::entry e = co_await my_load<Prefetch>{{}, &table.at(at)};
      if (e.next == hash_table::empty) break;
      if (e.key == key) { found = e.value; break; }
      if (e.next == hash_table::end) break;
      at = e.next;
    }
    requests.deliver(std::move(found));
  }
  co_return requests.finish();
}
std::uint64_t amac_nopf(const hash_table& table, std::span<const std::uint64_t> keys, std::size_t group) {
  struct state { std::size_t entry; std::uint64_t key; };
  std::array<state, 256> ring;
  std::size_t next_key = 0, live = 0;
  auto start = [&](state& s) { const std::uint64_t key = keys[next_key++]; s = state{table.bucket_of(key), key}; };
  while (live < group && next_key < keys.size()) start(ring[live++]);
  std::uint64_t sum = 0;
  for (std::size_t j = 0; live > 0; j = j + 1 < live ? j + 1 : 0) {
    state& s = ring[j];
    const auto step = baselines::detail::visit(table, s.entry, s.key);
    if (step.next != hash_table::end) { s.entry = step.next; continue; }
    sum += step.value;
    if (next_key < keys.size()) start(s); else s = ring[--live];
  }
  return sum;
}
struct fstate { std::size_t entry; std::uint64_t key; std::uint64_t found; bool done; };
struct fctx { const hash_table* table; const std::uint64_t* keys; std::size_t next, last; std::uint64_t sum; };
using stepfn = void (*)(fstate&, fctx&);
template <bool Prefetch>
__attribute__((noinline)) void fstep(fstate& s, fctx& c) {
  const hash_table& table = *c.table;
  const auto step = baselines::detail::visit(table, s.entry, s.key);
  if (step.next != hash_table::end) { s.entry = step.next; if (Prefetch) detail::prefetch_line(&table.at(s.entry)); return; }
#ifdef SLOTSUM
  s.found += step.value;
#else
  c.sum += step.value;
#endif
  if (c.next == c.last) { s.done = true; return; }
  const std::uint64_t key = c.keys[c.next++];
  s.key = key; s.entry = table.bucket_of(key);
  if (Prefetch) detail::prefetch_line(&table.at(s.entry));
}
template <bool Prefetch, int Mode>
std::uint64_t fring2(const hash_table& table, std::span<const std::uint64_t> keys, std::size_t group) {
  std::array<fstate, 256> ring;
  fctx c{&table, keys.data(), 0, keys.size(), 0};
  std::size_t live = 0;
  while (live < group && c.next < c.last) {
    const std::uint64_t key = keys[c.next++];
    ring[live] = fstate{table.bucket_of(key), key, 0, false};
    ++live;
  }
  for (std::size_t j = 0; live > 0;) {
    fstep<Prefetch>(ring[j], c);
    if (ring[j].done) { c.sum += ring[j].found; --live; ring[j] = ring[live]; if (j == live) j = 0; continue; }
    if (++j == live) j = 0;
  }
  return c.sum;
}
template <bool Prefetch>
std::uint64_t fring(const hash_table& table, std::span<const std::uint64_t> keys, std::size_t group, stepfn volatile* fp) {
  std::array<fstate, 256> ring;
  std::array<stepfn, 256> fns;
  fctx c{&table, keys.data(), 0, keys.size(), 0};
  std::size_t live = 0;
  while (live < group && c.next < c.last) {
    const std::uint64_t key = keys[c.next++];
    ring[live] = fstate{table.bucket_of(key), key, 0, false};
    fns[live] = *fp;
    ++live;
  }
  for (std::size_t j = 0; live > 0;) {
    fns[j](ring[j], c);
    if (ring[j].done) { c.sum += ring[j].found; --live; ring[j] = ring[live]; fns[j] = fns[live]; if (j == live) j = 0; continue; }
    if (++j == live) j = 0;
  }
  return c.sum;
}
int main(int argc, char** argv) {
  std::size_t n = std::stoull(argv[1]) << 20;
  std::size_t group = std::stoull(argv[2]);
  hash_table table(n, 1.0);
  for (std::size_t i = 0; i < n; ++i) table.insert(mix(i), static_cast<std::uint32_t>(i));
  std::mt19937_64 rng(3);
  std::vector<std::uint64_t> keys(2 << 20);
  for (auto& k : keys) k = mix(rng() % n);
  auto time = [&](const char* name, auto f) {
    for (int r = 0; r < 3; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      std::uint64_t sum = f();
      double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / keys.size();
      std::printf("%s %.1f (%lu)  ", name, ns, (unsigned long)sum);
    }
    std::printf("\n");
  };
  auto coro = [&]<bool P>() {
    std::uint64_t sum = 0;
    auto sink = [&](std::size_t, const std::optional<std::uint32_t>& v) { sum += v ? *v : 0; };
    auto ops = streamed([&](auto, auto requests) { return myfind<P>(table, requests); },
                        [k = keys.data()](std::size_t i) { return k[i]; });
    interleaved_scheduler{group}.run(0, keys.size(), ops, sink);
    return sum;
  };
  for (int round = 0; round < 1; ++round) {
    time("naive", [&] { return baselines::naive_lookup(table, keys); });
    time("amac", [&] { return baselines::amac_lookup(table, keys, group); });
    time("amac-nopf", [&] { return amac_nopf(table, keys, group); });
    static stepfn volatile fp1 = &fstep<true>, fp0 = &fstep<false>;
    time("fring", [&] { return fring<true>(table, keys, group, &fp1); });
    time("fring-nopf", [&] { return fring<false>(table, keys, group, &fp0); });
    time("fdirect", [&] { return fring2<true, 0>(table, keys, group); });
    time("fdirect-nopf", [&] { return fring2<false, 0>(table, keys, group); });
    time("coro", [&] { return coro.template operator()<true>(); });
    time("coro-nopf", [&] { return coro.template operator()<false>(); });
    time("coro-lib", [&] {
      std::uint64_t sum = 0;
      auto sink = [&](std::size_t, const std::optional<std::uint32_t>& v) { sum += v ? *v : 0; };
      auto ops = streamed([&](auto policy, auto requests) { return find<decltype(policy)>(table, requests); },
                          [k = keys.data()](std::size_t i) { return k[i]; });
      interleaved_scheduler{group}.run(0, keys.size(), ops, sink);
      return sum; });
  }
}
