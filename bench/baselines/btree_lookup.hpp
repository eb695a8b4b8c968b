#pragma once
// Hand-written baselines for point lookups in the B+-tree, for comparison
// with the coroutine version only (weave::find in btree.hpp):
//
//   naive_lookup  one lookup after another, no prefetching
//   gp_lookup     group prefetching: a group of lookups descends in lockstep,
//               one level for all before the next
//   amac_lookup   asynchronous memory access chaining: a ring of in-flight
//               lookups, each an explicit state machine over the levels
//
// They exist to measure what interleaving by hand buys and costs against
// the coroutine scheduler; nothing in the library uses them. Each returns the
// sum of the values found (0 for a missing key), the same checksum the
// coroutine version yields.
//
// The searches within a node are btree.hpp's own (child_for, position_of);
// only the control flow around them differs. The interleaved variants
// prefetch every node whole (four lines), the cached top levels included.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "weave/assert.hpp"
#include "weave/exec/load.hpp"
#include "weave/index/btree.hpp"

namespace weave::baselines {

// Largest group (gp) or ring (amac) the interleaved variants accept.
inline constexpr std::size_t max_descent_group = 256;

namespace detail {

// Prefetches every line of `node` at `depth` (0 = root): the miss a lookup
// takes on arriving there.
inline void prefetch_node(const btree& tree, std::uint32_t node, unsigned depth) noexcept {
  if (depth < tree.inner_levels()) {
    weave::detail::prefetch_lines(&tree.inner(node), sizeof(btree::inner_node));
  } else {
    weave::detail::prefetch_lines(&tree.leaf(node), sizeof(btree::leaf_node));
  }
}

// The child of inner node `node` on the way to `key`.
inline std::uint32_t descend(const btree& tree, std::uint32_t node, std::uint64_t key) noexcept {
  const btree::inner_node& inner = tree.inner(node);
  return inner.first_child + inner.child_for(key);
}

// The value of the first entry of leaf `node` equal to `key`, or 0.
inline std::uint64_t leaf_value(const btree& tree, std::uint32_t node, std::uint64_t key) noexcept {
  const btree::leaf_node& leaf = tree.leaf(node);
  const std::uint32_t pos = leaf.position_of(key);
  return pos < leaf.count && leaf.keys[pos] == key ? leaf.values[pos] : 0;
}

}  // namespace detail

inline std::uint64_t naive_lookup(const btree& tree, std::span<const std::uint64_t> keys) {
  if (tree.size() == 0) return 0;
  std::uint64_t sum = 0;
  for (const std::uint64_t key : keys) {
    std::uint32_t node = tree.root();
    for (unsigned depth = 0; depth < tree.inner_levels(); ++depth) node = detail::descend(tree, node, key);
    sum += detail::leaf_value(tree, node, key);
  }
  return sum;
}

inline std::uint64_t gp_lookup(const btree& tree, std::span<const std::uint64_t> keys,
                             std::size_t group) {
  WEAVE_ASSERT(group >= 1 && group <= max_descent_group);
  if (tree.size() == 0) return 0;
  std::array<std::uint32_t, max_descent_group> nodes;
  std::uint64_t sum = 0;
  for (std::size_t first = 0; first < keys.size(); first += group) {
    const std::span<const std::uint64_t> batch =
        keys.subspan(first, std::min(group, keys.size() - first));
    // Every lookup descends through all levels, so the group stays in lockstep.
    for (std::size_t j = 0; j < batch.size(); ++j) nodes[j] = tree.root();
    detail::prefetch_node(tree, tree.root(), 0);
    for (unsigned depth = 0; depth < tree.inner_levels(); ++depth) {
      for (std::size_t j = 0; j < batch.size(); ++j) {
        nodes[j] = detail::descend(tree, nodes[j], batch[j]);
        // Overlaps the miss on this lookup's next node with the rest of the level.
        detail::prefetch_node(tree, nodes[j], depth + 1);
      }
    }
    for (std::size_t j = 0; j < batch.size(); ++j) sum += detail::leaf_value(tree, nodes[j], batch[j]);
  }
  return sum;
}

inline std::uint64_t amac_lookup(const btree& tree, std::span<const std::uint64_t> keys,
                               std::size_t group) {
  WEAVE_ASSERT(group >= 1 && group <= max_descent_group);
  if (tree.size() == 0) return 0;
  // One in-flight lookup for `key`: the node it visits next, at `depth`.
  struct state {
    std::uint32_t node;
    unsigned depth;
    std::uint64_t key;
  };
  std::array<state, max_descent_group> ring;
  std::size_t next_key = 0;
  const auto start = [&](state& s) {
    s = state{tree.root(), 0, keys[next_key++]};
    detail::prefetch_node(tree, s.node, 0);
  };

  std::size_t live = 0;
  while (live < group && next_key < keys.size()) start(ring[live++]);
  std::uint64_t sum = 0;
  // Ring slots [0, live) hold lookups in flight; each visit reads one node.
  for (std::size_t j = 0; live > 0; j = j + 1 < live ? j + 1 : 0) {
    state& s = ring[j];
    if (s.depth < tree.inner_levels()) {
      s.node = detail::descend(tree, s.node, s.key);
      ++s.depth;
      // Overlaps the miss on the next node with the visits to the other slots.
      detail::prefetch_node(tree, s.node, s.depth);
      continue;
    }
    // At the leaf: finish the lookup and refill the slot at once.
    sum += detail::leaf_value(tree, s.node, s.key);
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
