// Scratch program behind docs/results/lookups.md's second Zen 3 section:
// variants of hash_table's find, 48 probes in flight, timed in turn round
// after round, each on the next window of keys (so checksums are not
// compared across variants). REV=1 runs the variants in reverse order.
// Not part of the build.
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <map>
#include <string>
#include <functional>
#include "bench/baselines/hash_probe.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/index/hash_table.hpp"
using namespace weave;
static std::uint64_t scramble(std::uint64_t x){x^=x>>31;x*=0x7fb5d329728ea185ULL;x^=x>>27;x*=0x81dadef4bc2dd44dULL;x^=x>>33;return x;}

// the find loop, as a plain function: S slots of W probes, a pass per slot
template <std::size_t W>
std::uint64_t pass_lookup(const hash_table& table, std::span<const std::uint64_t> keys, std::size_t slots) {
  struct probe { std::uint64_t key; const hash_table::entry* at; std::size_t ticket; };
  std::vector<std::array<probe, W>> ps(slots);
  std::vector<std::size_t> lives(slots, 0);
  std::size_t next = 0; std::uint64_t sum = 0;
  auto start = [&](probe& p){ p.key = keys[next]; p.ticket = next++; p.at = &table.at(table.bucket_of(p.key)); detail::prefetch_line(p.at); };
  for (std::size_t s = 0; s < slots; ++s) while (lives[s] < W && next < keys.size()) start(ps[s][lives[s]++]);
  std::size_t active = slots;
  while (active > 0) {
    active = 0;
    for (std::size_t s = 0; s < slots; ++s) {
      auto& probes = ps[s]; std::size_t live = lives[s];
      for (std::size_t j = 0; j < live;) {
        probe& p = probes[j];
        const hash_table::entry& e = *p.at;
        std::uint32_t found = 0;
        if (e.next != hash_table::empty) {
          if (e.key == p.key) found = e.value;
          else if (e.next != hash_table::end) { p.at = &table.at(e.next); detail::prefetch_line(p.at); ++j; continue; }
        }
        sum += found;
        if (next < keys.size()) { start(p); ++j; } else p = probes[--live];
      }
      lives[s] = live; if (live) ++active;
    }
  }
  return sum;
}


template <std::size_t W, bool LocalSum, class Requests>
task<void> findv(const hash_table& table, Requests requests, std::uint64_t* out) {
  struct probe { std::uint64_t key; const hash_table::entry* at; std::size_t ticket; };
  std::array<probe, W> probes;
  std::uint64_t sum = 0;
  const auto start = [&](probe& p) {
    p.key = requests.argument(); p.ticket = requests.ticket();
    p.at = &table.at(table.bucket_of(p.key)); detail::prefetch_line(p.at);
  };
  std::size_t live = 0;
  while (live < W && requests.next()) start(probes[live++]);
  while (live > 0) {
    co_await next_pass<interleaved_policy>();
    for (std::size_t j = 0; j < live;) {
      probe& p = probes[j];
      const hash_table::entry& e = *p.at;
      std::optional<std::uint32_t> found;
      if (e.next != hash_table::empty) {
        if (e.key == p.key) found = e.value;
        else if (e.next != hash_table::end) { p.at = &table.at(e.next); detail::prefetch_line(p.at); ++j; continue; }
      }
      if constexpr (LocalSum) sum += found ? *found : 0; else requests.deliver_to(p.ticket, std::move(found));
      if (requests.next()) { start(p); ++j; } else p = probes[--live];
    }
  }
  if constexpr (LocalSum) *out += sum;
}

struct probe3 { std::uint64_t key; const hash_table::entry* at; std::size_t ticket; };
template <std::size_t W, class Requests>
[[gnu::noinline]] std::size_t probe_pass(const hash_table& table, std::array<probe3, W>& probes, std::size_t live, Requests& requests) {
  for (std::size_t j = 0; j < live;) {
    probe3& p = probes[j];
    const hash_table::entry& e = *p.at;
    std::optional<std::uint32_t> found;
    if (e.next != hash_table::empty) {
      if (e.key == p.key) found = e.value;
      else if (e.next != hash_table::end) { p.at = &table.at(e.next); detail::prefetch_line(p.at); ++j; continue; }
    }
    requests.deliver_to(p.ticket, std::move(found));
    if (requests.next()) { p.key = requests.argument(); p.ticket = requests.ticket();
      p.at = &table.at(table.bucket_of(p.key)); detail::prefetch_line(p.at); ++j; } else p = probes[--live];
  }
  return live;
}
template <std::size_t W, class Requests>
task<void> findf(const hash_table& table, Requests requests) {
  std::array<probe3, W> probes;
  std::size_t live = 0;
  while (live < W && requests.next()) { probe3& p = probes[live++]; p.key = requests.argument(); p.ticket = requests.ticket();
      p.at = &table.at(table.bucket_of(p.key)); detail::prefetch_line(p.at); }
  while (live > 0) {
    co_await next_pass<interleaved_policy>();
    live = probe_pass<W>(table, probes, live, requests);
  }
}

