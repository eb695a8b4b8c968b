#include "weave/memory/machine.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "weave/memory/cache_probe.hpp"

namespace weave::machine {

namespace {

// How long a process waits for another that is probing the same machine
// before it probes on its own.
constexpr auto lock_patience = std::chrono::seconds(10);

// Holds an exclusive lock on a file while alive, if it can get one in time.
class file_lock {
 public:
  explicit file_lock(const std::filesystem::path& path) noexcept {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return;
    const auto give_up = std::chrono::steady_clock::now() + lock_patience;
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) break;
      if (std::chrono::steady_clock::now() > give_up) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;
  ~file_lock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }

 private:
  int fd_ = -1;
};

cache_sizes compute_caches(bool measure) {
  const os_cache_sizes os = os_caches();
  cache_override given;
  if (const char* text = std::getenv(cache_override_variable); text != nullptr) {
    if (measure) {
      given = parse_cache_override(text);
    } else {
      try {
        given = parse_cache_override(text);
      } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "weave: ignored %s\n", e.what());
      }
    }
  }
  using state = cache_sizes::probe_state;
  // An override the machine's other figure contradicts is refused like a
  // malformed one: it throws where the caller measures, else it is ignored.
  const auto decide = [&](const cache_boundaries* probe, state s) {
    if (measure) return decide_caches(os, probe, given, s);
    try {
      return decide_caches(os, probe, given, s);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "weave: ignored %s\n", e.what());
      return decide_caches(os, probe, {}, s);
    }
  };
  if (given.l1d_bytes != 0 && given.llc_bytes != 0) return decide(nullptr, state::none);

  const std::string key = cache_file_key(os);
  const std::filesystem::path directory = cache_directory();
  const std::filesystem::path file = directory.empty() ? directory : cache_file_path(directory, key);
  if (!file.empty()) {
    if (const auto kept = read_cache_file(file, key))
      return decide(&kept->found, state::cached);
  }
  if (!measure) return decide(nullptr, state::none);

  // One process probes at a time, so that two weave commands started
  // together neither measure each other nor both pay for it.
  std::optional<file_lock> lock;
  if (!file.empty()) {
    std::error_code error;
    std::filesystem::create_directories(directory, error);
    std::filesystem::path lock_path = file;
    lock_path += ".lock";
    if (!error) lock.emplace(lock_path);
    if (const auto kept = read_cache_file(file, key))
      return decide(&kept->found, state::cached);
  }
  const probe_result measured = probe_caches();
  if (measured.disturbed()) return decide(&measured.found, state::busy);
  if (!file.empty() && !measured.curve.empty()) write_cache_file(file, key, measured);
  return decide(&measured.found, state::measured);
}

}  // namespace

const cache_sizes& detail::resolve_caches(bool measure) {
  static const cache_sizes sizes = [measure] {
    if (measure) return compute_caches(true);
    try {
      return compute_caches(false);
    } catch (...) {  // out of memory reading a file: the OS's figures
      return decide_caches(os_caches(), nullptr, {}, cache_sizes::probe_state::none);
    }
  }();
  return sizes;
}

const cache_sizes& measure_caches() { return detail::resolve_caches(true); }

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
