#pragma once
// A concurrent B+-tree from keys to 64-bit values with optimistic lock
// coupling (Leis et al.): readers take no locks. Each node carries a
// version word; a reader notes it, reads the node, and checks it again before
// trusting what it read, restarting from the root if a writer intervened.
// Writers lock only the nodes they change (a leaf, or a node and its parent
// when splitting), upgrading from the version they read.
//
// Lookups and scans are single-level coroutines: below the cached levels a
// lookup prefetches the next node (all of its lines) and suspends before
// reading it, so under an interleaved scheduler other lookups overlap its
// misses. A restart after a suspension costs a descent, not correctness.
//
// Node fields are atomics read with acquire and written with release order
// (plain loads and stores on x86), so that the optimistic reads are defined
// behaviour and clean under ThreadSanitizer without fences: a reader that
// sees a writer's store also sees that writer's lock on the version.
//
// Keys are 64-bit integers (olc_btree: 512-byte nodes; inner nodes hold 30
// keys and 31 children, leaves 30 entries and a link to the next leaf) or
// byte strings of up to 47 bytes held inline (olc_string_btree: 1 KiB
// nodes of 17 keys). Full nodes split on the way down, so a split never has
// to climb. Removal does not merge nodes and nodes are never
// freed while the tree lives, so readers need no epoch protection here.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "weave/exec/load.hpp"
#include "weave/exec/task.hpp"
#include "weave/index/byte_key.hpp"
#include "weave/index/node_search.hpp"
#include "weave/memory/chunk_arena.hpp"
#include "weave/memory/machine.hpp"

namespace weave {

namespace detail {
// How a key type sits in a node: as `words` 64-bit words that compare, in
// order, like the keys.
template <class Key>
struct olc_key;
template <>
struct olc_key<std::uint64_t> {
  static constexpr unsigned words = 1;
  static constexpr std::size_t node_bytes = 512;
  static std::uint64_t word(std::uint64_t k, unsigned) noexcept { return k; }
  static std::uint64_t from_words(const std::array<std::uint64_t, 1>& w) noexcept { return w[0]; }
  static std::uint64_t largest() noexcept { return ~std::uint64_t{0}; }
};
template <>
struct olc_key<byte_key> {
  static constexpr unsigned words = byte_key::words;
  static constexpr std::size_t node_bytes = 1024;
  static std::uint64_t word(const byte_key& k, unsigned i) noexcept { return k.word(i); }
  static byte_key from_words(const std::array<std::uint64_t, words>& w) noexcept { return byte_key::from_words(w); }
  static byte_key largest() noexcept { return byte_key::largest(); }
};
}  // namespace detail

template <class Key>
class basic_olc_btree {
  using traits = detail::olc_key<Key>;
  static constexpr unsigned key_words = traits::words;

 public:
  static constexpr std::size_t node_bytes = traits::node_bytes;
  // Keys a node holds: a 24-byte header, then the keys, then one slot more.
  static constexpr unsigned capacity = (node_bytes - 24) / (8 * key_words + 8);
  static constexpr unsigned inner_keys = capacity;
  static constexpr unsigned leaf_keys = capacity;

  struct node;
  class descent;
  using key_type = Key;
  using value_type = std::uint64_t;

  // Version word: bit 0 obsolete (unused: nodes are never retired yet), bit 1
  // locked, the rest a counter bumped by every unlock.
  static constexpr std::uint64_t locked_bit = 2;

  // Aligned to a cache line (as the arena places them), so that prefetching
  // one is a fixed run of prefetch instructions.
  struct alignas(machine::cache_line) node {
    std::atomic<std::uint64_t> version{0};
    std::atomic<std::uint32_t> count{0};
    const bool leaf;
    // A leaf's word for its user, kept across splits (the new right leaf
    // starts with a copy): the transaction engine keeps there the latest
    // commit that read the absence of keys in the leaf's range.
    mutable std::atomic<std::uint64_t> mark{0};
    std::atomic<std::uint64_t> keys[capacity * key_words];
    // Inner: child pointers in slots 0..count. Leaf: values in slots
    // 0..count-1, the next leaf in the last slot.
    std::atomic<std::uintptr_t> slots[capacity + 1];

