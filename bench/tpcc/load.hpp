#pragma once
// Populates the TPC-C tables as clause 4.3.3.1 describes, for `warehouses`
// warehouses, plus CH-benCHmark's supplier, nation and region tables.

#include <cstdint>
#include <functional>

#include "bench/tpcc/schema.hpp"

namespace weave::tpcc {

// progress(warehouses loaded so far) is called from the loading threads.
void load(txn::engine& db, const tables& t, std::uint32_t warehouses, std::uint64_t seed, std::size_t threads,
          const std::function<void(std::uint32_t)>& progress = {});

// Bytes the loaded tables take, roughly (for a memory check before loading).
std::size_t estimated_bytes(std::uint32_t warehouses, std::size_t new_orders);

}  // namespace weave::tpcc
