#include "weave/memory/cache_probe.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace weave::machine {

namespace {

constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::size_t GiB = std::size_t{1} << 30;
constexpr std::size_t TiB = std::size_t{1} << 40;

// ---------------------------------------------------------------------------
// The boundary rule (see find_boundaries in the header).

constexpr double l1_tolerance = 1.5;      // an L1 hit: within this factor of the smallest sizes' latency
constexpr double stable_tolerance = 1.5;  // memory's latency: the largest sizes within this factor
constexpr double memory_floor_ns = 50;    // slower than a cache hit, faster than a DRAM miss
constexpr double memory_to_cache = 2.5;   // a last-level hit is at least this much faster than memory

// ---------------------------------------------------------------------------
// The probe.

// One cache line of the chain: the address of the next line to load.
struct alignas(cache_line) chain_line {
  const chain_line* next;
};
static_assert(sizeof(chain_line) == cache_line);

// A random bijection on [0, n): a four-round Feistel network on the smallest
// even number of bits that covers n, walking the cycle until it lands inside
// [0, n). The chain visits lines in the order 0 -> p(0) -> ... which no
// prefetcher can follow, and computing it needs no shuffled array (whose own
// misses would cost more than the probe).
class random_permutation {
 public:
  random_permutation(std::size_t n, std::uint64_t seed) noexcept : n_(n) {
    unsigned bits = 2;
    while (bits < 62 && (std::uint64_t{1} << bits) < n) bits += 2;
    half_ = bits / 2;
    mask_ = (std::uint64_t{1} << half_) - 1;
    for (std::uint64_t& key : keys_) key = seed = mix(seed + 0x9e3779b97f4a7c15ull);
  }
  std::size_t operator()(std::size_t x) const noexcept {
    std::uint64_t y = x;
    do y = encrypt(y);
    while (y >= n_);
    return static_cast<std::size_t>(y);
  }

