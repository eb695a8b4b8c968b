#pragma once
// Hand-written baselines for probing the chained hash_table, for comparison
// with the coroutine version only (weave::find in hash_table.hpp):
//
//   naive_lookup  one probe after another, no prefetching
//   gp_lookup     group prefetching: a group of probes visits the buckets in
//               lockstep, then the probes still walking a chain take one
//               more entry each, round after round, until none is left
//   amac_lookup   asynchronous memory access chaining: a ring of in-flight
//               probes, each an explicit state machine over its chain
//
// They exist to measure what interleaving by hand buys and costs against
// the coroutine scheduler; nothing in the library uses them. Each returns the
// sum of the values found (0 for a missing key), the same checksum the
// coroutine version yields.
//
// Every variant visits the same entries as find: the bucket's head entry,
// then the overflow entries of its chain, one miss each.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "weave/assert.hpp"
#include "weave/exec/load.hpp"
#include "weave/index/hash_table.hpp"

namespace weave::baselines {

// Largest group (gp) or ring (amac) the interleaved variants accept.
inline constexpr std::size_t max_probe_group = 256;

namespace detail {

// What a probe learns from one entry of its chain: the entry to visit next,
// or hash_table::end when the probe is over with `value` (0 if not found).
struct probe_step {
  std::uint32_t next;
  std::uint32_t value;
};

// Examines entry `e` (a bucket or an overflow entry) in the probe for `key`.
inline probe_step visit(const hash_table::entry& e, std::uint64_t key) noexcept {
  // Only a bucket can be empty; overflow entries always link on or end.
  if (e.next == hash_table::empty) return {hash_table::end, 0};
  if (e.key == key) return {hash_table::end, e.value};
  return {e.next, 0};
}

}  // namespace detail

inline std::uint64_t naive_lookup(const hash_table& table, std::span<const std::uint64_t> keys) {
  if (table.bucket_count() == 0) return 0;
  std::uint64_t sum = 0;
  for (const std::uint64_t key : keys) {
    detail::probe_step step = detail::visit(table.at(table.bucket_of(key)), key);
    while (step.next != hash_table::end) step = detail::visit(table.at(step.next), key);
    sum += step.value;
  }
  return sum;
}

inline std::uint64_t gp_lookup(const hash_table& table, std::span<const std::uint64_t> keys,
                             std::size_t group) {
  WEAVE_ASSERT(group >= 1 && group <= max_probe_group);
  if (table.bucket_count() == 0) return 0;
  // The probes keep pointers, not indexes: a shift and an add less per visit.
  std::array<const hash_table::entry*, max_probe_group> entry;  // next entry of each probe in the group
  std::array<std::size_t, max_probe_group> walking;  // probes of the group still in a chain, by index
  std::uint64_t sum = 0;
  for (std::size_t first = 0; first < keys.size(); first += group) {
    const std::span<const std::uint64_t> batch =
        keys.subspan(first, std::min(group, keys.size() - first));
    // Stage 0: hash every key and prefetch its bucket, so that the misses on
    // the buckets of the whole group overlap.
    for (std::size_t j = 0; j < batch.size(); ++j) {
      entry[j] = &table.at(table.bucket_of(batch[j]));
      weave::detail::prefetch_line(entry[j]);
    }
    std::size_t count = batch.size();
    for (std::size_t j = 0; j < count; ++j) walking[j] = j;
    // Stage 1 visits the buckets; each further stage visits the next overflow
    // entry of every chain not yet done. Chains differ in length, so the
    // probes that finish drop out and the stages go on while any remain.
    while (count > 0) {
      std::size_t still = 0;
      for (std::size_t w = 0; w < count; ++w) {
        const std::size_t j = walking[w];
        const detail::probe_step step = detail::visit(*entry[j], batch[j]);
        if (step.next == hash_table::end) {
          sum += step.value;
          continue;
        }
        entry[j] = &table.at(step.next);
        // Overlaps the miss on this chain's next entry with the rest of the stage.
        weave::detail::prefetch_line(entry[j]);
        walking[still++] = j;
      }
      count = still;
    }
  }
  return sum;
}

inline std::uint64_t amac_lookup(const hash_table& table, std::span<const std::uint64_t> keys,
                               std::size_t group) {
  WEAVE_ASSERT(group >= 1 && group <= max_probe_group);
  if (table.bucket_count() == 0) return 0;
  // One in-flight probe for `key`: the entry of its chain it visits next (at
  // first its bucket, which the hash gave when the probe started).
  struct state {
    const hash_table::entry* entry;
    std::uint64_t key;
  };
  std::array<state, max_probe_group> ring;
  std::size_t next_key = 0;
  const auto start = [&](state& s) {
    const std::uint64_t key = keys[next_key++];
    s = state{&table.at(table.bucket_of(key)), key};
    weave::detail::prefetch_line(s.entry);
  };

  std::size_t live = 0;
  while (live < group && next_key < keys.size()) start(ring[live++]);
  std::uint64_t sum = 0;
  // Ring slots [0, live) hold probes in flight; each visit examines one entry.
  for (std::size_t j = 0; live > 0; j = j + 1 < live ? j + 1 : 0) {
    state& s = ring[j];
    const detail::probe_step step = detail::visit(*s.entry, s.key);
    if (step.next != hash_table::end) {
      s.entry = &table.at(step.next);
      // Overlaps the miss on the chain's next entry with the visits to the other slots.
      weave::detail::prefetch_line(s.entry);
      continue;
    }
    // The probe is over: count its result and refill the slot at once.
    sum += step.value;
    if (next_key < keys.size()) {
      start(s);
    } else {
      // No keys left: the last slot in flight takes this one and the ring shrinks.
      s = ring[--live];
    }
  }
  return sum;
}

}  // namespace weave::baselines
