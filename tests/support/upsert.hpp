#pragma once
// A put where the key has a record, else an insert: tests that write keys
// whether or not they exist.

#include <string_view>

#include "weave/exec/policy.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace weave::test_support {

template <class K>
txn::status upsert(txn::transaction& t, txn::table& tab, const K& key, std::string_view value) {
  const txn::status s = sync_wait(t.put<sequential_policy>(tab, key, value));
  return s == txn::status::not_found ? sync_wait(t.insert<sequential_policy>(tab, key, value)) : s;
}

}  // namespace weave::test_support
