#pragma once
// Cache sizes measured, not believed. The OS's figures are a hint: glibc's
// sysconf derives them from cpuid, which on virtual machines can be far off
// (one VM says its L3 is 508 MiB, and then every table "fits in cache"). A
// latency probe finds the sizes at which a random access stops being cheap,
// the result is kept per machine in a small file, and WEAVE_CACHE_SIZES
// overrides both. machine::caches() (machine.hpp) says which figures are in
// use and where they came from; this header holds the parts it is built of.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weave/memory/machine.hpp"

namespace weave::machine {

// One working-set size of the probe and the median time of a dependent load
// over it (a random cyclic chain, one pointer per cache line).
struct latency_point {
  std::size_t bytes = 0;
  double ns = 0;
};

// Where a random access stops being cheap; 0 where the curve does not say
// (no L1 level; for the last cache, memory not reached).
struct cache_boundaries {
  std::size_t l1d_bytes = 0;
  std::size_t llc_bytes = 0;
  // The largest sizes reached a stable, memory-level latency, so the curve
  // says where the last cache ends (the probe stops there).
  bool memory_reached = false;
};

// The boundary rule, applied to a latency curve with increasing sizes. On a
// shared machine the curve is noisy where the last cache ends: other
// processes' misses evict the probe's lines (a spike) and then go quiet (a
// dip, where the probe briefly has more of the cache). So each boundary is
// where a threshold splits the curve best, cheap below and dear above, not
// where it is first crossed:
//  1. L1d: cheap means within 1.5x of the L1 level (the median of the three
//     smallest sizes).
//  2. Memory is reached when the three largest sizes are within 1.5x of
//     one another and all at least 50 ns (slower than a hit in any cache we
//     know of, even a server's mesh L3 in a VM; faster than a DRAM miss on
//     all but a tuned desktop, where the probe then finds no LLC and the OS's
//     figure stands). Their median is memory's latency.
//  3. LLC, once memory is reached: cheap means at most memory's latency / 2.5
//     (an L3 hit costs a third of a miss or less on the CPUs we know), split
//     among the sizes above L1d. The split stands where the curve rises
//     gradually too, with no clear step. A VM's share of a last cache that
//     neighbours also fill looks like that (an Intel VM whose OS says 480 MiB
//     took 50 ns a load at 8 MiB, 70 at 32 and 140 from 48 MiB on): past the
//     split a load costs most of a miss, and the OS's figure would count
//     structures of a hundred MiB as cached and run them without interleaving.
// On a tie the smaller split wins (a last cache taken too small costs a few
// suspensions on cached data; too large, interleaving where it pays most).
// The figures are the largest sizes measured cheap, so they may fall short
// of the true size by one step of the curve (1.5x). On a gradual rise the
// last cache's figure is where a load starts to cost most of a miss, not a
// cache's size, and it may fall shorter: the probe stops at three sizes in a
// row within 1.5x of one another, which a rise of 1.2x a step also is, so
// memory's latency and the split may come out low (a last cache taken too
// small, the cheaper error).
cache_boundaries find_boundaries(std::span<const latency_point> curve);

struct probe_options {
  std::size_t min_bytes = std::size_t{4} << 10;
  std::size_t max_bytes = std::size_t{256} << 20;  // lowered to a quarter of the available memory
  std::size_t sweeps = 3;                          // over every size, one after the other
  std::size_t passes = 3;                          // per size and sweep; the median of all counts
  double pass_ns = 0.5e6;                          // about this long each
  bool stop_at_memory = true;                      // false: measure every size up to max_bytes
};

struct probe_result {
  std::vector<latency_point> curve;
  cache_boundaries found;
  double seconds = 0;  // the probe's own run time
  // How many CPUs other processes kept busy meanwhile, on average (from
  // /proc/stat; -1 if unknown). They share the last-level cache, so a busy
  // machine makes it look smaller than it is.
  double others_cpus = -1;
  bool disturbed() const noexcept { return others_cpus > 0.5; }
};

// Runs the pointer chase over sizes min_bytes * {1, 1.5, 2, 3, 4, ...} up to
// max_bytes, stopping once memory is reached (see find_boundaries), then
// sweeps those sizes again; each size's latency is the median of all its
// passes, so interference that lasts a sweep is outvoted. It runs in a
// buffer with transparent huge pages where the kernel gives them (a random
// chase over 4 KiB pages would measure page walks beyond a few MiB). Takes a
// few hundred milliseconds; times are the thread's CPU time, so being
// descheduled does not count.
probe_result probe_caches(const probe_options& options = {});

// WEAVE_CACHE_SIZES: "l1d=48K,llc=32M", either key alone or both, in any
// order. A size is a decimal number of bytes with an optional binary suffix,
// case-insensitive: K, Ki or KiB (1024), M, Mi or MiB (1024^2), G, Gi or GiB
// (1024^3). Each size must be between 1 KiB and 1 TiB, and l1d <= llc when
// both are given. Anything else throws std::invalid_argument with a one-line
// message that names the variable. An empty text gives no override.
struct cache_override {
  std::size_t l1d_bytes = 0;  // 0: not given
  std::size_t llc_bytes = 0;
};
cache_override parse_cache_override(std::string_view text);
inline constexpr const char* cache_override_variable = "WEAVE_CACHE_SIZES";

// The OS's figures: sysfs (cpu0's level-1 data cache and its highest-level
// data or unified cache), else sysconf; 0 where neither says.
struct os_cache_sizes {
  std::size_t l1d_bytes = 0;
  std::size_t llc_bytes = 0;
};
os_cache_sizes os_caches() noexcept;

// The figures in use, from what each source said: an override wins; else an
// OS figure that the probe confirms within a factor of 2 (the OS's is exact;
// the probe's is a step of its curve); else the probe's where it found a
// boundary; else the OS's; else 32 KiB and 8 MiB. An override that leaves
// l1d larger than llc throws std::invalid_argument naming the variable; two
// other figures that do are settled by taking the OS's llc where it is no
// smaller than l1d, else l1d for llc.
cache_sizes decide_caches(const os_cache_sizes& os, const cache_boundaries* probe,
                          const cache_override& given, cache_sizes::probe_state state);

// The per-machine file of probe results. The key names the machine as the
// probe sees it: the CPU model (/proc/cpuinfo) and the OS's cache figures,
// and the probe's version. The host name is left out on purpose: containers
// get a new one on every start (they would re-probe every time), a renamed
// host has the same caches, and identical nodes sharing a home directory
// would measure the same. A machine whose VM moves to a host with another
// CPU model gets another key.
std::string cache_file_key(const os_cache_sizes& os);
// $XDG_CACHE_HOME/weave, else $HOME/.cache/weave (empty path when neither is set).
std::filesystem::path cache_directory();
// <directory>/cache-sizes-<16 hex digits of the key's hash>
std::filesystem::path cache_file_path(const std::filesystem::path& directory, std::string_view key);
// The results stored under `key`, or nothing when the file is missing,
// unreadable, corrupt or written for another key, or gives a size that
// WEAVE_CACHE_SIZES would refuse (other than 0, which means none found).
std::optional<probe_result> read_cache_file(const std::filesystem::path& file, std::string_view key) noexcept;
// Writes atomically (a temporary file renamed over it), creating the
// directory; false if anything fails.
bool write_cache_file(const std::filesystem::path& file, std::string_view key,
                      const probe_result& result) noexcept;

// "os", "probe", "env" (WEAVE_CACHE_SIZES) or "default".
const char* source_name(cache_sizes::source source) noexcept;
// "none", "measured", "cached" or "busy".
const char* probe_state_name(cache_sizes::probe_state state) noexcept;
// One JSON object for a benchmark's context, e.g.
// {"l1d":32768,"l1d_source":"os","llc":33554432,"llc_source":"os","os_l1d":32768,
//  "os_llc":33554432,"probe":"cached","probe_l1d":32768,"probe_llc":25165824}
// (probe_l1d and probe_llc only when the probe ran; 0 there: no boundary found).
std::string describe(const cache_sizes& sizes);

}  // namespace weave::machine
