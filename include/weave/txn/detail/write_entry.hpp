#pragma once
// One write of a transaction: the pending version it put at the head of a
// record's chain.

#include "weave/txn/table.hpp"
#include "weave/txn/version.hpp"

namespace weave::txn::detail {

struct write_entry {
  table* t;
  oid_t oid;
  version* v;

  // The committed version the write replaced (the bottom tombstone of a new
  // serializable record), or null for a new record under SI.
  const version* overwritten() const noexcept {
    const version* o = v->older.load(std::memory_order_acquire);
    while (o != nullptr && (o->stamp.load(std::memory_order_acquire) & pending)) {
      o = o->older.load(std::memory_order_acquire);  // an earlier write of ours to the record
    }
    return o;
  }
};

}  // namespace weave::txn::detail
