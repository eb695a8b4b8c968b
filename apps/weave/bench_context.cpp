#include "bench_context.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <string>

#include "weave/memory/machine.hpp"

namespace weave::cli {

namespace {

// The value after "key<tabs>: " on the first such line of /proc/cpuinfo.
std::string cpuinfo(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return "unknown";
}

// The bracketed word of the kernel's transparent huge page setting.
std::string huge_page_mode() {
  std::string setting;
  std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), setting);
  const std::size_t open = setting.find('['), close = setting.find(']');
  return open != std::string::npos && close > open ? setting.substr(open + 1, close - open - 1) : "unknown";
}

std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

}  // namespace

nlohmann::ordered_json bench_context(std::size_t threads) {
  nlohmann::ordered_json c;
  char date[64] = "";
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  if (::localtime_r(&now, &local) != nullptr) std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", &local);
  c["date"] = date;
  char host[256] = "";
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  c["host"] = host;
  c["cpu"] = cpuinfo("model name");
  c["cpus_online"] = ::sysconf(_SC_NPROCESSORS_ONLN);
  c["cpus_allowed"] = machine::allowed_cpus();
  nlohmann::ordered_json used = nlohmann::ordered_json::array();
  for (std::size_t t = 0; t < threads; ++t) used.push_back(machine::cpu_for(t));
  c["cpus_used"] = used;
  c["caches"] = {{"l1d_bytes", machine::l1d_bytes()}, {"llc_bytes", machine::llc_bytes()}};
  c["huge_pages"] = huge_page_mode();
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) == 3) c["load_avg"] = {load[0], load[1], load[2]};
  c["compiler"] = compiler();
  c["build_type"] = WEAVE_BUILD_TYPE;
#if defined(WEAVE_ASSERTIONS)
  c["assertions"] = true;
#else
  c["assertions"] = false;
#endif
  return {{"context", c}};
}

}  // namespace weave::cli
