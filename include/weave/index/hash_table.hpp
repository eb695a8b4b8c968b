#pragma once
// A chained hash table from 64-bit keys to 32-bit values (row ids).
//
// Layout: one array of 16-byte entries, four to a cache line.
//
//   entries_: [ bucket 0 | bucket 1 | ... | bucket B-1 | overflow 0 | overflow 1 | ... ]
//   entry:    { key (8) | value (4) | next (4) }
//
// A bucket's head entry lives in the bucket itself, so a probe of a key in
// a one-entry chain is one miss. Further entries of a chain live in the
// overflow area, linked by index (`next`), and each costs one more miss.
// `next` is `end` at the end of a chain and `empty` in an unused bucket.
// Buckets = ceil(keys / load_factor); the bucket of a key is the high half of
// a 128-bit product of its hash and the bucket count, so any count works.
//
// Keys are unique: inserting a present key leaves the table as it was.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <utility>

#include "weave/exec/load.hpp"
#include "weave/exec/request_stream.hpp"
#include "weave/exec/task.hpp"
#include "weave/memory/huge_buffer.hpp"

namespace weave {

class hash_table {
 public:
  struct entry {
    std::uint64_t key;
    std::uint32_t value;
    std::uint32_t next;
  };
  static_assert(sizeof(entry) == 16);

  static constexpr std::uint32_t end = 0xffffffffu;
  static constexpr std::uint32_t empty = 0xfffffffeu;

  hash_table() = default;
  // Room for `capacity` keys at `load_factor` keys per bucket.
  explicit hash_table(std::size_t capacity, double load_factor = 1.0) {
    if (!(load_factor > 0)) throw std::invalid_argument("load factor must be positive");
    buckets_ = static_cast<std::size_t>(std::ceil(static_cast<double>(capacity) / load_factor));
    if (buckets_ == 0) buckets_ = 1;
    if (buckets_ + capacity >= empty) throw std::length_error("hash table too large");
    entries_ = huge_buffer<entry>(buckets_ + capacity);
    for (std::size_t b = 0; b < buckets_; ++b) entries_[b].next = empty;
    used_ = buckets_;
  }

  std::size_t size() const noexcept { return size_; }
  std::size_t bucket_count() const noexcept { return buckets_; }
  // Bytes the table occupies: the buckets and the overflow entries in use.
  std::size_t bytes() const noexcept { return used_ * sizeof(entry); }

  static std::uint64_t hash(std::uint64_t key) noexcept {
    // murmur3's 64-bit finalizer: every key bit reaches the high bits.
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ULL;
    key ^= key >> 33;
    return key;
  }
  std::size_t bucket_of(std::uint64_t key) const noexcept {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::size_t>((static_cast<u128>(hash(key)) * buckets_) >> 64);
  }
  const entry& at(std::size_t index) const noexcept { return entries_[index]; }

  // Returns false (and changes nothing) if the key is present or the table is full.
  bool insert(std::uint64_t key, std::uint32_t value) {
    if (buckets_ == 0) return false;
    entry& head = entries_[bucket_of(key)];
    if (head.next == empty) {
      head = entry{key, value, end};
      ++size_;
      return true;
    }
    for (std::uint32_t i = static_cast<std::uint32_t>(&head - entries_.data()); i != end;
         i = entries_[i].next) {
      if (entries_[i].key == key) return false;
    }
    if (used_ == entries_.size()) return false;
    const auto slot = static_cast<std::uint32_t>(used_++);
    entries_[slot] = entry{key, value, head.next};
    head.next = slot;
    ++size_;
    return true;
  }

 private:
  huge_buffer<entry> entries_;
  std::size_t buckets_ = 0;
  std::size_t used_ = 0;
  std::size_t size_ = 0;
};

// The value stored under each key of `requests`, if any. Every entry visited
// is a likely miss.
template <execution_policy Policy,
          request_stream<std::uint64_t, std::optional<std::uint32_t>> Requests>
typename Requests::task_type find(const hash_table& table, Requests requests) {
  while (requests.next()) {
    const std::uint64_t key = requests.argument();
    if (table.bucket_count() == 0) {
      requests.deliver(std::optional<std::uint32_t>{});
      continue;
    }
    std::optional<std::uint32_t> found;
    // The bucket, then each overflow entry of its chain: one likely miss each,
    // hidden behind the other requests in flight. (One suspension point for
    // both keeps the resume path short.)
    for (std::size_t at = table.bucket_of(key);;) {
      const hash_table::entry e = co_await load<Policy>(table.at(at));
      if (e.next == hash_table::empty) break;  // only a bucket is ever empty
      if (e.key == key) {
        found = e.value;
        break;
      }
      if (e.next == hash_table::end) break;
      at = e.next;
    }
    requests.deliver(std::move(found));
  }
  co_return requests.finish();
}

// The value stored under `key`, if any.
template <execution_policy Policy>
task<std::optional<std::uint32_t>> find(const hash_table& table, std::uint64_t key) {
  return find<Policy>(table, one_request<std::uint64_t, std::optional<std::uint32_t>>{key});
}

}  // namespace weave
