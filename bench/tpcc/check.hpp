#pragma once
// TPC-C's consistency conditions (clause 3.3.2.1 to 3.3.2.6), checked in
// one snapshot:
//   1. W_YTD = sum of D_YTD of the warehouse's districts
//   2. D_NEXT_O_ID - 1 = max O_ID of the district's orders = max NO_O_ID
//   3. max NO_O_ID - min NO_O_ID + 1 = the district's NEW-ORDER rows
//   4. sum of O_OL_CNT = the district's ORDER-LINE rows
//   5. an order has no carrier exactly when it has a NEW-ORDER row
//   6. each order's O_OL_CNT = its ORDER-LINE rows

#include <string>
#include <vector>

#include "bench/tpcc/schema.hpp"

namespace weave::tpcc {

// Every violated condition, one line each; empty if all hold.
std::vector<std::string> check_consistency(txn::engine& db, const tables& t, std::uint32_t warehouses);

}  // namespace weave::tpcc
