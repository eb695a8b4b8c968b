#include "weave/memory/machine.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

namespace weave::machine {

std::size_t detail::read_l2_bytes() noexcept {
  const long v = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
  return v > 0 ? static_cast<std::size_t>(v) : std::size_t{256} << 10;
}

std::size_t detail::read_llc_bytes() noexcept {
  const long v = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
  return v > 0 ? static_cast<std::size_t>(v) : std::size_t{8} << 20;
}

std::size_t available_bytes() noexcept {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t value = 0;
  std::string unit;
  while (meminfo >> key >> value >> unit) {
    if (key == "MemAvailable:") return value * 1024;
  }
  const long pages = ::sysconf(_SC_AVPHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

unsigned hot_levels(std::size_t fanout, std::size_t node_bytes) noexcept {
  // A level stays cached only if its lines are reused before the lookups in
  // flight evict them; at 2 GiB, levels sized to fill L2 measured slower than
  // suspending almost everywhere (docs/results/lookups.md), so only the few
  // lines of the very top count as hot.
  const std::size_t budget = l2_bytes() / 256;
  std::size_t level_bytes = node_bytes;
  std::size_t total = 0;
  unsigned levels = 0;
  while (total + level_bytes <= budget && levels < 64) {
    total += level_bytes;
    level_bytes *= fanout;
    ++levels;
  }
  return levels;
}

}  // namespace weave::machine