template <std::size_t W>
task<void> findr(const hash_table& table, const std::uint64_t* k, const std::uint64_t* kend, std::uint64_t* out) {
  struct probe { std::uint64_t key; const hash_table::entry* at; std::size_t ticket; };
  std::array<probe, W> probes;
  std::uint64_t sum = 0;
  const auto start = [&](probe& p) {
    p.key = *k++; p.ticket = 0;
    p.at = &table.at(table.bucket_of(p.key)); detail::prefetch_line(p.at);
  };
  std::size_t live = 0;
  while (live < W && k != kend) start(probes[live++]);
  while (live > 0) {
    co_await next_pass<interleaved_policy>();
    for (std::size_t j = 0; j < live;) {
      probe& p = probes[j];
      const hash_table::entry& e = *p.at;
      std::uint32_t found = 0;
      if (e.next != hash_table::empty) {
        if (e.key == p.key) found = e.value;
        else if (e.next != hash_table::end) { p.at = &table.at(e.next); detail::prefetch_line(p.at); ++j; continue; }
      }
      sum += found;
      if (k != kend) { start(p); ++j; } else p = probes[--live];
    }
  }
  *out += sum;
}

int main(int argc, char** argv) {
  std::size_t n = argc > 1 ? std::stoull(argv[1]) : (64u << 20);
  std::size_t L = argc > 3 ? std::stoull(argv[3]) : 200000, rounds = argc > 2 ? std::stoull(argv[2]) : 30;
  hash_table t(n, 1.0);
  for (std::size_t i = 0; i < n; ++i) t.insert(scramble(i ^ 42), (std::uint32_t)i);
  std::size_t T = 8u << 20; std::vector<std::uint64_t> all(T);
  for (std::size_t i = 0; i < T; ++i) all[i] = scramble((scramble(i * 7 + 1) % n) ^ 42);
  std::span<const std::uint64_t> keys(all.data(), L); std::size_t off = 0;
  std::vector<std::pair<std::string, std::function<std::uint64_t()>>> vs;
  for (std::size_t g : {48}) {
    vs.push_back({"amac" + std::to_string(g), [&, g] { return baselines::amac_lookup(t, keys, g); }});
    vs.push_back({"pass" + std::to_string(g), [&, g] { return pass_lookup<16>(t, keys, g / 16); }});
    vs.push_back({"coro" + std::to_string(g), [&, g] {
      std::uint64_t sum = 0;
      auto op = streamed([&](auto policy, auto requests) { return find<decltype(policy)>(t, requests); },
                         [k = keys.data()](std::size_t i) { return k[i]; });
      interleaved_scheduler{g / 16}.run(0, L, op, [&](std::size_t, const std::optional<std::uint32_t>& v) { sum += v ? *v : 0; });
      return sum; }});

    vs.push_back({"cloc" + std::to_string(g), [&, g] {
      std::uint64_t sum = 0;
      auto op = streamed([&](auto, auto requests) { return findv<16, true>(t, requests, &sum); },
                         [k = keys.data()](std::size_t i) { return k[i]; });
      interleaved_scheduler{g / 16}.run(0, L, op, [&](std::size_t, const std::optional<std::uint32_t>& v) { sum += v ? *v : 0; });
      return sum; }});
    vs.push_back({"cw" + std::to_string(g), [&, g] {
      std::uint64_t sum = 0;
      auto op = streamed([&](auto, auto requests) { if constexpr (true) return findv<48, false>(t, requests, &sum); },
                         [k = keys.data()](std::size_t i) { return k[i]; });
      interleaved_scheduler{g / 48 ? g / 48 : 1}.run(0, L, op, [&](std::size_t, const std::optional<std::uint32_t>& v) { sum += v ? *v : 0; });
      return sum; }});

    vs.push_back({"cfn" + std::to_string(g), [&, g] {
      std::uint64_t sum = 0;
      auto op = streamed([&](auto, auto requests) { return findf<16>(t, requests); },
                         [k = keys.data()](std::size_t i) { return k[i]; });
      interleaved_scheduler{g / 16}.run(0, L, op, [&](std::size_t, const std::optional<std::uint32_t>& v) { sum += v ? *v : 0; });
      return sum; }});

    vs.push_back({"crng" + std::to_string(g), [&, g] {
      std::uint64_t sum = 0; std::size_t slots = g / 16; std::size_t per = L / slots;
      std::vector<task<void>> ts;
      for (std::size_t s = 0; s < slots; ++s) ts.push_back(findr<16>(t, keys.data() + s * per, s + 1 == slots ? keys.data() + L : keys.data() + (s + 1) * per, &sum));
      std::vector<std::coroutine_handle<>> lv; for (auto& x : ts) lv.push_back(x.handle());
      std::size_t live = slots;
      for (std::size_t s = 0; live > 0;) {
        lv[s].resume();
        if (ts[s].done()) { --live; std::swap(ts[s], ts[live]); lv[s] = lv[live]; if (s == live) s = 0; continue; }
        lv[s] = detail::take_resume_point();
        if (++s == live) s = 0;
      }
      return sum; }});
  }
  std::map<std::string, std::vector<double>> ns;
  for (std::size_t r = 0; r < rounds; ++r)
    for (std::size_t vi = 0; vi < vs.size(); ++vi) { auto& [name, f] = vs[getenv("REV") ? vs.size() - 1 - vi : vi];
      off = (off + L) % (T - L); keys = std::span<const std::uint64_t>(all.data() + off, L);
      auto a = std::chrono::steady_clock::now();
      f();
      double d = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - a).count() / L;
      ns[name].push_back(d);
    }
  for (auto& [name, v] : ns) { std::sort(v.begin(), v.end()); std::printf("%-8s median %.1f  p25 %.1f min %.1f\n", name.c_str(), v[v.size()/2], v[v.size()/4], v[0]); }
}