 private:
  static std::uint64_t mix(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t encrypt(std::uint64_t x) const noexcept {
    std::uint64_t left = x >> half_;
    std::uint64_t right = x & mask_;
    for (const std::uint64_t key : keys_) {
      const std::uint64_t next = left ^ (mix(right ^ key) & mask_);
      left = right;
      right = next;
    }
    return (left << half_) | right;
  }

  std::uint64_t n_;
  unsigned half_ = 1;
  std::uint64_t mask_ = 1;
  std::uint64_t keys_[4] = {};
};

// Links lines [0, n) into one random cycle; every line is written, so lines
// of a chain that fits in a cache are in it afterwards.
void build_chain(chain_line* lines, std::size_t n, std::uint64_t seed) noexcept {
  const random_permutation order(n, seed);
  const std::size_t first = order(0);
  std::size_t current = first;
  for (std::size_t k = 1; k < n; ++k) {
    const std::size_t next = order(k);
    lines[current].next = &lines[next];
    current = next;
  }
  lines[current].next = &lines[first];
}

// `loads` dependent loads (a multiple of 8) from p; returns where it stopped.
[[gnu::noinline]] const chain_line* chase(const chain_line* p, std::size_t loads) noexcept {
  for (std::size_t i = 0; i < loads; i += 8) {
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
    p = p->next;
  }
  return p;
}

// Where the last chase stopped: the loads are kept because their end is.
const void* volatile probe_sink = nullptr;

double thread_ns() noexcept {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// Anonymous memory aligned to 2 MiB with transparent huge pages asked for, so
// that a random chase over a few hundred MiB misses the caches, not the TLB.
class probe_buffer {
 public:
  explicit probe_buffer(std::size_t bytes) noexcept {
    const std::size_t huge = 2 * MiB;
    void* p = ::mmap(nullptr, bytes + huge, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return;
    map_ = p;
    map_bytes_ = bytes + huge;
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (address + huge - 1) & ~static_cast<std::uintptr_t>(huge - 1);
    data_ = reinterpret_cast<chain_line*>(aligned);
    ::madvise(data_, bytes, MADV_HUGEPAGE);
  }
  probe_buffer(const probe_buffer&) = delete;
  probe_buffer& operator=(const probe_buffer&) = delete;
  ~probe_buffer() {
    if (map_ != nullptr) ::munmap(map_, map_bytes_);
  }
  chain_line* data() const noexcept { return data_; }

 private:
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  chain_line* data_ = nullptr;
};

// CPU time all processes have spent so far, in ns (/proc/stat's cpu line:
// all but idle and iowait), or -1.
double machine_busy_ns() noexcept {
  try {
    std::ifstream stat("/proc/stat");
    std::string cpu;
    stat >> cpu;
    if (cpu != "cpu") return -1;
    double busy = 0;
    for (int field = 0; field < 8; ++field) {
      double ticks = 0;
      if (!(stat >> ticks)) return -1;
      if (field != 3 && field != 4) busy += ticks;  // idle, iowait
    }
    const long hz = ::sysconf(_SC_CLK_TCK);
    return hz > 0 ? busy * 1e9 / static_cast<double>(hz) : -1;
  } catch (...) {
    return -1;
  }
}

double process_ns() noexcept {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// ---------------------------------------------------------------------------
// Reading sizes.

bool ieq(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The text as it can appear inside a one-line message.
std::string printable(std::string_view s) {
  std::string out;
  for (const char c : s) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return out;
}

[[noreturn]] void bad_override(std::string_view text, const std::string& what) {
  throw std::invalid_argument(std::string(cache_override_variable) + "=\"" + printable(text) + "\": " + what +
                              " (expected e.g. l1d=48K,llc=32M; K, M, G mean 1024, 1024^2, 1024^3)");
}

std::size_t parse_override_size(std::string_view text, std::string_view key, std::string_view value) {
  std::size_t number = 0;
  const char* begin = value.data();
  const char* end = value.data() + value.size();
  const auto [stop, ec] = std::from_chars(begin, end, number);
  if (stop == begin) bad_override(text, "the size of " + std::string(key) + " is not a number");
  // As on the command line: "010" is no clearer as ten than as eight.
  if (value.size() > 1 && value[0] == '0' && stop - begin > 1)
    bad_override(text, "the size of " + std::string(key) + " has a leading zero");
  const std::string_view suffix(stop, static_cast<std::size_t>(end - stop));
  struct unit {
    std::string_view name;
    std::size_t factor;
  };
  static constexpr unit units[] = {{"", 1},     {"K", KiB},   {"Ki", KiB}, {"KiB", KiB}, {"M", MiB},
                                   {"Mi", MiB}, {"MiB", MiB}, {"G", GiB},  {"Gi", GiB},  {"GiB", GiB}};
  for (const unit& u : units) {
    if (!ieq(suffix, u.name)) continue;
    if (ec == std::errc::result_out_of_range || number > TiB / u.factor || number * u.factor > TiB) {
      bad_override(text, "the size of " + std::string(key) + " is larger than 1 TiB");
    }
    if (number * u.factor < KiB)
      bad_override(text, "the size of " + std::string(key) + " is less than 1 KiB");
    return number * u.factor;
  }
  bad_override(text,
               "the size of " + std::string(key) + " has an unknown suffix '" + printable(suffix) + "'");
}

// ---------------------------------------------------------------------------
// The OS's figures.

std::size_t parse_sysfs_size(const std::string& size) noexcept {
  std::size_t bytes = 0;
  std::size_t i = 0;
  for (; i < size.size() && size[i] >= '0' && size[i] <= '9'; ++i) {
    bytes = bytes * 10 + static_cast<std::size_t>(size[i] - '0');
  }
  const char unit = i < size.size() ? size[i] : 'B';
  if (unit == 'K')
    bytes <<= 10;
  else if (unit == 'M')
    bytes <<= 20;
  else if (unit == 'G')
    bytes <<= 30;
  return bytes;
}

// ---------------------------------------------------------------------------
// The cache file.

constexpr std::string_view file_header = "weave cache sizes 1";
constexpr std::size_t max_file_bytes = 64 * KiB;

std::uint64_t fnv1a(std::string_view s) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

bool parse_unsigned(std::string_view s, std::size_t& out) noexcept {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && end == s.data() + s.size() && !s.empty();
}

// A cache size in the file: none (0), or what WEAVE_CACHE_SIZES accepts
// (1 KiB to 1 TiB); the probe's smallest size is 4 KiB.
bool parse_size(std::string_view s, std::size_t& out) noexcept {
  return parse_unsigned(s, out) && (out == 0 || (out >= KiB && out <= TiB));
}

bool parse_double(std::string_view s, double& out) noexcept {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && end == s.data() + s.size() && !s.empty() && out >= 0 && out < 1e9;
}

}  // namespace

cache_boundaries find_boundaries(std::span<const latency_point> curve) {
  cache_boundaries found;
  const std::size_t n = curve.size();
  if (n < 3) return found;
  const auto median3 = [](double a, double b, double c) {
    return std::max(std::min(a, b), std::min(std::max(a, b), c));
  };
  // The split of [from, n) into cheap [from, end) and dear [end, n) with the
  // fewest sizes on the wrong side (the first such end on a tie).
  const auto split = [&](std::size_t from, double cheap_ns) {
    std::size_t wrong = 0;
    for (std::size_t i = from; i < n; ++i)
      wrong += curve[i].ns <= cheap_ns;  // end = from: every cheap size is wrong
    std::size_t best = wrong;
    std::size_t best_end = from;
    for (std::size_t end = from + 1; end <= n; ++end) {
      if (curve[end - 1].ns <= cheap_ns)
        --wrong;
      else
        ++wrong;
      if (wrong < best) {
        best = wrong;
        best_end = end;
      }
    }
    return best_end;
  };

  const double l1_ns = median3(curve[0].ns, curve[1].ns, curve[2].ns);
  const std::size_t l1_end = split(0, l1_ns * l1_tolerance);
  if (l1_end == 0 || l1_end == n) return found;
  found.l1d_bytes = curve[l1_end - 1].bytes;

  const double a = curve[n - 3].ns, b = curve[n - 2].ns, c = curve[n - 1].ns;
  found.memory_reached =
      std::min({a, b, c}) >= memory_floor_ns && std::max({a, b, c}) <= stable_tolerance * std::min({a, b, c});
  if (!found.memory_reached) return found;
  const double memory_ns = median3(a, b, c);
  const std::size_t llc_end = split(l1_end, memory_ns / memory_to_cache);
  if (llc_end == l1_end) return found;  // (the three largest sizes are never cheap)
  found.llc_bytes = curve[llc_end - 1].bytes;
  return found;
}

probe_result probe_caches(const probe_options& options) {
  const auto start = std::chrono::steady_clock::now();
  const double busy_before = machine_busy_ns();
  const double own_before = process_ns();
  probe_result result;
  std::size_t max_bytes = options.max_bytes;
  if (const std::size_t available = available_bytes(); available > 0) {
    max_bytes = std::min(max_bytes, available / 4);
  }
  const std::size_t min_bytes = std::max(options.min_bytes, 2 * cache_line) / cache_line * cache_line;
  if (max_bytes < min_bytes) return result;
  const probe_buffer buffer(max_bytes);
  if (buffer.data() == nullptr) return result;

  // Times `passes` chases over the first `bytes` of the buffer, each of about
  // options.pass_ns given a latency near `estimate_ns`, into `times`.
  const std::size_t passes = std::max<std::size_t>(options.passes, 1);
  const auto measure = [&](std::size_t bytes, std::uint64_t seed, double estimate_ns,
                           std::vector<double>& times) {
    build_chain(buffer.data(), bytes / cache_line, seed);
    const double wanted = options.pass_ns / estimate_ns;
    const auto loads = static_cast<std::size_t>(std::clamp(wanted, double{1 << 12}, double{1 << 20})) / 8 * 8;
    const chain_line* p = chase(buffer.data(), loads / 4 / 8 * 8);  // settles the TLB and predictors
    for (std::size_t pass = 0; pass < passes; ++pass) {
      const double before = thread_ns();
      p = chase(p, loads);
      times.push_back((thread_ns() - before) / static_cast<double>(loads));
    }
    probe_sink = p;
  };
  const auto median = [](std::vector<double> times) {
    std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2),
                     times.end());
    return times[times.size() / 2];
  };

  // The first sweep finds how far to go; the others measure the same sizes
  // again, later, so that a neighbour busy for one sweep is outvoted. If the
  // medians no longer show memory reached, the probe goes on as far as it
  // needs, with every sweep's passes at once.
  const std::size_t sweeps = std::max<std::size_t>(options.sweeps, 1);
  const auto size_at = [&](std::size_t step) {  // min, 1.5 min, 2 min, 3 min, 4 min, ...
    if (step >= 2 * 40) return std::size_t{0};
    const std::size_t base = min_bytes << (step / 2);
    const std::size_t bytes = (step % 2 == 0 ? base : base + base / 2) / cache_line * cache_line;
    return base > max_bytes || bytes > max_bytes ? 0 : bytes;
  };
  std::vector<std::vector<double>> times;
  const auto memory_reached = [&] {
    return options.stop_at_memory && find_boundaries(result.curve).memory_reached;
  };
  const auto extend = [&](std::size_t repeat) {
    for (std::size_t step = result.curve.size(); !memory_reached(); ++step) {
      const std::size_t bytes = size_at(step);
      if (bytes == 0) break;
      const double estimate_ns = result.curve.empty() ? 1 : result.curve.back().ns;
      times.emplace_back();
      for (std::size_t r = 0; r < repeat; ++r)
        measure(bytes, 0x5eed + step + 100 * r, estimate_ns, times.back());
      result.curve.push_back({bytes, std::max(median(times.back()), 0.1)});
    }
  };
  extend(1);
  for (std::size_t sweep = 1; sweep < sweeps; ++sweep) {
    for (std::size_t i = 0; i < result.curve.size(); ++i) {
      measure(result.curve[i].bytes, 0x5eed + i + 100 * sweep, result.curve[i].ns, times[i]);
    }
  }
  for (std::size_t i = 0; i < result.curve.size(); ++i) result.curve[i].ns = std::max(median(times[i]), 0.1);
  extend(sweeps);
  result.found = find_boundaries(result.curve);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (const double busy_after = machine_busy_ns();
      busy_before >= 0 && busy_after >= 0 && result.seconds > 0) {
    const double others = busy_after - busy_before - (process_ns() - own_before);
    result.others_cpus = std::max(others, 0.0) / (result.seconds * 1e9);
  }
  return result;
}

cache_override parse_cache_override(std::string_view text) {
  cache_override given;
  if (trim(text).empty()) return given;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (item.empty()) bad_override(text, "an empty item");
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      bad_override(text, "'" + printable(item) + "' is not key=size");
    }
    const std::string_view key = trim(item.substr(0, equals));
    const std::string_view value = trim(item.substr(equals + 1));
    std::size_t* slot = nullptr;
    if (ieq(key, "l1d"))
      slot = &given.l1d_bytes;
    else if (ieq(key, "llc"))
      slot = &given.llc_bytes;
    else
      bad_override(text, "unknown cache '" + printable(key) + "' (l1d or llc)");
    if (*slot != 0) bad_override(text, std::string(key) + " is given twice");
    *slot = parse_override_size(text, key, value);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (given.l1d_bytes != 0 && given.llc_bytes != 0 && given.l1d_bytes > given.llc_bytes) {
    bad_override(text, "l1d is larger than llc");
  }
  return given;
}

os_cache_sizes os_caches() noexcept {
  os_cache_sizes os;
  try {
    // sysfs first: glibc's sysconf derives sizes from cpuid and can be far off
    // on virtual machines (one of ours reports a 320 MiB L3 that sysfs calls
    // 32 MiB).
    unsigned llc_level = 0;
    for (int index = 0; index < 16; ++index) {
      const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
      std::ifstream level_file(dir + "level");
      if (!level_file) break;
      unsigned level = 0;
      std::string type;
      std::string size;
      level_file >> level;
      std::ifstream(dir + "type") >> type;
      std::ifstream(dir + "size") >> size;
      const std::size_t bytes = parse_sysfs_size(size);
      if (type == "Instruction" || bytes == 0) continue;
      if (level == 1 && os.l1d_bytes == 0) os.l1d_bytes = bytes;
      if (level > llc_level) {
        llc_level = level;
        os.llc_bytes = bytes;
      }
    }
    if (llc_level < 2) os.llc_bytes = 0;  // an L1 alone is not a last level worth the name
  } catch (...) {
    os = {};
  }
  const auto conf = [](int name) {
    const long v = ::sysconf(name);
    return v > 0 ? static_cast<std::size_t>(v) : std::size_t{0};
  };
  if (os.l1d_bytes == 0) os.l1d_bytes = conf(_SC_LEVEL1_DCACHE_SIZE);
  if (os.llc_bytes == 0) os.llc_bytes = conf(_SC_LEVEL4_CACHE_SIZE);
  if (os.llc_bytes == 0) os.llc_bytes = conf(_SC_LEVEL3_CACHE_SIZE);
  if (os.llc_bytes == 0) os.llc_bytes = conf(_SC_LEVEL2_CACHE_SIZE);
  return os;
}

cache_sizes decide_caches(const os_cache_sizes& os, const cache_boundaries* probe,
                          const cache_override& given, cache_sizes::probe_state state) {
  cache_sizes sizes;
  sizes.os_l1d_bytes = os.l1d_bytes;
  sizes.os_llc_bytes = os.llc_bytes;
  sizes.probe = probe != nullptr ? state : cache_sizes::probe_state::none;
  if (probe != nullptr) {
    sizes.probe_l1d_bytes = probe->l1d_bytes;
    sizes.probe_llc_bytes = probe->llc_bytes;
  }
  using source = cache_sizes::source;
  const auto pick = [](std::size_t given_bytes, std::size_t os_bytes, std::size_t probe_bytes,
                       std::size_t fallback, std::size_t& bytes, source& from) {
    if (given_bytes != 0) {
      bytes = given_bytes;
      from = source::override;
    } else if (os_bytes != 0 && probe_bytes != 0 && probe_bytes <= 2 * os_bytes &&
               os_bytes <= 2 * probe_bytes) {
      bytes = os_bytes;
      from = source::os;
    } else if (probe_bytes != 0) {
      bytes = probe_bytes;
      from = source::probe;
    } else if (os_bytes != 0) {
      bytes = os_bytes;
      from = source::os;
    } else {
      bytes = fallback;
      from = source::fallback;
    }
  };
  pick(given.l1d_bytes, os.l1d_bytes, sizes.probe_l1d_bytes, 32 * KiB, sizes.l1d_bytes, sizes.l1d_source);
  pick(given.llc_bytes, os.llc_bytes, sizes.probe_llc_bytes, 8 * MiB, sizes.llc_bytes, sizes.llc_source);
  if (sizes.l1d_bytes > sizes.llc_bytes) {
    // An override that contradicts the other figure is the user's mistake:
    // say so. Figures from the machine that contradict each other (a
    // probe's step below the OS's L1d) fall back to the OS's last cache
    // where it is no smaller than L1d, else to no cache past L1.
    if (sizes.l1d_source == source::override || sizes.llc_source == source::override) {
      const bool l1d_given = sizes.l1d_source == source::override;
      throw std::invalid_argument(
          std::string(cache_override_variable) + ": " + (l1d_given ? "l1d" : "llc") + " of " +
          std::to_string(l1d_given ? sizes.l1d_bytes : sizes.llc_bytes) + " bytes is " +
          (l1d_given ? "larger than the llc of " : "smaller than the l1d of ") +
          std::to_string(l1d_given ? sizes.llc_bytes : sizes.l1d_bytes) + " bytes (from the " +
          source_name(l1d_given ? sizes.llc_source : sizes.l1d_source) + "); give both");
    }
    if (os.llc_bytes >= sizes.l1d_bytes) {
      sizes.llc_bytes = os.llc_bytes;
      sizes.llc_source = source::os;
    } else {
      sizes.llc_bytes = sizes.l1d_bytes;
      sizes.llc_source = sizes.l1d_source;
    }
  }
  return sizes;
}

std::string cache_file_key(const os_cache_sizes& os) {
  std::string model;
  try {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    std::string part;  // CPUs whose cpuinfo has no model name (ARM) say who made them and which part
    while (std::getline(cpuinfo, line)) {
      const std::size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      const std::string_view name = trim(std::string_view(line).substr(0, colon));
      const std::string_view value = trim(std::string_view(line).substr(colon + 1));
      if (name == "model name") {
        model = value;
        break;
      }
      if ((name == "CPU implementer" || name == "CPU part") && part.find(name) == std::string::npos) {
        part += std::string(name) + " " + std::string(value) + " ";
      }
    }
    if (model.empty()) model = part;
  } catch (...) {
  }
  if (model.empty()) model = "unknown";
  return "probe=2;cpu=" + printable(model) + ";os_l1d=" + std::to_string(os.l1d_bytes) +
         ";os_llc=" + std::to_string(os.llc_bytes);
}

std::filesystem::path cache_directory() {
  // XDG: a relative XDG_CACHE_HOME is invalid and is ignored.
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::filesystem::path(xdg) / "weave";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    return std::filesystem::path(home) / ".cache" / "weave";
  }
  return {};
}

std::filesystem::path cache_file_path(const std::filesystem::path& directory, std::string_view key) {
  char name[32];
  std::snprintf(name, sizeof name, "cache-sizes-%016llx", static_cast<unsigned long long>(fnv1a(key)));
  return directory / name;
}

std::optional<probe_result> read_cache_file(const std::filesystem::path& file,
                                            std::string_view key) noexcept {
  try {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text(max_file_bytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got > max_file_bytes) return std::nullopt;
    text.resize(got);

    std::istringstream lines(text);
    std::string line;
    if (!std::getline(lines, line) || line != file_header) return std::nullopt;
    if (!std::getline(lines, line) || line != "key " + std::string(key)) return std::nullopt;
    probe_result result;
    bool have_l1d = false;
    bool have_llc = false;
    bool have_curve = false;
    while (std::getline(lines, line)) {
      const std::size_t space = line.find(' ');
      const std::string_view name = std::string_view(line).substr(0, space);
      const std::string_view value =
          space == std::string::npos ? std::string_view{} : std::string_view(line).substr(space + 1);
      if (name == "l1d" && !have_l1d) {
        have_l1d = parse_size(value, result.found.l1d_bytes);
        if (!have_l1d) return std::nullopt;
      } else if (name == "llc" && !have_llc) {
        have_llc = parse_size(value, result.found.llc_bytes);
        if (!have_llc) return std::nullopt;
      } else if (name == "memory_reached" && (value == "0" || value == "1")) {
        result.found.memory_reached = value == "1";
      } else if (name == "seconds" && parse_double(value, result.seconds)) {
      } else if (name == "curve" && !have_curve) {
        // "bytes:ns bytes:ns ...", sizes increasing
        have_curve = true;
        std::string_view rest = value;
        while (!rest.empty()) {
          const std::size_t end = std::min(rest.find(' '), rest.size());
          const std::string_view pair = rest.substr(0, end);
          rest.remove_prefix(std::min(end + 1, rest.size()));
          const std::size_t colon = pair.find(':');
          latency_point point;
          if (colon == std::string_view::npos || !parse_unsigned(pair.substr(0, colon), point.bytes) ||
              !parse_double(pair.substr(colon + 1), point.ns)) {
            return std::nullopt;
          }
          if (!result.curve.empty() && point.bytes <= result.curve.back().bytes) return std::nullopt;
          result.curve.push_back(point);
        }
      } else {
        return std::nullopt;
      }
    }
    if (!have_l1d || !have_llc || !have_curve) return std::nullopt;
    if (result.found.l1d_bytes != 0 && result.found.llc_bytes != 0 &&
        result.found.l1d_bytes > result.found.llc_bytes) {
      return std::nullopt;
    }
    return result;
  } catch (...) {
    return std::nullopt;
  }
}

bool write_cache_file(const std::filesystem::path& file, std::string_view key,
                      const probe_result& result) noexcept {
  try {
    std::error_code error;
    std::filesystem::create_directories(file.parent_path(), error);
    if (error) return false;
    std::ostringstream text;
    text << file_header << '\n' << "key " << key << '\n';
    text << "l1d " << result.found.l1d_bytes << '\n' << "llc " << result.found.llc_bytes << '\n';
    text << "memory_reached " << (result.found.memory_reached ? 1 : 0) << '\n';
    char number[32];
    std::snprintf(number, sizeof number, "%.4f", result.seconds);
    text << "seconds " << number << '\n' << "curve";
    for (const latency_point& point : result.curve) {
      std::snprintf(number, sizeof number, "%.3f", point.ns);
      text << ' ' << point.bytes << ':' << number;
    }
    text << '\n';
    const std::string contents = text.str();

    std::filesystem::path temporary = file;
    temporary += ".tmp." + std::to_string(::getpid());
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out << contents;
      out.flush();
      if (!out) {
        std::filesystem::remove(temporary, error);
        return false;
      }
    }
    std::filesystem::rename(temporary, file, error);
    if (error) {
      std::filesystem::remove(temporary, error);
      return false;
    }
    return true;
  } catch (...) {
    return false;
  }
}

