#pragma once
// A table of the transaction engine: records named by object ids (OIDs), an
// indirection array from OID to the newest version of the record, and an
// ordered index from key to OID. Updates never touch the index: they install
// a new version at the head of the record's chain.
//
// A table's keys are 8-byte unsigned integers or byte strings of up to 47
// bytes, chosen when it is created. It grows as records arrive, up to
// capacity(): the indirection array is reserved whole and made usable a
// chunk at a time, so a slot never moves and readers take no lock.
//
// A slot is the head pointer alone (8 bytes), or, for a table created with
// inline_value_bytes > 0, a line or more that also holds the record's first
// version when its value is that short. Reading a record then costs one miss
// (slot and version together) until the record is first overwritten, where
// an 8-byte slot costs two, the second waiting for the first.

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "weave/index/olc_btree.hpp"
#include "weave/memory/growing_buffer.hpp"
#include "weave/memory/machine.hpp"
#include "weave/memory/prefault.hpp"
#include "weave/memory/prefetch.hpp"
#include "weave/txn/version.hpp"

namespace weave::txn {

using oid_t = std::uint64_t;

enum class key_kind { integer, bytes };

class table {
 public:
  // The most records a table holds: 2^32, or as many slots as 32 GiB of
  // address space take (2^29 of a line, 2^25 of the widest), the same
  // reservation whatever the slots: a process with many tables (and a
  // ThreadSanitizer build, which has less address space) must not run out.
  // Only what is used is backed.
  static constexpr std::size_t max_records = std::size_t{1} << 32;
  // The longest value a slot can hold (slots of 1 KiB).
  static constexpr std::size_t max_inline_value_bytes = 1024 - sizeof(version*) - sizeof(version);
  // The longest value a record holds: a committed transaction's log record
  // must fit in one log group (durability/log_format.hpp), key and all.
  static constexpr std::size_t max_value_bytes = (std::size_t{1} << 30) - 4096;

  // `expected_records` only makes that many slots usable up front. A table
  // of a durable engine has an id (its number in the catalog) and keeps each
  // record's key, which its log records name. Throws std::invalid_argument
  // for inline_value_bytes above max_inline_value_bytes.
  explicit table(std::string name, key_kind keys = key_kind::integer, std::size_t expected_records = 0,
                 std::uint32_t id = 0, bool keeps_keys = false, std::size_t inline_value_bytes = 0)
      : name_(std::move(name)),
        keys_(keys),
        id_(id),
        inline_value_bytes_(checked_inline_bytes(name_, inline_value_bytes)),
        slot_bytes_(slot_bytes_for(inline_value_bytes_)),
        capacity_(std::min(max_records, (std::size_t{1} << 35) / slot_bytes_)),
        slots_(capacity_ * slot_bytes_) {
    if (expected_records > 0) slots_.grow_to(std::min(expected_records, capacity_) * slot_bytes_);
    if (keeps_keys) {
      if (keys == key_kind::integer) {
        integer_keys_ = std::make_unique<growing_buffer<std::uint64_t>>(capacity_);
      } else {
        byte_keys_ = std::make_unique<growing_buffer<byte_key>>(capacity_);
      }
    }
  }
  // A slot's bytes: a head pointer, or whole lines holding one beside a
  // version with `inline_value_bytes` of value.
  static constexpr std::size_t slot_bytes_for(std::size_t inline_value_bytes) noexcept {
    return inline_value_bytes == 0 ? sizeof(version*)
                                   : (sizeof(version*) + sizeof(version) + inline_value_bytes + 63) / 64 * 64;
  }
  // `bytes`, or std::invalid_argument naming the table if slots cannot hold it.
  static std::size_t checked_inline_bytes(const std::string& name, std::size_t bytes) {
    if (bytes > max_inline_value_bytes) {
      throw std::invalid_argument("table '" + name + "': inline values of at most " +
                                  std::to_string(max_inline_value_bytes) + " bytes, not " +
                                  std::to_string(bytes));
    }
    return bytes;
  }

  table(const table&) = delete;
  table& operator=(const table&) = delete;
  ~table() {
    for (std::size_t i = 0, n = records(); i < n; ++i) {
      version::destroy_chain(*slot(i));
    }
    for (version* v : retired_) version::destroy(v);
  }

