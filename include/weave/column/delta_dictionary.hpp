#pragma once
// The dictionary of a Delta fragment: values in arrival order (a value's code
// is its index, so inserting never re-encodes a row) and a B+-tree over the
// codes ordered by their values, for locate.
//
// The tree stores codes only. Comparing a key with an entry therefore costs
// one more indirection, into the value array, and on a large dictionary that
// access is a miss of its own: a lookup suspends on every node below the
// cached levels and on every value it compares there.
//
// Nodes are 256 bytes:
//   inner: `count` separators in slot[0, count), count + 1 children in
//          slot[31, 31 + count + 1); child j holds values v with
//          value(sep[j-1]) <= v < value(sep[j])
//   leaf:  `count` codes in slot[0, count), ascending by value

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "weave/column/bit_packed.hpp"
#include "weave/column/value_array.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/task.hpp"
#include "weave/memory/append_buffer.hpp"
#include "weave/memory/machine.hpp"

namespace weave::column {

struct delta_node {
  static constexpr std::uint16_t leaf_capacity = 63;
  static constexpr std::uint16_t inner_capacity = 31;  // separators; children one more

  std::uint16_t count;
  std::uint16_t leaf;
  std::uint32_t slot[63];

  std::uint32_t child(std::size_t j) const noexcept { return slot[inner_capacity + j]; }
  void set_child(std::size_t j, std::uint32_t node) noexcept { slot[inner_capacity + j] = node; }
};
static_assert(sizeof(delta_node) == 256);

template <class T>
class delta_dictionary {
 public:
  using value_type = T;
  using key_type = key_t<T>;

  explicit delta_dictionary(unsigned max_length = 255) : values_(max_length) {}

  std::size_t size() const noexcept { return values_.size(); }
  std::size_t bytes() const noexcept { return values_.bytes() + nodes_.bytes(); }
  key_type at(code_t code) const noexcept { return values_.at(code); }
  const value_array<T>& values() const noexcept { return values_; }
  bool empty() const noexcept { return nodes_.empty(); }
  std::uint32_t root() const noexcept { return root_; }
  const delta_node& node(std::uint32_t id) const noexcept { return nodes_[id]; }
  unsigned hot_levels() const noexcept { return hot_levels_; }

  // The code of `key`, appending it if new.
  code_t insert(key_type key) {
    if (nodes_.empty()) root_ = new_node(true);
    std::optional<code_t> found;
    const auto split = insert_into(root_, key, found);
    if (found) return *found;
    if (split) {
      const std::uint32_t old_root = root_;
      root_ = new_node(false);
      delta_node& r = nodes_[root_];
      r.count = 1;
      r.slot[0] = split->separator;
      r.set_child(0, old_root);
      r.set_child(1, split->right);
    }
    return static_cast<code_t>(values_.size() - 1);
  }

  // Replaces the contents: `values` in code order, `by_value` the codes in
  // ascending order of their values (all distinct). Nodes are filled to 3/4,
  // like a tree that grew by inserts.
  template <class Values>
  void bulk_load(const Values& values, std::span<const code_t> by_value) {
    values_ = value_array<T>(max_length_of(values_));
    nodes_ = append_buffer<delta_node>();
    values_.reserve(std::size(values));
    for (const auto& v : values) values_.push_back(v);
    if (by_value.size() != values_.size()) throw std::invalid_argument("bulk_load needs every code once");
    for (std::size_t i = 1; i < by_value.size(); ++i) {
      if (!(values_.at(by_value[i - 1]) < values_.at(by_value[i]))) {
        throw std::invalid_argument("bulk_load needs distinct values in ascending order");
      }
    }
    if (by_value.empty()) return;
    const std::size_t per_leaf = delta_node::leaf_capacity * 3 / 4;
    const std::size_t per_inner = (delta_node::inner_capacity + 1) * 3 / 4;
    // (node, smallest code below it) of the level being built
    std::vector<std::pair<std::uint32_t, code_t>> level;
    for (std::size_t first = 0; first < by_value.size(); first += per_leaf) {
      const std::size_t n = std::min(per_leaf, by_value.size() - first);
      const std::uint32_t id = new_node(true);
      delta_node& leaf = nodes_[id];
      std::copy_n(by_value.begin() + static_cast<std::ptrdiff_t>(first), n, leaf.slot);
      leaf.count = static_cast<std::uint16_t>(n);
      level.emplace_back(id, by_value[first]);
    }
    while (level.size() > 1) {
      std::vector<std::pair<std::uint32_t, code_t>> parents;
      for (std::size_t first = 0; first < level.size(); first += per_inner) {
        std::size_t n = std::min(per_inner, level.size() - first);
        // A last parent of one child would be a node with no separator.
        if (level.size() - first - n == 1) ++n;
        const std::uint32_t id = new_node(false);
        delta_node& inner = nodes_[id];
        for (std::size_t j = 0; j < n; ++j) {
          inner.set_child(j, level[first + j].first);
          if (j > 0) inner.slot[j - 1] = level[first + j].second;
        }
        inner.count = static_cast<std::uint16_t>(n - 1);
        parents.emplace_back(id, level[first].second);
        if (n > per_inner) ++first;  // took one extra child
      }
      level = std::move(parents);
    }
    root_ = level.front().first;
  }