    explicit node(bool is_leaf) : leaf(is_leaf) {
      for (auto& k : keys) k.store(0, std::memory_order_relaxed);
      for (auto& s : slots) s.store(0, std::memory_order_relaxed);
    }

    node* child(unsigned i) const noexcept {
      return reinterpret_cast<node*>(slots[i].load(std::memory_order_acquire));
    }
    void set_child(unsigned i, node* c) noexcept {
      slots[i].store(reinterpret_cast<std::uintptr_t>(c), std::memory_order_release);
    }
    std::uint64_t value(unsigned i) const noexcept { return slots[i].load(std::memory_order_acquire); }
    void set_value(unsigned i, std::uint64_t v) noexcept { slots[i].store(v, std::memory_order_release); }
    node* next() const noexcept { return child(capacity); }
    void set_next(node* n) noexcept { set_child(capacity, n); }
    void set_key(unsigned i, const Key& k) noexcept {
      for (unsigned w = 0; w < key_words; ++w) keys[i * key_words + w].store(traits::word(k, w), std::memory_order_release);
    }
    Key key(unsigned i) const noexcept {
      std::array<std::uint64_t, key_words> w;
      for (unsigned j = 0; j < key_words; ++j) w[j] = keys[i * key_words + j].load(std::memory_order_acquire);
      return traits::from_words(w);
    }
    // Key i against k: negative, zero or positive. Stops at the first word
    // that differs.
    int compare(unsigned i, const Key& k) const noexcept {
      for (unsigned w = 0; w < key_words; ++w) {
        const std::uint64_t a = keys[i * key_words + w].load(std::memory_order_acquire), b = traits::word(k, w);
        if (a != b) return a < b ? -1 : 1;
      }
      return 0;
    }
    void move_key(unsigned to, const node& from, unsigned i) noexcept {
      for (unsigned w = 0; w < key_words; ++w) {
        keys[to * key_words + w].store(from.keys[i * key_words + w].load(std::memory_order_acquire),
                                       std::memory_order_release);
      }
    }
    unsigned size() const noexcept { return count.load(std::memory_order_acquire); }
    bool full() const noexcept { return size() == capacity; }

    // First position whose key is >= k (leaf), or the child to follow (inner:
    // child i holds keys in [key(i-1), key(i))).
    // Nodes of one-word keys compare all keys at once where the CPU has
    // vector compares, whatever the search asked for.
    unsigned lower_bound(const Key& k, node_search s = node_search::branchy) const noexcept {
      if constexpr (key_words == 1 && WEAVE_VECTOR_NODE_SEARCH) return count_below_vector<false>(k);
      return s == node_search::branchy ? count_below<false>(k) : count_below_unpredictable<false>(k);
    }
    unsigned child_for(const Key& k, node_search s = node_search::branchy) const noexcept {
      if constexpr (key_words == 1 && WEAVE_VECTOR_NODE_SEARCH) return count_below_vector<true>(k);
      return s == node_search::branchy ? count_below<true>(k) : count_below_unpredictable<true>(k);
    }

    // Keys below k (or at most k), by a binary search that branches on each
    // comparison: cheapest while the branches predict well.
    template <bool OrEqual>
    unsigned count_below(const Key& k) const noexcept {
      const unsigned n = std::min<unsigned>(size(), capacity);  // a torn count is caught by the version check
      unsigned lo = 0;
      for (unsigned len = n; len > 0;) {
        const unsigned half = len / 2;
        if (below<OrEqual>(lo + half, k)) {
          lo += half + 1;
          len -= half + 1;
        } else {
          len = half;
        }
      }
      return lo;
    }
    template <bool OrEqual>
    unsigned count_below_vector(const Key& k) const noexcept {
      return weave::count_below_vector<capacity, OrEqual>(keys, std::min<unsigned>(size(), capacity),
                                                          traits::word(k, 0));
    }
    // The same without a branch on the comparisons: see node_search.hpp.
    template <bool OrEqual>
    unsigned count_below_unpredictable(const Key& k) const noexcept {
      return weave::count_below_unpredictable(std::min<unsigned>(size(), capacity),
                                              [&](unsigned i) { return below<OrEqual>(i, k); });
    }
    template <bool OrEqual>
    bool below(unsigned i, const Key& k) const noexcept {
      if constexpr (key_words == 1) {  // one compare, which a conditional move can take
        const std::uint64_t a = keys[i].load(std::memory_order_acquire), b = traits::word(k, 0);
        return OrEqual ? a <= b : a < b;
      } else {
        const int c = compare(i, k);
        return OrEqual ? c <= 0 : c < 0;
      }
    }
  };
  static_assert(sizeof(node) <= node_bytes);

