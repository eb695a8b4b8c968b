#pragma once
// One version of a record: a value (or a tombstone) stamped with the
// timestamp of the transaction that committed it, linked to the next older
// version. A record's versions form a chain, newest first, whose head sits in
// the table's indirection array.
//
// While its transaction runs, a version's stamp is `pending | owner`, the
// owner's transaction id; at commit it becomes the commit timestamp. Only
// the owner reads a pending version's value, which it may write after
// publishing the version (transaction::install).
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

// Versions have a pool of their own: they outlive the coroutine frames that
// make them, and would scatter the frames' free lists. A version is written
// whole when it is made, mostly to blocks freed long ago (block_pool.hpp).
struct version_blocks {
  static constexpr bool write_ahead = true;
};
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

  // A version of `value`, taken from the pool.
  static version* make(std::uint64_t stamp, version* older, std::string_view value, bool tombstone) {
    version* v = make_unfilled(stamp, older, value.size(), tombstone);
    v->fill(value);
    return v;
  }
  // The same in `place`, which has room for the value behind the version.
  static version* make_at(void* place, bool in_slot, std::uint64_t stamp, version* older,
                          std::string_view value, bool tombstone) noexcept {
    version* v = header_at(place, in_slot, stamp, older, value.size(), tombstone);
    v->fill(value);
    return v;
  }
  // A version from the pool with room for `bytes` of value, not yet written
  // (fill): its owner may publish it first, as long as nobody reads the
  // value before its stamp says committed (transaction::install).
  static version* make_unfilled(std::uint64_t stamp, version* older, std::size_t bytes, bool tombstone) {
    return header_at(version_pool::allocate(sizeof(version) + bytes), false, stamp, older, bytes, tombstone);
  }
  // Writes the value; `value` has the size the version was made with.
  void fill(std::string_view value) noexcept {
    if (!value.empty()) std::memcpy(reinterpret_cast<char*>(this + 1), value.data(), value.size());
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

 private:
  static version* header_at(void* place, bool in_slot, std::uint64_t stamp, version* older, std::size_t bytes,
                            bool tombstone) noexcept {
    return new (place) version{{stamp},   {older}, {0},    {no_successor}, static_cast<std::uint32_t>(bytes),
                               tombstone, {false}, in_slot};
  }
};
static_assert(sizeof(version) == 40);

}  // namespace weave::txn