const char* source_name(cache_sizes::source source) noexcept {
  switch (source) {
    case cache_sizes::source::os:
      return "os";
    case cache_sizes::source::probe:
      return "probe";
    case cache_sizes::source::override:
      return "env";
    case cache_sizes::source::fallback:
      return "default";
  }
  return "default";
}

const char* probe_state_name(cache_sizes::probe_state state) noexcept {
  switch (state) {
    case cache_sizes::probe_state::none:
      return "none";
    case cache_sizes::probe_state::measured:
      return "measured";
    case cache_sizes::probe_state::cached:
      return "cached";
    case cache_sizes::probe_state::busy:
      return "busy";
  }
  return "none";
}

std::string describe(const cache_sizes& sizes) {
  std::string out = "{\"l1d\":" + std::to_string(sizes.l1d_bytes) + ",\"l1d_source\":\"" +
                    source_name(sizes.l1d_source) + "\",\"llc\":" + std::to_string(sizes.llc_bytes) +
                    ",\"llc_source\":\"" + source_name(sizes.llc_source) +
                    "\",\"os_l1d\":" + std::to_string(sizes.os_l1d_bytes) +
                    ",\"os_llc\":" + std::to_string(sizes.os_llc_bytes) + ",\"probe\":\"" +
                    probe_state_name(sizes.probe) + "\"";
  if (sizes.probe != cache_sizes::probe_state::none) {
    out += ",\"probe_l1d\":" + std::to_string(sizes.probe_l1d_bytes) +
           ",\"probe_llc\":" + std::to_string(sizes.probe_llc_bytes);
  }
  return out + "}";
}

}  // namespace weave::machine
