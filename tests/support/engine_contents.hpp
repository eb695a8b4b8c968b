#pragma once
// Everything an engine holds, read in one snapshot: table name -> key ->
// value, the keys of integer-keyed tables in decimal. Tests compare it with
// an oracle, or with what another opening of the same directory holds.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weave/exec/policy.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace weave::test_support {

using engine_contents = std::map<std::string, std::map<std::string, std::string>>;

inline engine_contents contents(txn::engine& e) {
  engine_contents out;
  txn::transaction t = e.begin();
  for (txn::table* tab : e.tables()) {
    auto& records = out[tab->name()];
    if (tab->keys() == txn::key_kind::integer) {
      std::vector<std::pair<std::uint64_t, std::string_view>> all;
      sync_wait(t.scan<sequential_policy>(*tab, std::uint64_t{0}, ~std::size_t{0}, all));
      for (const auto& [k, v] : all) records[std::to_string(k)] = std::string(v);
    } else {
      std::vector<std::pair<byte_key, std::string_view>> all;
      sync_wait(t.scan<sequential_policy>(*tab, std::string(""), ~std::size_t{0}, all));
      for (const auto& [k, v] : all) records[k.str()] = std::string(v);
    }
  }
  t.abort();
  return out;
}

}  // namespace weave::test_support
