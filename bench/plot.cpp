#include "bench/plot.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "dictionary_sweep_script.hpp"  // generated from bench/plot/dictionary_sweep.py
#include "group_sweep_script.hpp"       // generated from bench/plot/group_sweep.py

namespace weave::bench {

namespace {

void plot(const char* script, const std::vector<nlohmann::ordered_json>& rows, const std::string& png) {
  if (rows.empty()) throw std::runtime_error("nothing to plot");
  char data_path[] = "/tmp/weave-plot-XXXXXX";
  const int fd = ::mkstemp(data_path);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the plot data");
  ::close(fd);
  {
    std::ofstream data(data_path);
    for (const auto& r : rows) data << r.dump() << '\n';
  }
  // Debian's interpreter, which has python3-matplotlib, even when another python3 comes first on PATH.
  const char* python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const std::string command = fmt::format("{} - '{}' '{}' 2>&1", python, data_path, png);
  FILE* pipe = ::popen(command.c_str(), "w");
  if (pipe == nullptr) throw std::runtime_error("cannot start python3 for the plot");
  std::fputs(script, pipe);
  const int status = ::pclose(pipe);
  std::filesystem::remove(data_path);
  if (status != 0) {
    throw std::runtime_error(fmt::format(
        "plotting to '{}' failed (is python3-matplotlib installed? apt-get install python3-matplotlib)", png));
  }
}

}  // namespace

void plot_group_sweep(const std::vector<nlohmann::ordered_json>& rows, const std::string& png) {
  plot(group_sweep_script, rows, png);
}

void plot_dictionary_sweep(const std::vector<nlohmann::ordered_json>& rows, const std::string& png) {
  plot(dictionary_sweep_script, rows, png);
}

}  // namespace weave::bench