  basic_olc_btree() { root_.store(make_node(true), std::memory_order_release); }
  basic_olc_btree(const basic_olc_btree&) = delete;
  basic_olc_btree& operator=(const basic_olc_btree&) = delete;

  node* root() const noexcept { return root_.load(std::memory_order_acquire); }
  // Levels from the root that stay cached (no suspension there); all of
  // them while the whole tree fits in the cache.
  unsigned hot_levels() const noexcept {
    return machine::fits_in_cache(nodes_count_.load(std::memory_order_relaxed) * node_bytes) ? ~0u : hot_levels_;
  }
  void set_hot_levels(unsigned levels) noexcept { hot_levels_ = levels; }
  std::size_t bytes() const {
    return nodes_count_.load(std::memory_order_relaxed) * node_bytes;
  }

  // --- optimistic lock coupling ---------------------------------------
  // The version to check later, or nothing if a writer holds the node.
  static std::optional<std::uint64_t> read_lock(const node& n) noexcept {
    const std::uint64_t v = n.version.load(std::memory_order_acquire);
    if (v & locked_bit) return std::nullopt;
    return v;
  }
  // Whether nothing changed in `n` since read_lock returned `v`.
  static bool validate(const node& n, std::uint64_t v) noexcept {
    return n.version.load(std::memory_order_acquire) == v;
  }
  static bool upgrade(node& n, std::uint64_t v) noexcept {
    return n.version.compare_exchange_strong(v, v + locked_bit, std::memory_order_acquire);
  }
  // Only the holder changes a locked version, so a store releases it: a
  // locked add would also wait for the node's writes to reach the cache.
  static void write_unlock(node& n) noexcept {
    n.version.store(n.version.load(std::memory_order_relaxed) + locked_bit, std::memory_order_release);
  }

  // Inserts or overwrites key -> value; returns true if the key was new.
  bool insert(const Key& key, std::uint64_t value) {
    const auto same = [value] { return value; };
    return insert_with(key, same, ignore_split{}, true).inserted;
  }

  // What an insert did, and where: the leaf that holds the key and its
  // version before and after the insert (equal if nothing was inserted), so
  // that a caller that noted the leaf earlier can tell its own change from
  // others'.
  struct insert_outcome {
    bool inserted;
    std::uint64_t value;  // the value now under the key: the new one, or the one it had
    const node* leaf;
    std::uint64_t version_before;
    std::uint64_t version_after;
  };

  // Inserts key -> make_value() unless the key is present. make_value runs
  // only for an absent key, once, while the leaf is locked: what it
  // publishes is in place before any reader can find the key. If it
  // throws, nothing is inserted. Each leaf the insert splits on its way is
  // passed to on_split(left, version before, version after, right, its
  // version): the two hold what the left one held before.
  struct ignore_split {
    void operator()(const node&, std::uint64_t, std::uint64_t, const node&, std::uint64_t) const noexcept {}
  };
  template <class MakeValue, class OnSplit = ignore_split>
  insert_outcome insert_if_absent(const Key& key, const MakeValue& make_value, const OnSplit& on_split = {}) {
    return insert_with(key, make_value, on_split, false);
  }

  // Removes key; returns whether it was there.
  bool remove(const Key& key);

