#include "weave/memory/machine.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace weave::machine {

namespace {

// Size in bytes of cpu0's cache at `level` as sysfs describes it (data or
// unified, not instruction), or 0 when sysfs does not say. sysfs comes first
// because glibc's sysconf derives sizes from cpuid and can be far off on
// virtual machines (one of ours reports a 320 MiB L3 that sysfs calls 32 MiB).
std::size_t sysfs_cache_bytes(unsigned level) noexcept {
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level");
    if (!level_file) break;
    unsigned this_level = 0;
    std::string type;
    std::string size;
    level_file >> this_level;
    std::ifstream(dir + "type") >> type;
    std::ifstream(dir + "size") >> size;
    if (this_level != level || type == "Instruction" || size.empty()) continue;
    std::size_t bytes = 0;
    std::size_t i = 0;
    for (; i < size.size() && size[i] >= '0' && size[i] <= '9'; ++i) bytes = bytes * 10 + static_cast<std::size_t>(size[i] - '0');
    const char unit = i < size.size() ? size[i] : 'B';
    if (unit == 'K') bytes <<= 10;
    else if (unit == 'M') bytes <<= 20;
    else if (unit == 'G') bytes <<= 30;
    return bytes;
  }
  return 0;
}

std::size_t cache_bytes(unsigned level, int sysconf_name, std::size_t fallback) noexcept {
  if (const std::size_t bytes = sysfs_cache_bytes(level)) return bytes;
  const long v = ::sysconf(sysconf_name);
  return v > 0 ? static_cast<std::size_t>(v) : fallback;
}

}  // namespace

std::size_t detail::read_l1d_bytes() noexcept { return cache_bytes(1, _SC_LEVEL1_DCACHE_SIZE, std::size_t{32} << 10); }

std::size_t detail::read_llc_bytes() noexcept { return cache_bytes(3, _SC_LEVEL3_CACHE_SIZE, std::size_t{8} << 20); }

const std::vector<int>& allowed_cpus() {
  static const std::vector<int> cpus = [] {
    std::vector<int> out;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0) {
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
    }
    if (out.empty()) {  // no mask to read: every CPU the OS counts
      const unsigned n = std::max(1u, std::thread::hardware_concurrency());
      for (unsigned cpu = 0; cpu < n; ++cpu) out.push_back(static_cast<int>(cpu));
    }
    return out;
  }();
  return cpus;
}

int cpu_for(std::size_t index) {
  const std::vector<int>& cpus = allowed_cpus();
  return cpus[index % cpus.size()];
}

void pin_thread(std::size_t index) noexcept {
  try {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu_for(index), &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  } catch (...) {  // allocation failed while reading the mask: the thread stays unpinned
  }
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
  // A level is worth running without suspending only while its probes hit
  // L1: a chain of dependent L2 hits (about 16 cycles each) costs more than
  // suspending on them, and lines are reused only if the lookups in flight
  // do not evict them first, so the top levels may take a sixty-fourth of
  // L1 (binary search on 2 GiB: three levels with a 48 KiB L1, 313 ns a
  // lookup against 397 ns with the seven that a 2 MiB L2 gave; see
  // docs/results/lookups.md). A root node is hot whatever its size: every
  // operation reads it.
  const std::size_t budget = std::max(l1d_bytes() / 64, node_bytes);
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
