#include "cli_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "bench/plot.hpp"
#include "bench/workload/size.hpp"
#include "weave/memory/machine.hpp"

namespace weave::cli {

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma == start) throw std::invalid_argument(fmt::format("empty item in list '{}'", list));
    out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::vector<std::size_t> parse_sizes(const std::string& list) {
  std::vector<std::size_t> out;
  for (const auto& item : split(list)) out.push_back(bench::parse_size(item));
  return out;
}

void require_memory(std::size_t bytes, const std::string& what) {
  const std::size_t available = machine::available_bytes();
  if (available > 0 && bytes > available / 10 * 9) {
    throw std::invalid_argument(fmt::format("{} needs about {} but only {} of memory is available", what,
                                            bench::format_bytes(bytes), bench::format_bytes(available)));
  }
}

const CLI::Validator plot_path(
    [](std::string& png) -> std::string {
      try {
        bench::check_plot_path(png);
      } catch (const std::invalid_argument& e) {
        return e.what();
      }
      return {};
    },
    "PNG", "plot path");

void print(const nlohmann::ordered_json& j) { std::cout << j.dump() << '\n' << std::flush; }

}  // namespace weave::cli
