#include "bench/tpcc/mix.hpp"

#include <fmt/format.h>

#include <stdexcept>

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

mix parse_mix(const std::string& name) {
  if (name == "tpcc") return mix::tpcc;
  if (name == "tpccr") return mix::tpccr;
  if (name == "tpcch") return mix::tpcch;
  throw std::invalid_argument(fmt::format("unknown mix '{}' (tpcc, tpccr or tpcch)", name));
}

const char* mix_name(mix m) {
  switch (m) {
    case mix::tpcc: return "tpcc";
    case mix::tpccr: return "tpccr";
    case mix::tpcch: return "tpcch";
  }
  return "?";
}

std::array<unsigned, kinds> mix_percentages(mix m) {
  //        new_order payment order_status delivery stock_level q2
  switch (m) {
    case mix::tpcc: return {45, 43, 4, 4, 4, 0};
    case mix::tpccr: return {0, 0, 50, 0, 50, 0};
    case mix::tpcch: return {40, 38, 4, 4, 4, 10};
  }
  return {};
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
