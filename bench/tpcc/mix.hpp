#pragma once
// The transaction mixes: TPC-C's (clause 5.2.3, at the minimum percentages
// with NewOrder taking the rest), TPC-CR (read-only: StockLevel and
// OrderStatus) and TPC-CH (with Q2*), as in CoroBase; or any percentages by
// kind, to measure one transaction type or a pair on its own.

#include <array>
#include <string>

#include "bench/tpcc/random.hpp"
#include "bench/tpcc/transactions.hpp"

namespace weave::tpcc {

struct mix {
  std::string name;                      // as given: "tpcch", "q2=100", ...
  std::array<unsigned, kinds> percent{};  // of each kind, in the order of `kind`
};

// "tpcc", "tpccr", "tpcch", or percentages by kind name summing to 100
// ("q2=100", "new_order=50,payment=50"). Throws std::invalid_argument.
mix parse_mix(const std::string& text);

// Draws a kind from the percentages.
kind draw(const std::array<unsigned, kinds>& percent, random_source& r);

}  // namespace weave::tpcc