  // --- a tree that no one else reads or writes meanwhile (recovery) -------
  // Fills an empty tree from keys in increasing order, leaf after leaf,
  // building the inner levels as it goes: no descent per key, and leaves
  // nearly full (half full is what appending by splits leaves).
  class loader;
  // Finds keys asked for in increasing order by walking on from the leaf of
  // the previous one, descending from the root only to jump ahead.
  class sweep;

  static void pause() noexcept {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }

 private:
  node* make_node(bool leaf) {
    std::lock_guard<std::mutex> g(arena_mutex_);
    node* n = new (arena_.allocate(node_bytes, machine::cache_line)) node(leaf);
    nodes_count_.fetch_add(1, std::memory_order_relaxed);
    return n;
  }
  static_assert(std::is_trivially_destructible_v<node>, "nodes go with their arena");

  // Where the full node `n` splits as `key` goes in: in half, or, when the
  // key is past all keys of the tree's rightmost node at its level (keys
  // arriving in increasing order, as a load's or an append's do), so that
  // `n` keeps all but one key (a leaf) or two (an inner node): the nodes
  // left behind stay full, not half full, and fewer levels miss the cache.
  static unsigned split_point(const node& n, const Key& key, bool rightmost) noexcept {
    const unsigned count = n.size();
    if (rightmost && n.compare(count - 1, key) < 0) return n.leaf ? count - 1 : count - 2;
    return count / 2;
  }

  // Splits the full node `n` (write-locked) into itself, keeping its first
  // `keep` keys, and a new right sibling; returns the separator (the right
  // part's smallest key) and it.
  std::pair<Key, node*> split(node& n, unsigned keep) {
    node* right = make_node(n.leaf);
    const unsigned count = n.size();
    if (n.leaf) {
      for (unsigned i = keep; i < count; ++i) {
        right->move_key(i - keep, n, i);
        right->set_value(i - keep, n.value(i));
      }
      right->count.store(count - keep, std::memory_order_release);
      right->mark.store(n.mark.load(std::memory_order_seq_cst), std::memory_order_seq_cst);
      right->set_next(n.next());
      n.count.store(keep, std::memory_order_release);
      n.set_next(right);
      return {right->key(0), right};
    }
    // Inner: key `keep` moves up; the children right of it go to the sibling.
    const Key up = n.key(keep);
    for (unsigned i = keep + 1; i < count; ++i) right->move_key(i - keep - 1, n, i);
    for (unsigned i = keep + 1; i <= count; ++i) {
      right->set_child(i - keep - 1, n.child(i));
    }
    right->count.store(count - keep - 1, std::memory_order_release);
    n.count.store(keep, std::memory_order_release);
    return {up, right};
  }

  // Puts separator `key` and its right child into the inner node `n`
  // (write-locked, not full), after child position `pos`.
  static void insert_child(node& n, unsigned pos, const Key& key, node* right) {
    const unsigned count = n.size();
    for (unsigned i = count; i > pos; --i) n.move_key(i, n, i - 1);
    for (unsigned i = count + 1; i > pos + 1; --i) n.set_child(i, n.child(i - 1));
    n.set_key(pos, key);
    n.set_child(pos + 1, right);
    n.count.store(count + 1, std::memory_order_release);
  }

  template <class MakeValue, class OnSplit>
  insert_outcome insert_with(const Key& key, const MakeValue& make_value, const OnSplit& on_split, bool overwrite) {
    for (;;) {
      if (auto done = try_insert(key, make_value, on_split, overwrite)) return *done;
      pause();
    }
  }

