#pragma once
// Facts about this machine that data structures use to decide where a miss is
// likely, and that the command line uses to refuse what cannot fit.

#include <cstddef>
#include <vector>

namespace weave::machine {

inline constexpr std::size_t cache_line = 64;

namespace detail {
std::size_t read_l1d_bytes() noexcept;
std::size_t read_llc_bytes() noexcept;
}  // namespace detail

// Per-core L1 data cache size in bytes (32 KiB when the OS does not say).
inline std::size_t l1d_bytes() noexcept {
  static const std::size_t bytes = detail::read_l1d_bytes();
  return bytes;
}

// Last-level cache size in bytes (8 MiB when the OS does not say).
inline std::size_t llc_bytes() noexcept {
  static const std::size_t bytes = detail::read_llc_bytes();
  return bytes;
}

// The CPUs this process may run on (its affinity mask, as taskset or a
// container sets it), in increasing order, read when first asked.
const std::vector<int>& allowed_cpus();
// The CPU that thread `index` of a pool runs on: the index-th allowed CPU,
// modulo their number.
int cpu_for(std::size_t index);
// Pins the calling thread to cpu_for(index).
void pin_thread(std::size_t index) noexcept;

// Memory the kernel says can still be given to a process (MemAvailable).
std::size_t available_bytes() noexcept;

// How many top levels of a search structure whose level k holds
// `fanout`^k nodes of `node_bytes` stay in the L1 data cache (the root at
// least), where a probe costs less than a suspension.
unsigned hot_levels(std::size_t fanout, std::size_t node_bytes) noexcept;

// Whether a structure of `bytes` stays in the last-level cache alongside
// others (a quarter of it): then its accesses are not worth a suspension.
inline bool fits_in_cache(std::size_t bytes) noexcept { return bytes <= llc_bytes() / 4; }

}  // namespace weave::machine
