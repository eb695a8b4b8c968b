#pragma once
// One version of a record: a value (or a tombstone) stamped with the
// timestamp of the transaction that committed it, linked to the next older
// version. A record's versions form a chain, newest first, whose head sits in
// the table's indirection array.
//
// While its transaction runs, a version's stamp is `pending | owner`, the
// owner's transaction id; at commit it becomes the commit timestamp.
//
// In serializable mode the serial safety net (SSN) keeps two more stamps per
// version, read and written by committers that hold the version's latch:
// pstamp, the latest commit of a transaction that read the version, and
// sstamp, the successor stamp of the committed transaction that overwrote it.

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>

#include "weave/memory/block_pool.hpp"

namespace weave::txn {

inline constexpr std::uint64_t pending = std::uint64_t{1} << 63;
inline constexpr std::uint64_t no_successor = ~std::uint64_t{0};

struct version_blocks;
// Versions have a pool of their own: they outlive the coroutine frames that
// make them, and would scatter the frames' free lists.
using version_pool = block_pool<version_blocks>;

struct version {
  std::atomic<std::uint64_t> stamp;
  // The next older version; set at install, cut (to null) only when the
  // versions behind are invisible to every running transaction.
  std::atomic<version*> older;
  // Mutable: committers update them on versions they only read.
  mutable std::atomic<std::uint64_t> pstamp;
  mutable std::atomic<std::uint64_t> sstamp;
  std::uint32_t size;
  bool tombstone;
  // Held by a serializable committer while it reads and updates the stamps
  // above (in the padding: the version stays 40 bytes).
  mutable std::atomic<bool> latch;
  // Made in its record's slot (table.hpp), not taken from the pool: its
  // memory goes with the table's.
  bool in_slot;

  std::string_view value() const noexcept { return {reinterpret_cast<const char*>(this + 1), size}; }

  // A version with room for `bytes` of value behind it.
  static version* make(std::uint64_t stamp, version* older, std::string_view value, bool tombstone) {
    return make_at(version_pool::allocate(sizeof(version) + value.size()), false, stamp, older, value,
                   tombstone);
  }
  // The same in `place`, which has room for the value behind the version.
  static version* make_at(void* place, bool in_slot, std::uint64_t stamp, version* older,
                          std::string_view value, bool tombstone) noexcept {
    auto* v = new (place)
        version{{stamp},   {older}, {0},    {no_successor}, static_cast<std::uint32_t>(value.size()),
                tombstone, {false}, in_slot};
    if (!value.empty()) std::memcpy(reinterpret_cast<char*>(v + 1), value.data(), value.size());
    return v;
  }
  static void destroy(version* v) noexcept {
    const std::size_t bytes = sizeof(version) + v->size;
    const bool pooled = !v->in_slot;
    v->~version();
    if (pooled) version_pool::deallocate(v, bytes);
  }
  // Frees a whole chain (once nobody can reach it).
  static void destroy_chain(version* v) noexcept {
    while (v != nullptr) {
      version* older = v->older.load(std::memory_order_relaxed);
      destroy(v);
      v = older;
    }
  }
  static void destroy_chain_erased(void* v) noexcept { destroy_chain(static_cast<version*>(v)); }
  static void destroy_erased(void* v) noexcept { destroy(static_cast<version*>(v)); }
};
static_assert(sizeof(version) == 40);

}  // namespace weave::txn