  // One optimistic attempt; nothing means restart.
  template <class MakeValue, class OnSplit>
  std::optional<insert_outcome> try_insert(const Key& key, const MakeValue& make_value, const OnSplit& on_split,
                                           bool overwrite) {
    node* n = root();
    auto v = read_lock(*n);
    if (!v || n != root()) return std::nullopt;  // see descent::step
    node* parent = nullptr;
    std::uint64_t parent_v = 0;
    bool rightmost = true;  // n is the last child of each node above it
    // Below the cached levels a node's lines are asked for at once, as in
    // descent::step: its keys and then the slot they choose would otherwise
    // be two misses in a row.
    const unsigned hot = hot_levels();
    unsigned depth = 1;
    for (;;) {
      if (n->full()) {
        // Split on the way down: lock the parent (or the root pointer's
        // owner, the root itself) and the node, split, and start over.
        if (parent != nullptr && !upgrade(*parent, parent_v)) return std::nullopt;
        if (!upgrade(*n, *v)) {
          if (parent != nullptr) write_unlock(*parent);
          return std::nullopt;
        }
        if (parent == nullptr && n != root()) {  // someone grew the tree meanwhile
          write_unlock(*n);
          return std::nullopt;
        }
        const auto [sep, right] = split(*n, split_point(*n, key, rightmost));
        const std::uint64_t right_version = right->version.load(std::memory_order_relaxed);
        if (parent != nullptr) {
          insert_child(*parent, parent->child_for(sep), sep, right);
          write_unlock(*parent);
        } else {
          node* new_root = make_node(false);
          new_root->set_key(0, sep);
          new_root->set_child(0, n);
          new_root->set_child(1, right);
          new_root->count.store(1, std::memory_order_release);
          root_.store(new_root, std::memory_order_release);
        }
        write_unlock(*n);
        if (n->leaf) on_split(*n, *v, *v + 2 * locked_bit, *right, right_version);
        return std::nullopt;
      }
      if (parent != nullptr && !validate(*parent, parent_v)) return std::nullopt;
      if (n->leaf) break;
      const unsigned pos = n->child_for(key);
      node* c = n->child(pos);
      rightmost = rightmost && pos == n->size();
      if (!validate(*n, *v) || c == nullptr) return std::nullopt;
      if (depth++ >= hot) weave::detail::prefetch_object(*c);
      const auto cv = read_lock(*c);
      if (!cv) return std::nullopt;
      parent = n;
      parent_v = *v;
      n = c;
      v = cv;
    }
    if (!upgrade(*n, *v)) return std::nullopt;
    // The value, made under the lock; if making it throws, the leaf is
    // unlocked unchanged.
    const auto made = [&] {
      try {
        return make_value();
      } catch (...) {
        write_unlock(*n);
        throw;
      }
    };
    const unsigned count = n->size();
    const unsigned pos = n->lower_bound(key);
    if (pos < count && n->compare(pos, key) == 0) {
      const std::uint64_t existing = n->value(pos);
      if (!overwrite) {  // nothing changes: leave the version as it was
        n->version.store(*v, std::memory_order_release);
        return insert_outcome{false, existing, n, *v, *v};
      }
      n->set_value(pos, made());
      write_unlock(*n);
      return insert_outcome{false, existing, n, *v, *v + 2 * locked_bit};
    }
    const std::uint64_t value = made();
    for (unsigned i = count; i > pos; --i) {
      n->move_key(i, *n, i - 1);
      n->set_value(i, n->value(i - 1));
    }
    n->set_key(pos, key);
    n->set_value(pos, value);
    n->count.store(count + 1, std::memory_order_release);
    write_unlock(*n);
    return insert_outcome{true, value, n, *v, *v + 2 * locked_bit};
  }

