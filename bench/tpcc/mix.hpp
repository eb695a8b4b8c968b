#pragma once
// The transaction mixes: TPC-C's (clause 5.2.3, at the minimum percentages
// with NewOrder taking the rest), TPC-CR (read-only: StockLevel and
// OrderStatus) and TPC-CH (with Q2*), as in CoroBase.

#include <array>
#include <string>

#include "bench/tpcc/random.hpp"
#include "bench/tpcc/transactions.hpp"

namespace weave::tpcc {

enum class mix { tpcc, tpccr, tpcch };

mix parse_mix(const std::string& name);
const char* mix_name(mix m);

// Percent of each kind, in the order of `kind`.
std::array<unsigned, kinds> mix_percentages(mix m);

// Draws a kind from the percentages.
kind draw(const std::array<unsigned, kinds>& percent, random_source& r);

}  // namespace weave::tpcc