 private:
  struct split_result {
    code_t separator;
    std::uint32_t right;
  };

  static unsigned max_length_of(const value_array<T>& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      return static_cast<unsigned>(v.stride() - 1);
    } else {
      return 0;
    }
  }

  std::uint32_t new_node(bool leaf) {
    delta_node n{};
    n.leaf = leaf ? 1 : 0;
    return static_cast<std::uint32_t>(nodes_.push_back(n));
  }

  // Position of the first entry of `n` not less than `key` (leaf), or the
  // number of separators not greater than it (inner: the child to take).
  std::size_t position(const delta_node& n, key_type key, bool leaf) const {
    std::size_t lo = 0, len = n.count;
    while (len > 0) {
      const std::size_t half = len / 2;
      const key_type v = values_.at(n.slot[lo + half]);
      if (leaf ? v < key : !(key < v)) {
        lo += half + 1;
        len -= half + 1;
      } else {
        len = half;
      }
    }
    return lo;
  }

  // Inserts into the subtree at `id`; sets `found` if the key was there.
  // Returns the new right sibling if `id` split.
  std::optional<split_result> insert_into(std::uint32_t id, key_type key, std::optional<code_t>& found) {
    if (nodes_[id].leaf) {
      const std::size_t pos = position(nodes_[id], key, true);
      if (pos < nodes_[id].count && !(key < values_.at(nodes_[id].slot[pos]))) {
        found = nodes_[id].slot[pos];
        return std::nullopt;
      }
      const code_t code = values_.push_back(key);
      delta_node& leaf = nodes_[id];
      std::copy_backward(leaf.slot + pos, leaf.slot + leaf.count, leaf.slot + leaf.count + 1);
      leaf.slot[pos] = code;
      if (++leaf.count < delta_node::leaf_capacity) return std::nullopt;
      const std::uint32_t right_id = new_node(true);  // may move nodes_
      delta_node& full = nodes_[id];
      delta_node& right = nodes_[right_id];
      const std::uint16_t keep = full.count / 2;
      right.count = static_cast<std::uint16_t>(full.count - keep);
      std::copy_n(full.slot + keep, right.count, right.slot);
      full.count = keep;
      return split_result{right.slot[0], right_id};
    }
    const std::size_t j = position(nodes_[id], key, false);
    const auto split = insert_into(nodes_[id].child(j), key, found);
    if (!split) return std::nullopt;
    delta_node& inner = nodes_[id];
    // Separator j and child j + 1 for the new right half.
    std::copy_backward(inner.slot + j, inner.slot + inner.count, inner.slot + inner.count + 1);
    inner.slot[j] = split->separator;
    for (std::size_t c = inner.count + 1; c > j + 1; --c) inner.set_child(c, inner.child(c - 1));
    inner.set_child(j + 1, split->right);
    if (++inner.count < delta_node::inner_capacity) return std::nullopt;
    const std::uint32_t right_id = new_node(false);
    delta_node& full = nodes_[id];
    delta_node& right = nodes_[right_id];
    const std::uint16_t keep = full.count / 2;  // separators left; one moves up
    right.count = static_cast<std::uint16_t>(full.count - keep - 1);
    std::copy_n(full.slot + keep + 1, right.count, right.slot);
    for (std::size_t c = 0; c <= right.count; ++c) right.set_child(c, full.child(keep + 1 + c));
    const code_t up = full.slot[keep];
    full.count = keep;
    return split_result{up, right_id};
  }

  value_array<T> values_;
  append_buffer<delta_node> nodes_;
  std::uint32_t root_ = 0;
  unsigned hot_levels_ = machine::hot_levels(24, sizeof(delta_node));
};

// The code of `key`, if the dictionary holds it.
template <execution_policy Policy, class T>
task<std::optional<code_t>> locate(const delta_dictionary<T>& dict, key_t<T> key) {
  if (dict.empty()) co_return std::nullopt;
  const value_array<T>& values = dict.values();
  std::uint32_t id = dict.root();
  for (unsigned depth = 0;; ++depth) {
    const delta_node& n = dict.node(id);
    const bool cold = depth >= dict.hot_levels();
    // Hides the miss on the node, then on each value a comparison needs.
    co_await prefetch<Policy>(&n, sizeof n, cold);
    const bool leaf = n.leaf != 0;
    std::size_t lo = 0, len = n.count;
    while (len > 0) {
      const std::size_t half = len / 2;
      const code_t code = n.slot[lo + half];
      co_await prefetch<Policy>(values.address(code), values.stride(), cold);
      const key_t<T> v = values.at(code);
      if (leaf ? v < key : !(key < v)) {
        lo += half + 1;
        len -= half + 1;
      } else {
        len = half;
      }
    }
    if (!leaf) {
      id = n.child(lo);
      continue;
    }
    // A lower bound has compared the entry it ends on, so its value is cached.
    if (lo < n.count && values.at(n.slot[lo]) == key) co_return n.slot[lo];
    co_return std::nullopt;
  }
}

template <execution_policy Policy, class T>
task<T> extract(const delta_dictionary<T>& dict, code_t code) {
  co_await prefetch<Policy>(dict.values().address(code), dict.values().stride());
  co_return T(dict.at(code));
}

}  // namespace weave::column
