#include "bench/mlp.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>

#include "weave/memory/huge_buffer.hpp"

namespace weave::bench {

struct alignas(64) line {
  std::uint64_t next;
  std::uint64_t pad[7];
};

struct mlp_probe::impl {
  huge_buffer<line> lines;
};

mlp_probe::mlp_probe(std::size_t bytes, bool verbose) : impl_(std::make_unique<impl>()) {
  // Whole blocks of 16 lines, so that a chase's blocks (ns_per_miss's
  // `lines`) never reach past the end.
  const std::size_t n = bytes / sizeof(line) / 16 * 16;
  if (bytes < min_bytes) throw std::invalid_argument("the MLP probe needs at least 64 KiB");
  impl_->lines = huge_buffer<line>(n);
  line* l = impl_->lines.data();
  for (std::size_t i = 0; i < n; ++i) l[i].next = i;
  // Sattolo's shuffle: the permutation i -> next is a single cycle over all lines.
  std::mt19937_64 rng(7);
  for (std::size_t i = n - 1; i > 0; --i) {
    const std::size_t j = std::uniform_int_distribution<std::size_t>(0, i - 1)(rng);
    std::swap(l[i].next, l[j].next);
    if (verbose && (i & 0xfffff) == 0) {
      std::fprintf(stderr, "\rlinking %zu MiB of lines: %3.0f%%", bytes >> 20,
                   100.0 * static_cast<double>(n - i) / static_cast<double>(n));
    }
  }
  if (verbose) std::fprintf(stderr, "\rlinking %zu MiB of lines: done\n", bytes >> 20);
}

mlp_probe::~mlp_probe() = default;

std::size_t mlp_probe::bytes() const noexcept { return impl_->lines.bytes(); }

namespace {

// One step of every chain: each reads the line its chain is at, and with it
// the rest of that line's aligned block of Lines lines (prefetched, as a
// B+-tree step takes a node).
template <std::size_t Lines>
void chase(const line* l, std::array<std::uint64_t, 64>& at, std::size_t chains, std::size_t steps) {
  for (std::size_t s = 0; s < steps; ++s) {
    for (std::size_t c = 0; c < chains; ++c) {
      if constexpr (Lines > 1) {
        const line* block = l + (at[c] & ~std::uint64_t{Lines - 1});
        for (std::size_t k = 0; k < Lines; ++k) __builtin_prefetch(block + k, 0, 3);
      }
      at[c] = l[at[c]].next;  // independent misses
    }
  }
}

}  // namespace

double mlp_probe::ns_per_miss(std::size_t chains, std::size_t misses, std::size_t lines) const {
  if (chains < 1 || chains > 64) throw std::invalid_argument("chains must be between 1 and 64");
  if (!block_lines_supported(lines)) throw std::invalid_argument("lines per step must be 1, 2, 4, 8 or 16");
  const line* l = impl_->lines.data();
  const std::size_t n = impl_->lines.size();
  std::array<std::uint64_t, 64> at{};
  std::mt19937_64 rng(chains);
  for (std::size_t c = 0; c < chains; ++c) at[c] = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  const std::size_t steps = std::max<std::size_t>(misses / chains, 1);
  const auto start = std::chrono::steady_clock::now();
  switch (lines) {
    case 1: chase<1>(l, at, chains, steps); break;
    case 2: chase<2>(l, at, chains, steps); break;
    case 4: chase<4>(l, at, chains, steps); break;
    case 8: chase<8>(l, at, chains, steps); break;
    default: chase<16>(l, at, chains, steps); break;
  }
  const auto stop = std::chrono::steady_clock::now();
  std::uint64_t sum = 0;
  for (std::size_t c = 0; c < chains; ++c) sum += at[c];
  // Keeps the walk observable.
  if (sum == ~std::uint64_t{0}) std::fprintf(stderr, " ");
  return std::chrono::duration<double, std::nano>(stop - start).count() /
         static_cast<double>(steps * chains);
}

double mlp_probe::ns_per_prefetched_miss(std::size_t distance, std::size_t misses) const {
  if (distance > 1024) throw std::invalid_argument("the prefetch distance must be at most 1024");
  const line* l = impl_->lines.data();
  const std::size_t n = impl_->lines.size();
  misses = std::max<std::size_t>(misses, 1);
  std::vector<std::uint64_t> order(misses + distance);
  std::mt19937_64 rng(distance + 1);
  for (auto& o : order) o = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  std::uint64_t at = 0;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < misses; ++i) {
    if (distance > 0) __builtin_prefetch(&l[order[i + distance]], 0, 3);
    // `next` is below n < 2^58, so the shift adds 0; but the address waits
    // for the load before it, so the loads do not overlap.
    at = l[order[i] + (at >> 58)].next;
  }
  const auto stop = std::chrono::steady_clock::now();
  if (at == ~std::uint64_t{0}) std::fprintf(stderr, " ");  // keeps the walk observable
  return std::chrono::duration<double, std::nano>(stop - start).count() / static_cast<double>(misses);
}

double best_ns_per_miss(const mlp_probe& probe, std::size_t* best_chains) {
  double best = 1e300;
  for (std::size_t chains : {12u, 16u, 20u, 24u, 32u, 40u, 48u, 64u}) {
    const double ns = probe.ns_per_miss(chains, 2'000'000);
    if (ns < best) {
      best = ns;
      if (best_chains != nullptr) *best_chains = chains;
    }
  }
  return best;
}

}  // namespace weave::bench