  const std::string& name() const noexcept { return name_; }
  std::uint32_t id() const noexcept { return id_; }
  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t inline_value_bytes() const noexcept { return inline_value_bytes_; }
  // Whether a first version with a value of `bytes` is made in its slot
  // (never in slots of a head pointer alone, even with no value).
  bool fits_in_slot(std::size_t bytes) const noexcept {
    return inline_value_bytes_ > 0 && bytes <= inline_value_bytes_;
  }
  bool keeps_keys() const noexcept { return integer_keys_ != nullptr || byte_keys_ != nullptr; }
  // Records the key of a new slot (durable engines), before the slot can be found.
  void remember_key(oid_t oid, std::uint64_t key) {
    integer_keys_->grow_to(oid + 1);
    (*integer_keys_)[oid] = key;
  }
  void remember_key(oid_t oid, const byte_key& key) {
    byte_keys_->grow_to(oid + 1);
    (*byte_keys_)[oid] = key;
  }
  void prefetch_key(oid_t oid) const noexcept {
    if (integer_keys_ != nullptr) {
      __builtin_prefetch(&(*integer_keys_)[oid]);
    } else {
      __builtin_prefetch(&(*byte_keys_)[oid]);
    }
  }
  // The key of record `oid` as the log writes it (an integer as 8
  // little-endian bytes), in `out`, which must hold byte_key::capacity bytes.
  std::string_view logged_key(oid_t oid, char* out) const noexcept {
    if (integer_keys_ != nullptr) {
      const std::uint64_t k = (*integer_keys_)[oid];
      if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out, &k, 8);
      } else {
        for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<char>(k >> (8 * i));
      }
      return {out, 8};
    }
    const byte_key& k = (*byte_keys_)[oid];
    k.copy_to(out);
    return {out, k.size()};
  }
  // Slots handed out: records, and keys whose insert aborted (a key keeps its
  // slot for its next insert).
  std::size_t records() const noexcept {
    return std::min<std::size_t>(next_oid_.load(std::memory_order_relaxed), slots_.size() / slot_bytes_);
  }
  // Whether the records' slots and newest versions likely stay cached, so
  // reading them is not worth a suspension (about 64 bytes a record, or the
  // slot's bytes where it holds the version).
  bool cached() const noexcept {
    return machine::fits_in_cache(next_oid_.load(std::memory_order_relaxed) *
                                  std::max<std::size_t>(64, slot_bytes_));
  }
  // Whether the records and the index all stay cached: then no operation on
  // the table suspends, and interleaving transactions over it only costs.
  bool resident() const noexcept {
    return cached() && index_.hot_levels() == ~0u && string_index_.hot_levels() == ~0u;
  }
  key_kind keys() const noexcept { return keys_; }
  // The size of the values last written, as a guess for prefetching. Only
  // a change is stored, so writers of same-sized rows share the line.
  std::size_t usual_value_bytes() const noexcept { return usual_value_bytes_.load(std::memory_order_relaxed); }
  // The engine that made the table: a transaction writes only to its own
  // engine's tables (the clock, the log and the catalog are the engine's).
  const void* owner() const noexcept { return owner_; }

  void note_value_bytes(std::size_t bytes) noexcept {
    const auto b = static_cast<std::uint32_t>(std::min<std::size_t>(bytes, 4096));
    if (usual_value_bytes_.load(std::memory_order_relaxed) != b) usual_value_bytes_.store(b, std::memory_order_relaxed);
  }
  olc_btree& index() noexcept { return index_; }
  const olc_btree& index() const noexcept { return index_; }
  olc_string_btree& string_index() noexcept { return string_index_; }
  const olc_string_btree& string_index() const noexcept { return string_index_; }

  // The index for keys of type Key (std::uint64_t or byte_key); throws
  // std::invalid_argument if the table has the other kind of key.
  template <class Key>
  const basic_olc_btree<Key>& index_of() const {
    if constexpr (std::is_same_v<Key, byte_key>) {
      if (keys_ != key_kind::bytes) wrong_key_kind();
      return string_index_;
    } else {
      if (keys_ != key_kind::integer) wrong_key_kind();
      return index_;
    }
  }
  template <class Key>
  basic_olc_btree<Key>& index_of() {
    return const_cast<basic_olc_btree<Key>&>(std::as_const(*this).index_of<Key>());
  }

  // The newest version of a record (atomically: writers swap it with CAS).
  std::atomic_ref<version*> head(oid_t oid) const noexcept { return std::atomic_ref<version*>(*slot(oid)); }
  // Its address, to prefetch, and the bytes of its slot from there.
  const void* head_address(oid_t oid) const noexcept { return slot(oid); }
  std::size_t slot_bytes() const noexcept { return slot_bytes_; }
  // Whether `v` is the version made in record `oid`'s slot (it came into
  // the cache with the slot).
  bool in_slot(oid_t oid, const version* v) const noexcept {
    return reinterpret_cast<const std::byte*>(v) ==
           reinterpret_cast<const std::byte*>(slot(oid)) + sizeof(version*);
  }

  // A slot for a new record, its head null. Throws std::length_error past
  // capacity().
  oid_t allocate_oid() {
    const oid_t oid = next_oid_.fetch_add(1, std::memory_order_relaxed);
    std::size_t usable = slots_.size();
    if (oid >= capacity_ || (oid + 1) * slot_bytes_ > usable) {
      grow(oid);
      usable = slots_.size();
    }
    // The next insert writes the next slot, memory nobody has touched since
    // it was mapped: fetched for writing now (up to four lines), its stores
    // then do not hold up every later store while its lines arrive.
    if ((oid + 2) * slot_bytes_ <= usable) {
      weave::detail::prefetch_lines_for_write(slot(oid + 1),
                                              std::min<std::size_t>(slot_bytes_, 4 * machine::cache_line));
    }
    // The first slot of a stretch of slots: the stretch a few ahead is
    // faulted in now by the prefault thread, not by a later insert.
    if (static_cast<std::size_t>(oid) * slot_bytes_ % prefault_stretch < slot_bytes_) prefault_ahead(oid);
    return oid;
  }
  // The first version of record `oid`, whose slot allocate_oid() has just
  // handed out: made in the slot if the value fits there, else from the
  // version pool. The caller publishes it as the head.
  version* make_first(oid_t oid, std::uint64_t stamp, std::string_view value, bool tombstone) {
    if (!fits_in_slot(value.size())) return version::make(stamp, nullptr, value, tombstone);
    return version::make_at(reinterpret_cast<std::byte*>(slot(oid)) + sizeof(version*), true, stamp, nullptr,
                            value, tombstone);
  }

  // A version taken out of a chain (by an abort) while readers may still
  // hold it: freed with the table, until epochs reclaim it sooner.
  void retire(version* v) noexcept {
    std::lock_guard<std::mutex> g(retired_mutex_);
    try {
      retired_.push_back(v);
    } catch (const std::bad_alloc&) {  // leaked: an abort must not fail halfway
    }
  }

 private:
  friend class engine;
  const void* owner_ = nullptr;
  // Out of index_of, which then stays small enough to inline into each read.
  [[gnu::cold, gnu::noinline]] void grow(oid_t oid) {
    // A failed allocation leaves the counter past the usable slots: records()
    // and the destructor stop at the usable ones.
    if (oid >= capacity_) {
      throw std::length_error("table '" + name_ + "' holds the most records it can (" +
                              std::to_string(capacity_) + ")");
    }
    slots_.grow_to((oid + 1) * slot_bytes_);
  }
  // Slots are faulted in ahead of the inserts by stretches of a huge page,
  // this many stretches ahead of the one being filled.
  static constexpr std::size_t prefault_stretch = growing_buffer<std::byte>::chunk_bytes;
  static constexpr std::size_t prefault_distance = 4;
  [[gnu::cold, gnu::noinline]] void prefault_ahead(oid_t oid) noexcept {
    const std::size_t from =
        (static_cast<std::size_t>(oid) * slot_bytes_ / prefault_stretch + prefault_distance) *
        prefault_stretch;
    const std::size_t to = std::min(from + prefault_stretch, capacity_ * slot_bytes_);
    if (to <= from || to > slots_.max_size()) return;
    try {
      slots_.grow_to(to);
    } catch (...) {
      return;  // the insert that needs it will say so
    }
    prefault_async(&slots_[from], to - from);
  }
  version** slot(oid_t oid) const noexcept {
    return reinterpret_cast<version**>(&slots_[static_cast<std::size_t>(oid) * slot_bytes_]);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void wrong_key_kind() const {
    throw std::invalid_argument("table '" + name_ + "' has " +
                                (keys_ == key_kind::bytes ? "byte-string" : "integer") + " keys");
  }

  std::string name_;
  key_kind keys_;
  std::uint32_t id_;
  std::size_t inline_value_bytes_;
  std::size_t slot_bytes_;  // a head pointer, or whole lines with room for a version
  std::size_t capacity_;
  std::unique_ptr<growing_buffer<std::uint64_t>> integer_keys_;  // durable engines: by oid
  std::unique_ptr<growing_buffer<byte_key>> byte_keys_;
  mutable growing_buffer<std::byte> slots_;  // zero-filled: no version yet
  std::atomic<oid_t> next_oid_{0};
  std::atomic<std::uint32_t> usual_value_bytes_{0};
  olc_btree index_;
  olc_string_btree string_index_;  // one of the two stays empty
  std::mutex retired_mutex_;
  std::vector<version*> retired_;
};

}  // namespace weave::txn
