#pragma once
// The four structures of `weave bench lookup`: how each is generated, which
// keys its lookups ask for, and which coroutine looks a key up. The baselines
// are found by overloading on the structure (baselines::naive_lookup, ...).
// Every variant of one structure computes the same checksum: the sum of the
// lookup results (positions for binary search, stored values for the others,
// 0 for a missing key).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string_view>

#include "bench/baselines/binary_search.hpp"
#include "bench/baselines/btree_lookup.hpp"
#include "bench/baselines/hash_probe.hpp"
#include "bench/workload/key_chooser.hpp"
#include "weave/index/btree.hpp"
#include "weave/index/fixed_string.hpp"
#include "weave/index/hash_table.hpp"
#include "weave/index/sorted_array.hpp"

namespace weave::bench {

// Reports build progress as a fraction in [0, 1].
using progress_fn = std::function<void(double)>;

// Lookups one slot of a ring holds at once: Traits::lookups_per_slot where
// the structure's streamed lookup runs several, else 1.
template <class Traits>
constexpr std::size_t lookups_per_slot() {
  if constexpr (requires { Traits::lookups_per_slot; }) {
    return Traits::lookups_per_slot;
  } else {
    return 1;
  }
}

inline std::uint64_t checksum_term(std::size_t v) { return v; }
template <class T>
std::uint64_t checksum_term(const std::optional<T>& v) {
  return v ? static_cast<std::uint64_t>(*v) : 0;
}

// Sorted int32 keys with gaps of 0 to 14 (so some repeat), spanning most of the int32 range.
struct binary_search_int {
  static constexpr std::string_view name = "binary-search";
  using structure = sorted_array<std::int32_t>;
  using key = std::int32_t;
  static constexpr std::size_t bytes_per_key = sizeof(key);
  // Searches one slot of a ring runs at once (sorted_array.hpp).
  static constexpr std::size_t lookups_per_slot = searches_per_slot;

  static structure build(std::size_t n, std::uint64_t seed, const progress_fn& progress) {
    huge_buffer<key> keys(n);
    std::int64_t k = std::numeric_limits<std::int32_t>::min();
    std::uint64_t state = seed;
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = static_cast<key>(k);
      state = scramble(state + i);
      // Mean gap 7 keeps 2^29 keys inside the int32 range.
      k = std::min<std::int64_t>(k + static_cast<std::int64_t>(state % 15), std::numeric_limits<std::int32_t>::max());
      if ((i & 0xffffff) == 0) progress(static_cast<double>(i) / static_cast<double>(n));
    }
    return structure(std::move(keys));
  }
  static key key_at(const structure& s, std::uint64_t, std::size_t i) { return s[i]; }

  // One key, or a stream of them.
  template <class Policy, class Request>
  static auto lookup(const structure& s, Request request) {
    return lower_bound<Policy>(s, std::move(request));
  }
};

// Sorted 16-byte keys: an 8-byte big-endian sequence number with gaps, then 8 random bytes.
struct binary_search_str {
  static constexpr std::string_view name = "binary-search-str";
  using structure = sorted_array<key16>;
  using key = key16;
  static constexpr std::size_t bytes_per_key = sizeof(key);
  // Searches one slot of a ring runs at once (sorted_array.hpp).
  static constexpr std::size_t lookups_per_slot = searches_per_slot;

  static structure build(std::size_t n, std::uint64_t seed, const progress_fn& progress) {
    huge_buffer<key> keys(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t r = scramble(seed ^ (i * 0x9e3779b97f4a7c15ULL));
      const std::uint64_t prefix = __builtin_bswap64(i * 4 + r % 4);
      const std::uint64_t suffix = scramble(r);
      std::memcpy(keys[i].bytes.data(), &prefix, 8);
      std::memcpy(keys[i].bytes.data() + 8, &suffix, 8);
      if ((i & 0xffffff) == 0) progress(static_cast<double>(i) / static_cast<double>(n));
    }
    return structure(std::move(keys));
  }
  static key key_at(const structure& s, std::uint64_t, std::size_t i) { return s[i]; }

  // One key, or a stream of them.
  template <class Policy, class Request>
  static auto lookup(const structure& s, Request request) {
    return lower_bound<Policy>(s, std::move(request));
  }
};

// n distinct scrambled 64-bit keys; key i maps to value i, at load factor 1.
struct hash_probe {
  static constexpr std::string_view name = "hash";
  using structure = hash_table;
  using key = std::uint64_t;
  static constexpr std::size_t bytes_per_key = 2 * sizeof(hash_table::entry);
  // Probes one slot of a ring keeps in flight (hash_table.hpp).
  static constexpr std::size_t lookups_per_slot = probes_per_slot;

  static std::uint64_t key_of(std::size_t i, std::uint64_t seed) { return scramble(i ^ seed); }

  static structure build(std::size_t n, std::uint64_t seed, const progress_fn& progress) {
    if (n > std::numeric_limits<std::uint32_t>::max() / 2) throw std::invalid_argument("too many keys for the hash table");
    hash_table table(n, 1.0);
    for (std::size_t i = 0; i < n; ++i) {
      table.insert(key_of(i, seed), static_cast<std::uint32_t>(i));
      if ((i & 0xfffff) == 0) progress(static_cast<double>(i) / static_cast<double>(n));
    }
    return table;
  }
  // The table does not keep its keys in order; the generator recomputes them.
  static key key_at(const structure&, std::uint64_t seed, std::size_t i) { return key_of(i, seed); }

  // One key, or a stream of them.
  template <class Policy, class Request>
  static auto lookup(const structure& s, Request request) {
    return find<Policy>(s, std::move(request));
  }
};

// Keys 3i + (0..2), values i, bulk-loaded into full nodes.
struct btree_lookup {
  static constexpr std::string_view name = "btree";
  using structure = btree;
  using key = std::uint64_t;
  static constexpr std::size_t bytes_per_key = btree::node_bytes / btree::leaf_node::capacity + 8;
  // Descents one slot of a ring runs at once (btree.hpp).
  static constexpr std::size_t lookups_per_slot = descents_per_slot;

  static std::uint64_t key_of(std::size_t i, std::uint64_t seed) { return 3 * i + scramble(i ^ seed) % 3; }

  static structure build(std::size_t n, std::uint64_t seed, const progress_fn& progress) {
    return btree::bulk_load(n, [&](std::size_t i) {
      if ((i & 0xffffff) == 0) progress(static_cast<double>(i) / static_cast<double>(n));
      return std::pair<std::uint64_t, std::uint64_t>{key_of(i, seed), i};
    });
  }
  static key key_at(const structure&, std::uint64_t seed, std::size_t i) { return key_of(i, seed); }

  // One key, or a stream of them.
  template <class Policy, class Request>
  static auto lookup(const structure& s, Request request) {
    return find<Policy>(s, std::move(request));
  }
};

}  // namespace weave::bench
