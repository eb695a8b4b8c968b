#include "bench/tpcc/mix.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <stdexcept>
#include <string>
#include <string_view>

namespace weave::tpcc {

const char* kind_name(kind k) {
  switch (k) {
    case kind::new_order: return "new_order";
    case kind::payment: return "payment";
    case kind::order_status: return "order_status";
    case kind::delivery: return "delivery";
    case kind::stock_level: return "stock_level";
    case kind::q2: return "q2";
  }
  return "?";
}

namespace {

// One "kind=percent" term of a custom mix, added to `m`; `seen` marks the
// kinds named so far.
void add_term(std::string_view term, mix& m, std::array<bool, kinds>& seen) {
  const auto fail = [&](std::string_view why) {
    throw std::invalid_argument(fmt::format("bad mix term '{}': {}", term, why));
  };
  const std::size_t eq = term.find('=');
  if (eq == std::string_view::npos) fail("expected kind=percent");
  const std::string_view name = term.substr(0, eq), number = term.substr(eq + 1);
  std::size_t k = 0;
  while (k < kinds && name != kind_name(static_cast<kind>(k))) ++k;
  if (k == kinds) {
    std::string known;
    for (std::size_t i = 0; i < kinds; ++i) {
      known += fmt::format("{}{}", i == 0 ? "" : ", ", kind_name(static_cast<kind>(i)));
    }
    fail("kinds are " + known);
  }
  unsigned percent = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), percent);
  if (error != std::errc{} || end != number.data() + number.size() || percent > 100) fail("percent is 0 to 100");
  if (number.size() > 1 && number[0] == '0') fail("write the percent without leading zeros");
  if (seen[k]) fail("kind given twice");
  seen[k] = true;
  m.percent[k] = percent;
}

}  // namespace

mix parse_mix(const std::string& text) {
  //                                             new_order payment order_status delivery stock_level q2
  if (text == "tpcc") return {text, {45, 43, 4, 4, 4, 0}};
  if (text == "tpccr") return {text, {0, 0, 50, 0, 50, 0}};
  if (text == "tpcch") return {text, {40, 38, 4, 4, 4, 10}};
  if (text.find('=') == std::string::npos) {
    throw std::invalid_argument(
        fmt::format("unknown mix '{}' (tpcc, tpccr, tpcch, or percentages such as new_order=50,payment=50)", text));
  }
  mix m{text, {}};
  std::array<bool, kinds> seen{};
  std::string_view rest = text;
  for (;;) {
    const std::size_t comma = rest.find(',');
    add_term(rest.substr(0, comma), m, seen);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  unsigned total = 0;
  for (const unsigned p : m.percent) total += p;
  if (total != 100) throw std::invalid_argument(fmt::format("mix '{}' adds up to {}%, not 100%", text, total));
  return m;
}

kind draw(const std::array<unsigned, kinds>& percent, random_source& r) {
  unsigned x = r.uniform(1, 100);
  for (std::size_t k = 0; k < kinds; ++k) {
    if (x <= percent[k]) return static_cast<kind>(k);
    x -= percent[k];
  }
  return kind::new_order;
}

}  // namespace weave::tpcc