  std::atomic<node*> root_{nullptr};
  unsigned hot_levels_ = machine::hot_levels(20, node_bytes);
  std::mutex arena_mutex_;
  chunk_arena arena_{8 * node_bytes};  // huge pages once the tree is large
  std::atomic<std::size_t> nodes_count_{0};
};

using olc_btree = basic_olc_btree<std::uint64_t>;
using olc_string_btree = basic_olc_btree<byte_key>;

// One optimistic descent to the leaf of a key, as a cursor: step() returns
// the next node to prefetch (and is called again once it may be cached), or
// null once the leaf has been read and validated. An operation inlines it
// into its own coroutine, so a lookup inside a larger operation needs no
// frame of its own:
//
//   olc_btree::descent d(tree, key, Policy{});
//   while (const auto* next = d.step()) co_await prefetch<Policy>(*next, d.cold());
//   d.value() ...
//
// Under a policy whose loads do not prefetch (sequential_policy), and in the
// tree's own descents, step() asks for all lines of a cold node at once: its
// search reads key lines and then the slot line the keys chose, which would
// otherwise be two misses in a row. Policies that prefetch have asked for the
// node already, and a second prefetch of its lines costs them time.
template <class Key>
class basic_olc_btree<Key>::descent {
 public:
  descent(const basic_olc_btree& tree, const Key& key, node_search search = node_search::branchy,
          bool prefetch_cold_nodes = true) noexcept
      : tree_(&tree),
        key_(key),
        hot_levels_(tree.hot_levels()),
        search_(search),
        prefetch_cold_nodes_(prefetch_cold_nodes) {}
  template <execution_policy Policy>
  descent(const basic_olc_btree& tree, const Key& key, Policy) noexcept
      : descent(tree, key, search_for<Policy>(), !Policy::prefetches) {}

  // Inlined into each operation: as a call, saving and restoring registers
  // at every node made a third of its own instructions (callgrind, naive
  // Stock-Level; docs/results/tpcc.md).
  [[gnu::always_inline]] const node* step() noexcept {
    for (;;) {
      if (n_ == nullptr) {  // (re)start at the root
        n_ = tree_->root();
        const auto v = read_lock(*n_);
        // A root split stores the new root before it unlocks the old one:
        // if the node is unlocked and still the root, it covers every key.
        // Without this check, a descent could start at an old root that now
        // holds only the left half of the keys.
        if (!v || n_ != tree_->root()) {
          restart();
          continue;
        }
        v_ = *v;
        depth_ = 1;
      } else if (child_ != nullptr) {  // the child prefetched last time
        const auto cv = read_lock(*child_);
        if (!cv || !validate(*n_, v_)) {
          restart();
          continue;
        }
        n_ = child_;
        v_ = *cv;
        child_ = nullptr;
      }
      if (!n_->leaf) {
        const node* c = n_->child(n_->child_for(key_, search_));
        if (!validate(*n_, v_) || c == nullptr) {
          restart();
          continue;
        }
        child_ = c;
        cold_ = depth_++ >= hot_levels_;
        if (cold_ && prefetch_cold_nodes_) weave::detail::prefetch_object(*c);
        return c;
      }
      const unsigned pos = n_->lower_bound(key_, search_);
      found_ = pos < n_->size() && n_->compare(pos, key_) == 0;
      value_ = found_ ? n_->value(pos) : 0;
      if (!validate(*n_, v_)) {
        restart();
        continue;
      }
      return nullptr;
    }
  }

  // Whether the node step() returned is below the cached levels.
  bool cold() const noexcept { return cold_; }
  std::optional<std::uint64_t> value() const noexcept {
    return found_ ? std::optional<std::uint64_t>(value_) : std::nullopt;
  }
  // The leaf reached and the version it was validated at (for scans).
  const node* leaf() const noexcept { return n_; }
  std::uint64_t leaf_version() const noexcept { return v_; }

 private:
  void restart() noexcept {
    n_ = nullptr;
    child_ = nullptr;
    pause();
  }

  const basic_olc_btree* tree_;
  Key key_;
  unsigned hot_levels_;  // read once: it costs a few loads and a compare
  node_search search_;
  bool prefetch_cold_nodes_;
  const node* n_ = nullptr;
  const node* child_ = nullptr;
  std::uint64_t v_ = 0;
  unsigned depth_ = 0;
  bool cold_ = false;
  bool found_ = false;
  std::uint64_t value_ = 0;
};

template <class Key>
class basic_olc_btree<Key>::loader {
 public:
  // Entries per node: two short of full, so that the first inserts into a
  // loaded tree do not split at once.
  static constexpr unsigned fill = capacity - 2;

  // Throws std::logic_error if the tree holds keys.
  explicit loader(basic_olc_btree& tree) : tree_(&tree) {
    node* root = tree.root();
    if (!root->leaf || root->size() != 0) throw std::logic_error("bulk loading a B+-tree that holds keys");
    levels_.push_back(root);
  }

