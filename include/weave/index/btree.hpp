#pragma once
// A cache-conscious B+-tree from 64-bit keys to 64-bit values, bulk-loaded
// from sorted pairs and then read-only.
//
// Nodes are 256 bytes (four cache lines), fetched whole with one prefetch
// each. As in a CSB+-tree the children of a node are contiguous, so an inner
// node stores one child index instead of a pointer per child:
//
//   inner_node: keys[31] | first_child | count      child i = first_child + i
//   leaf_node:  keys[16] | values[15]  | count
//
// keys[i] of an inner node is the largest key in child i (for i < count - 1);
// unused key slots hold the largest key value, so a search counts the keys
// less than the search key without looking at `count`. The child so found is
// the first whose keys reach the search key: with duplicate keys the search
// lands on the first of them, even across leaves.
//
// Levels are stored bottom-up: leaves in one array, inner nodes in another,
// level by level, the root last.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "weave/exec/load.hpp"
#include "weave/exec/request_stream.hpp"
#include "weave/exec/task.hpp"
#include "weave/memory/huge_buffer.hpp"
#include "weave/memory/machine.hpp"

namespace weave {

class btree {
 public:
  static constexpr std::size_t node_bytes = 256;
  static constexpr std::uint64_t pad_key = std::numeric_limits<std::uint64_t>::max();

  struct alignas(64) inner_node {
    static constexpr std::size_t fanout = 32;
    std::uint64_t keys[fanout - 1];
    std::uint32_t first_child;
    std::uint32_t count;

    // Index of the child whose subtree holds the first key >= `key`.
    std::uint32_t child_for(std::uint64_t key) const noexcept {
      // Branchless search over 31 sorted keys (a 32nd is implied to be pad_key).
      std::uint32_t pos = 0;
      for (std::uint32_t step = 16; step > 0; step /= 2) {
        pos += keys[pos + step - 1] < key ? step : 0;
      }
      return pos;
    }
  };

  struct alignas(64) leaf_node {
    static constexpr std::size_t capacity = 15;
    std::uint64_t keys[capacity + 1];  // keys[capacity] is always pad_key
    std::uint64_t values[capacity];
    std::uint32_t count;

    // Position of the first key >= `key` (count if none).
    std::uint32_t position_of(std::uint64_t key) const noexcept {
      std::uint32_t pos = 0;
      for (std::uint32_t step = 8; step > 0; step /= 2) {
        pos += keys[pos + step - 1] < key ? step : 0;
      }
      pos += keys[pos] < key ? 1 : 0;
      return pos;
    }
  };
  static_assert(sizeof(inner_node) == node_bytes && sizeof(leaf_node) == node_bytes);

  btree() = default;

  // Builds the tree from pairs sorted by key. `fill` in (0, 1] is how full leaves
  // and inner nodes are made (1 packs them).
  template <class Pairs>
  static btree bulk_load(const Pairs& sorted, double fill = 1.0) {
    btree t;
    t.build(std::size(sorted), [&](std::size_t i) -> std::pair<std::uint64_t, std::uint64_t> {
      const auto& [k, v] = sorted[i];
      return {k, v};
    }, fill);
    return t;
  }

  // The same from a function giving the i-th pair, for trees too large to
  // hold as pairs in memory twice.
  template <class PairAt>
  static btree bulk_load(std::size_t count, PairAt pair_at, double fill = 1.0) {
    btree t;
    t.build(count, pair_at, fill);
    return t;
  }

  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return leaves_.bytes() + inners_.bytes(); }
  // Inner levels above the leaves (0: the root is a leaf).
  unsigned inner_levels() const noexcept { return inner_levels_; }
  std::uint32_t root() const noexcept { return root_; }
  const inner_node& inner(std::uint32_t i) const noexcept { return inners_[i]; }
  const leaf_node& leaf(std::uint32_t i) const noexcept { return leaves_[i]; }

  // Levels from the root that stay cached (suspending there only costs a switch).
  unsigned hot_levels() const noexcept { return hot_levels_; }
  void set_hot_levels(unsigned levels) noexcept { hot_levels_ = levels; }

