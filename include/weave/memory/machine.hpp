#pragma once
// Facts about this machine that data structures use to decide where a miss is
// likely, and that the command line uses to refuse what cannot fit.

#include <cstddef>
#include <vector>

namespace weave::machine {

inline constexpr std::size_t cache_line = 64;

// The cache sizes the adaptive rules use (hot_levels, fits_in_cache), and
// where each came from.
struct cache_sizes {
  enum class source { os, probe, override, fallback };
  // none: not run; measured: run now (and kept); cached: read from the
  // machine's file; busy: run now while other processes kept the CPUs busy,
  // so used for this process only and not kept (they share the last-level
  // cache and make it look smaller).
  enum class probe_state { none, measured, cached, busy };
  std::size_t l1d_bytes = 0;
  std::size_t llc_bytes = 0;
  source l1d_source = source::fallback;
  source llc_source = source::fallback;
  // For reporting: what the OS said (0: nothing) and what the probe found
  // (0: no boundary found, or the probe did not run).
  std::size_t os_l1d_bytes = 0;
  std::size_t os_llc_bytes = 0;
  std::size_t probe_l1d_bytes = 0;
  std::size_t probe_llc_bytes = 0;
  probe_state probe = probe_state::none;
};

namespace detail {
const cache_sizes& resolve_caches(bool measure);
}  // namespace detail

// The cache sizes in use, fixed by the first call here or to measure_caches().
// The figures come from, in order: WEAVE_CACHE_SIZES (see cache_probe.hpp);
// the latency probe's results kept for this machine by an earlier
// measure_caches(), checked against the OS's figures; the OS's figures; 32 KiB
// and 8 MiB. This never runs the probe itself: a library should not spend a
// few hundred milliseconds inside a data structure's constructor without
// being asked, and its figures then depend only on the environment and on
// files a program chose to write. A bad WEAVE_CACHE_SIZES is reported on
// stderr (one line) and ignored here, since this cannot throw.
inline const cache_sizes& caches() noexcept {
  static const cache_sizes& sizes = detail::resolve_caches(false);
  return sizes;
}

// Fixes the cache sizes as caches() would, except that without a kept result
// it runs the latency probe (a few hundred milliseconds, once per machine) and
// keeps its result in the user's cache directory (see cache_probe.hpp); a
// result measured while other processes kept the CPUs busy is used but not
// kept, so a machine that is always busy probes every time. The weave command
// calls it before running a command; a program should call it before building
// anything that asks for the sizes, since once they are fixed this only
// returns them. Throws std::invalid_argument when WEAVE_CACHE_SIZES cannot be
// read.
const cache_sizes& measure_caches();

// Per-core L1 data cache size in bytes.
inline std::size_t l1d_bytes() noexcept { return caches().l1d_bytes; }

// Last-level cache size in bytes.
inline std::size_t llc_bytes() noexcept { return caches().llc_bytes; }

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