  // Throws std::invalid_argument unless `key` follows the key added before.
  void add(const Key& key, std::uint64_t value) {
    if (added_ > 0 && !(last_ < key)) throw std::invalid_argument("bulk loading a B+-tree out of key order");
    node* leaf = levels_[0];
    if (leaf->size() == fill) {
      node* next = tree_->make_node(true);
      leaf->set_next(next);
      add_separator(1, key, next);
      levels_[0] = leaf = next;
    }
    const unsigned n = leaf->size();
    leaf->set_key(n, key);
    leaf->set_value(n, value);
    leaf->count.store(n + 1, std::memory_order_release);
    last_ = key;
    ++added_;
  }

  // The last key added, if any.
  std::optional<Key> last() const { return added_ > 0 ? std::optional<Key>(last_) : std::nullopt; }

  // Publishes the levels above the first leaf.
  void finish() noexcept { tree_->root_.store(levels_.back(), std::memory_order_release); }

 private:
  // Gives the rightmost node of `level` the child `right`, whose keys start
  // at `key`; a full node is followed by a new one, a missing level made.
  void add_separator(std::size_t level, const Key& key, node* right) {
    if (level == levels_.size()) {  // the level below just got its second node
      node* top = tree_->make_node(false);
      top->set_child(0, levels_[level - 1]);
      top->set_key(0, key);
      top->set_child(1, right);
      top->count.store(1, std::memory_order_release);
      levels_.push_back(top);
      return;
    }
    node* n = levels_[level];
    if (n->size() == fill) {
      node* next = tree_->make_node(false);
      next->set_child(0, right);
      add_separator(level + 1, key, next);
      levels_[level] = next;
      return;
    }
    const unsigned c = n->size();
    n->set_key(c, key);
    n->set_child(c + 1, right);
    n->count.store(c + 1, std::memory_order_release);
  }

  basic_olc_btree* tree_;
  std::vector<node*> levels_;  // the rightmost node of each level, leaves first
  Key last_{};
  std::uint64_t added_ = 0;
};

template <class Key>
class basic_olc_btree<Key>::sweep {
 public:
  explicit sweep(const basic_olc_btree& tree) noexcept : tree_(&tree) {}

  // Any order is answered right; increasing keys close together are cheap.
  std::optional<std::uint64_t> find(const Key& key) noexcept {
    for (unsigned hops = 0; leaf_ != nullptr && hops < max_hops; ++hops) {
      const unsigned n = leaf_->size();
      if (n > 0 && leaf_->compare(0, key) > 0) break;  // behind this leaf
      if (n > 0 && leaf_->compare(n - 1, key) >= 0) return in(*leaf_, key);
      const node* next = leaf_->next();
      if (next == nullptr) return std::nullopt;                                // past the last key
      if (next->size() > 0 && next->compare(0, key) > 0) return std::nullopt;  // between two leaves
      leaf_ = next;
    }
    descent d(*tree_, key);
    while (d.step() != nullptr) {
    }
    leaf_ = d.leaf();
    return d.value();
  }

 private:
  // Further than this, a descent from the root is cheaper.
  static constexpr unsigned max_hops = 3;

  static std::optional<std::uint64_t> in(const node& leaf, const Key& key) noexcept {
    const unsigned pos = leaf.lower_bound(key);
    if (pos < leaf.size() && leaf.compare(pos, key) == 0) return leaf.value(pos);
    return std::nullopt;
  }

