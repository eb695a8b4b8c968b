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

#include <algorithm>
#include <array>
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
#include "weave/memory/prefetch.hpp"

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
    // Entries are named by 32-bit indexes: checked in floating point before
    // any conversion or sum can overflow.
    const double buckets = std::ceil(static_cast<double>(capacity) / load_factor);
    if (!(buckets + static_cast<double>(capacity) < static_cast<double>(empty)))
      throw std::length_error("hash table too large");
    buckets_ = std::max<std::size_t>(static_cast<std::size_t>(buckets), 1);
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

// Probes a slot of a ring keeps in flight, when its stream lets it hold
// several requests (ticketed_request_stream). A step of a probe is a compare
// or two, a few instructions against the few dozen of a suspension and a
// resume, so the slot's probes share each suspension. Chains differ in
// length, so the probes do not go in lockstep as the searches of
// sorted_array.hpp do: a probe that ends hands its place to the next request
// at once. Sixteen rather than four: the switch's share fell from 17 to 4
// instructions a probe (callgrind), and the probe from 75 to 60 against
// AMAC's 56. docs/results/lookups.md has the measurements.
inline constexpr std::size_t probes_per_slot = 16;

// The value stored under each key of `requests`, if any. Every entry visited
// is a likely miss: the bucket, then each overflow entry of its chain. Each
// is prefetched when the probe learns which it is, and examined after the
// slot's next suspension, hidden behind the other requests in flight.
template <execution_policy Policy,
          request_stream<std::uint64_t, std::optional<std::uint32_t>> Requests>
typename Requests::task_type find(const hash_table& table, Requests requests) {
  constexpr std::size_t width =
      Policy::suspends && ticketed_request_stream<Requests, std::uint64_t, std::optional<std::uint32_t>>
          ? probes_per_slot
          : 1;
  if (table.bucket_count() == 0) {
    while (requests.next()) requests.deliver(std::optional<std::uint32_t>{});
    co_return requests.finish();
  }
  struct probe {
    std::uint64_t key;
    const hash_table::entry* at;  // the entry to examine next
    std::size_t ticket;
  };
  std::array<probe, width> probes;
  const auto start = [&](probe& p) {
    p.key = requests.argument();
    if constexpr (width > 1) p.ticket = requests.ticket();
    p.at = &table.at(table.bucket_of(p.key));
    if constexpr (Policy::suspends) detail::prefetch_line(p.at);
  };
  std::size_t live = 0;  // probes [0, live) are in flight
  while (live < width && requests.next()) start(probes[live++]);
  while (live > 0) {
    co_await next_pass<Policy>();
    for (std::size_t j = 0; j < live;) {
      probe& p = probes[j];
      const hash_table::entry& e = *p.at;
      std::optional<std::uint32_t> found;
      if (e.next != hash_table::empty) {  // only a bucket is ever empty
        if (e.key == p.key) {
          found = e.value;
        } else if (e.next != hash_table::end) {
          p.at = &table.at(e.next);
          if constexpr (Policy::suspends) detail::prefetch_line(p.at);
          ++j;
          continue;
        }
      }
      if constexpr (width > 1) {
        requests.deliver_to(p.ticket, std::move(found));
      } else {
        requests.deliver(std::move(found));
      }
      if (requests.next()) {
        start(p);
        ++j;
      } else {
        // The last probe in flight takes this place; it has yet to be examined.
        p = probes[--live];
      }
    }
  }
  co_return requests.finish();
}

// The value stored under `key`, if any.
template <execution_policy Policy>
task<std::optional<std::uint32_t>> find(const hash_table& table, std::uint64_t key) {
  return find<Policy>(table, one_request<std::uint64_t, std::optional<std::uint32_t>>{key});
}

}  // namespace weave