 private:
  template <class PairAt>
  void build(std::size_t count, PairAt pair_at, double fill) {
    if (!(fill > 0 && fill <= 1)) throw std::invalid_argument("fill must be in (0, 1]");
    const auto per_leaf = std::max<std::size_t>(1, static_cast<std::size_t>(leaf_node::capacity * fill));
    const auto per_inner =
        std::max<std::size_t>(2, static_cast<std::size_t>(inner_node::fanout * fill));
    // Rounded up without count + per_leaf - 1, which overflows near SIZE_MAX.
    const std::size_t leaf_count = std::max<std::size_t>(1, count / per_leaf + (count % per_leaf != 0 ? 1 : 0));
    if (leaf_count > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("btree too large");
    size_ = count;
    leaves_ = huge_buffer<leaf_node>(leaf_count);
    // The largest key of each node of the level being built, for its parent.
    std::vector<std::uint64_t> max_keys(leaf_count);
    for (std::size_t l = 0; l < leaf_count; ++l) {
      leaf_node& leaf = leaves_[l];
      const std::size_t first = l * per_leaf;
      const std::size_t n = std::min(per_leaf, count - std::min(count, first));
      std::uint64_t previous = 0;
      for (std::size_t j = 0; j <= leaf_node::capacity; ++j) leaf.keys[j] = pad_key;
      for (std::size_t j = 0; j < n; ++j) {
        const auto [key, value] = pair_at(first + j);
        if ((j > 0 || l > 0) && key < previous) throw std::invalid_argument("bulk_load needs sorted keys");
        leaf.keys[j] = key;
        leaf.values[j] = value;
        previous = key;
      }
      leaf.count = static_cast<std::uint32_t>(n);
      max_keys[l] = n > 0 ? leaf.keys[n - 1] : pad_key;
    }

    // Inner levels, bottom-up, appended to one array.
    std::vector<inner_node> inners;
    std::size_t level_first = 0;       // first node of the level below, in its array
    std::size_t level_count = leaf_count;
    inner_levels_ = 0;
    while (level_count > 1) {
      const std::size_t parents = (level_count + per_inner - 1) / per_inner;
      std::vector<std::uint64_t> parent_max(parents);
      const std::size_t parents_first = inners.size();
      for (std::size_t p = 0; p < parents; ++p) {
        inner_node node{};
        const std::size_t first = p * per_inner;
        const std::size_t n = std::min(per_inner, level_count - first);
        for (std::size_t j = 0; j + 1 < inner_node::fanout; ++j) node.keys[j] = pad_key;
        for (std::size_t j = 0; j + 1 < n; ++j) node.keys[j] = max_keys[first + j];
        node.first_child = static_cast<std::uint32_t>(level_first + first);
        node.count = static_cast<std::uint32_t>(n);
        parent_max[p] = max_keys[first + n - 1];
        inners.push_back(node);
      }
      max_keys = std::move(parent_max);
      level_first = parents_first;
      level_count = parents;
      ++inner_levels_;
    }
    inners_ = huge_buffer<inner_node>(inners.size());
    std::copy(inners.begin(), inners.end(), inners_.data());
    root_ = static_cast<std::uint32_t>(inner_levels_ > 0 ? inners.size() - 1 : 0);
    hot_levels_ = machine::hot_levels(per_inner, node_bytes);
  }

  huge_buffer<leaf_node> leaves_;
  huge_buffer<inner_node> inners_;
  std::size_t size_ = 0;
  unsigned inner_levels_ = 0;
  unsigned hot_levels_ = 0;
  std::uint32_t root_ = 0;
};

// Descents a slot of a ring advances at each resume, when its stream lets it
// hold several requests (ticketed_request_stream, as the binary search of
// sorted_array.hpp does with four). Every descent of the tree is as deep,
// so they go in lockstep and share each suspension. A level's node search
// is several times a binary-search level's work, and the slot prefetches
// four lines a node for each: two measured best (docs/results/lookups.md).
inline constexpr std::size_t descents_per_slot = 2;

// For each key of `requests`, the value of the first entry whose key equals
// it, if any. The top levels run as a plain descent, state in registers;
// each level below them, and the leaf, is one suspension for all of a
// slot's descents.
template <execution_policy Policy, request_stream<std::uint64_t, std::optional<std::uint64_t>> Requests>
typename Requests::task_type find(const btree& tree, Requests requests) {
  constexpr std::size_t width =
      Policy::suspends && ticketed_request_stream<Requests, std::uint64_t, std::optional<std::uint64_t>>
          ? descents_per_slot
          : 1;
  request_batch<width, std::uint64_t, Requests> key;
  while (key.take(requests)) {
    std::array<std::uint32_t, width> node;
    node.fill(tree.root());
    unsigned depth = 0;
    // The top levels are cached: a plain descent, state in registers.
    for (; depth < tree.inner_levels() && depth < tree.hot_levels(); ++depth) {
      for (std::size_t j = 0; j < width; ++j) {
        const btree::inner_node& inner = tree.inner(node[j]);
        node[j] = inner.first_child + inner.child_for(key[j]);
      }
    }
    for (; depth < tree.inner_levels(); ++depth) {
      // Hides the miss on an inner node below the cached levels (all four
      // lines: as an aligned object, four prefetch instructions, where a
      // pointer and a size cost a line count and a jump into an unrolled loop).
      for (std::size_t j = 1; j < width; ++j) detail::prefetch_object(tree.inner(node[j]));
      co_await prefetch<Policy>(tree.inner(node[0]));
      for (std::size_t j = 0; j < width; ++j) {
        const btree::inner_node& inner = tree.inner(node[j]);
        node[j] = inner.first_child + inner.child_for(key[j]);
      }
    }
    // Hides the miss on the leaf, unless the whole tree is cached.
    const bool cold = depth >= tree.hot_levels();
    if (cold) {
      for (std::size_t j = 1; j < width; ++j) detail::prefetch_object(tree.leaf(node[j]));
    }
    co_await prefetch<Policy>(tree.leaf(node[0]), cold);
    for (std::size_t j = 0; j < key.size(); ++j) {
      const btree::leaf_node& leaf = tree.leaf(node[j]);
      const std::uint32_t pos = leaf.position_of(key[j]);
      key.deliver(requests, j,
                  pos < leaf.count && leaf.keys[pos] == key[j] ? std::optional(leaf.values[pos]) : std::nullopt);
    }
  }
  co_return requests.finish();
}

// The value of the first entry whose key equals `key`, if any.
template <execution_policy Policy>
task<std::optional<std::uint64_t>> find(const btree& tree, std::uint64_t key) {
  return find<Policy>(tree, one_request<std::uint64_t, std::optional<std::uint64_t>>{key});
}

}  // namespace weave
