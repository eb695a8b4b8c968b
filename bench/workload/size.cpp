#include "bench/workload/size.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <stdexcept>

namespace weave::bench {

std::size_t parse_size(std::string_view text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end == text.data()) {
    throw std::invalid_argument(fmt::format("'{}' is not a size (examples: 1000, 100M, 2Gi)", text));
  }
  // As the plain integer options: "010" is neither ten nor eight.
  if (text[0] == '0' && end - text.data() > 1) {
    throw std::invalid_argument(fmt::format("write {} without leading zeros", text));
  }
  const std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
  struct unit {
    std::string_view name;
    std::size_t factor;
  };
  static constexpr unit units[] = {
      {"", 1},
      {"K", 1'000},        {"M", 1'000'000},     {"G", 1'000'000'000}, {"T", 1'000'000'000'000},
      {"Ki", 1ull << 10},  {"Mi", 1ull << 20},   {"Gi", 1ull << 30},   {"Ti", 1ull << 40}};
  for (const unit& u : units) {
    if (suffix != u.name) continue;
    if (value > std::numeric_limits<std::size_t>::max() / u.factor) {
      throw std::invalid_argument(fmt::format("size '{}' is too large", text));
    }
    return value * u.factor;
  }
  throw std::invalid_argument(
      fmt::format("'{}' has an unknown suffix '{}' (use K, M, G, T or Ki, Mi, Gi, Ti)", text, suffix));
}

std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  std::size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace weave::bench