  const basic_olc_btree* tree_;
  const node* leaf_ = nullptr;
};

// After descent: remove finds its leaf with the same cursor as lookups.
template <class Key>
bool basic_olc_btree<Key>::remove(const Key& key) {
  for (;;) {
    descent d(*this, key);
    while (d.step() != nullptr) {
    }
    // The tree owns its nodes; the cursor only hands them out read-only.
    node* leaf = const_cast<node*>(d.leaf());
    if (!upgrade(*leaf, d.leaf_version())) {
      pause();
      continue;
    }
    const unsigned n = leaf->size();
    const unsigned pos = leaf->lower_bound(key);
    const bool found = pos < n && leaf->compare(pos, key) == 0;
    if (found) {
      for (unsigned i = pos; i + 1 < n; ++i) {
        leaf->move_key(i, *leaf, i + 1);
        leaf->set_value(i, leaf->value(i + 1));
      }
      leaf->count.store(n - 1, std::memory_order_release);
    }
    write_unlock(*leaf);
    return found;
  }
}

// The value under `key`, if any: one descent, suspending before each node
// below the cached levels; restarts from the root when a version check fails.
template <execution_policy Policy, class Key>
task<std::optional<std::uint64_t>> lookup(const basic_olc_btree<Key>& tree, std::type_identity_t<Key> key) {
  typename basic_olc_btree<Key>::descent d(tree, key, Policy{});
  while (const auto* next = d.step()) co_await prefetch<Policy>(*next, d.cold());
  co_return d.value();
}

// Takes no note of the leaves a scan reads.
struct ignore_leaves {
  template <class Node>
  void operator()(const Node&, std::uint64_t) const noexcept {}
};

// Up to `limit` entries with keys in [from, to] (from excluded if `after`),
// in key order, appended to `out` as (key, value) pairs. Each leaf is read
// optimistically; when a check fails the scan resumes after the last key it
// kept. Every leaf whose entries were used (or that showed there are no
// more) is passed to on_leaf(leaf, version) once it has been validated at
// that version.
template <execution_policy Policy, class Key, class OnLeaf = ignore_leaves>
task<void> scan(const basic_olc_btree<Key>& tree, std::type_identity_t<Key> from, std::type_identity_t<Key> to,
                std::size_t limit, std::vector<std::pair<Key, std::uint64_t>>& out, bool after = false,
                OnLeaf on_leaf = {}) {
  using tree_type = basic_olc_btree<Key>;
  using node = typename tree_type::node;
  std::size_t taken = 0;
  bool past_end = false;
  while (taken < limit && !past_end) {
    typename tree_type::descent d(tree, from, Policy{});
    while (const auto* next = d.step()) co_await prefetch<Policy>(*next, d.cold());
    const node* n = d.leaf();
    std::uint64_t v = d.leaf_version();
    bool restart = false;
    // Walk the leaves; each one's entries count only once its version checks.
    while (!restart && taken < limit) {
      std::pair<Key, std::uint64_t> entries[tree_type::leaf_keys];
      unsigned got = 0;
      const unsigned count = std::min(n->size(), tree_type::leaf_keys);
      unsigned i = n->lower_bound(from);
      if (after && i < count && n->compare(i, from) == 0) ++i;
      bool beyond = false;
      for (; i < count && taken + got < limit; ++i) {
        if (n->compare(i, to) > 0) {
          beyond = true;
          break;
        }
        entries[got++] = {n->key(i), n->value(i)};
      }
      const node* next = n->next();
      if (!tree_type::validate(*n, v)) {
        restart = true;
        break;
      }
      on_leaf(*n, v);
      out.insert(out.end(), entries, entries + got);
      taken += got;
      if (got > 0) {
        from = entries[got - 1].first;
        after = true;
      }
      if (next == nullptr || beyond) {
        past_end = true;
        break;
      }
      if (taken == limit) break;
      co_await prefetch<Policy>(*next, tree.hot_levels() != ~0u);
      const auto nv = tree_type::read_lock(*next);
      if (!nv) {
        restart = true;
        break;
      }
      n = next;
      v = *nv;
    }
    if (restart) tree_type::pause();
  }
}

// The same with no end bound.
template <execution_policy Policy, class Key>
task<void> scan(const basic_olc_btree<Key>& tree, std::type_identity_t<Key> from, std::size_t limit,
                std::vector<std::pair<Key, std::uint64_t>>& out, bool after = false) {
  return scan<Policy, Key>(tree, from, detail::olc_key<Key>::largest(), limit, out, after);
}

}  // namespace weave
