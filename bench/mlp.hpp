#pragma once
// The memory system's ceiling: how long one random DRAM miss takes, and how
// much of that K independent chains of misses overlap. Each chain walks a
// random cycle through a buffer of cache lines, so every step is a miss the
// hardware cannot predict.

#include <cstddef>
#include <memory>
#include <vector>

namespace weave::bench {

struct mlp_point {
  std::size_t chains;
  double ns_per_miss;  // wall time / total misses
};

class mlp_probe {
 public:
  static constexpr std::size_t min_bytes = std::size_t{64} << 10;  // 1024 lines
  // Lays a random cycle through `bytes` of cache lines (progress on stderr when verbose).
  mlp_probe(std::size_t bytes, bool verbose);
  ~mlp_probe();
  mlp_probe(const mlp_probe&) = delete;
  mlp_probe& operator=(const mlp_probe&) = delete;

  // Nanoseconds per miss with `chains` chains in flight (1..64). With
  // `lines` above 1 (2, 4, 8 or 16), a step reads the aligned block of that
  // many lines around the line it is at, as a B+-tree step reads a node:
  // the time is then per step.
  double ns_per_miss(std::size_t chains, std::size_t misses = 4'000'000, std::size_t lines = 1) const;

  // Nanoseconds per miss of one chain whose every load waits for the one
  // before, with a software prefetch issued `distance` loads ahead (0: none).
  // The chain's addresses are drawn in advance, so the prefetch knows them:
  // where prefetches land the chain runs as fast as independent misses do,
  // and where the machine drops them it runs at one miss's latency whatever
  // the distance.
  double ns_per_prefetched_miss(std::size_t distance, std::size_t misses = 1'000'000) const;

  std::size_t bytes() const noexcept;

  // Whether ns_per_miss takes `lines` lines per step.
  static bool block_lines_supported(std::size_t lines) noexcept {
    return lines == 1 || lines == 2 || lines == 4 || lines == 8 || lines == 16;
  }

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// The best ns per miss over 12 to 64 chains (a Zen 5 VM still gains from 48
// to 64): what the lookup ceilings use;
// the chain count that reached it in `best_chains` (the misses in flight
// beyond which more do not pay).
double best_ns_per_miss(const mlp_probe& probe, std::size_t* best_chains = nullptr);

}  // namespace weave::bench
