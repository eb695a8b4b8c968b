#pragma once
// A Blink-tree whose operations are chains of one-node tasks.
//
// Every node knows its high key (the keys it may hold are below it) and its
// right sibling, so a task that lands on a node that has split since its
// parent was read just moves right: a split never has to be finished before
// others may pass. An operation is a task on the root that moves on to the
// next node, and so on down: lookups and updates follow with the same
// descriptor, inserts spawn a copy that remembers the path. No task holds
// anything across tasks and the code takes no latch: each task is annotated
// with its node and its intent, and the runtime synchronizes it as the
// node's annotation says.
//
// Lookups read every node. Inserts and updates read down to the branch
// level (nodes whose children are leaves) and annotate the task on the leaf
// as a writer: intent is known before the leaf is touched, so no task has
// to be re-annotated and re-sent. A full leaf splits in its writer task:
// the new right half is linked as the leaf's sibling at once (reachable
// from then on) and a follow-up writer task adds its separator to the
// parent, found through the path the descent recorded. A split of the root,
// or of a node whose parent the path does not know, goes through a writer
// task on the tree's anchor, which holds the root.
//
// Nodes are 1 KiB with 8-byte keys and values (61 per node). Their fields
// are atomics, read with acquire and written with release order (plain
// loads and stores on x86): an optimistic reader that sees any store of a
// writer then also sees the writer's odd version when it checks again, so
// the check needs no fence (see runtime.hpp). Nodes are never freed while
// the tree lives.
// Key 2^64-1 is reserved (the high key of the rightmost nodes).

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "weave/index/node_search.hpp"
#include "weave/memory/chunk_arena.hpp"
#include "weave/tasks/runtime.hpp"

namespace weave::tasks {

class blink_tree {
 public:
  static constexpr std::size_t node_bytes = 1024;
  static constexpr unsigned capacity = 61;
  static constexpr std::uint64_t no_key = std::numeric_limits<std::uint64_t>::max();
  static constexpr std::uint16_t node_lines = node_bytes / 64;
  // Lines of a node the runtime prefetches before a task on it (see
  // set_prefetch_lines).
  static constexpr std::uint16_t default_prefetch_lines = 12;

  struct alignas(64) node : data_object {
    std::atomic<std::uint16_t> count{0};
    std::uint8_t level = 0;  // 0: leaf; fixed for the node's life
    std::atomic<std::uint64_t> high{no_key};
    std::atomic<std::uint64_t> right{0};   // object_ref<node>, raw
    std::atomic<std::uint64_t> keys[capacity];
    std::atomic<std::uint64_t> slots[capacity + 1];  // values, or children (object_ref<node>, raw)

    std::uint64_t key(unsigned i) const noexcept { return keys[i].load(std::memory_order_acquire); }
    std::uint64_t slot(unsigned i) const noexcept { return slots[i].load(std::memory_order_acquire); }
    // Clamped: an optimistic reader may see a count that is being changed.
    unsigned size() const noexcept { return std::min<unsigned>(count.load(std::memory_order_acquire), capacity); }
    // Entries with keys below `key`.
    unsigned lower_bound(std::uint64_t key) const noexcept { return count_below<false>(key); }
    // Keys at or below `key`: the child that covers it.
    unsigned child_for(std::uint64_t key) const noexcept { return count_below<true>(key); }

    // Branch-free (see node_search.hpp): the runtime prefetched the node,
    // so the search waits on no miss, and a random key mispredicted about
    // three comparisons per node.
    template <bool OrEqual>
    unsigned count_below(std::uint64_t key) const noexcept {
      return count_below_unpredictable(size(), [&](unsigned i) { return below<OrEqual>(this->key(i), key); });
    }
    template <bool OrEqual>
    static bool below(std::uint64_t stored, std::uint64_t key) noexcept {
      return OrEqual ? stored <= key : stored < key;
    }
  };
  static_assert(sizeof(node) == node_bytes);

  struct anchor_object : data_object {
    std::atomic<std::uint64_t> root{0};  // object_ref<node>, raw
  };

  // Nodes are placed on the workers of `rt`; the tree may run on any
  // runtime later (owners beyond its workers wrap around).
  // Throws std::invalid_argument for sync_kind::none: a split and the
  // operations that cross it conflict, whatever the application does.
  explicit blink_tree(runtime& rt, sync_kind sync = sync_kind::optimistic_latch) : sync_(checked(sync)) {
    anchor_.sync = sync;
    anchor_.frequency = 0;
    anchor_.owner = rt.place(0);
    node* root = make_node(0, rt.place(1));
    anchor_.root.store(object_ref<node>(root).raw(), std::memory_order_release);
  }
  blink_tree(const blink_tree&) = delete;
  blink_tree& operator=(const blink_tree&) = delete;

  sync_kind sync() const noexcept { return sync_; }

  // The value under `key`; done(ctx, client, key, value, found).
  void lookup(context& ctx, std::uint64_t key, context::completion done, void* client) {
    begin(ctx, op_kind::lookup, key, 0, done, client);
  }
  // Inserts the pair, or overwrites the value if `key` is there (found).
  void insert(context& ctx, std::uint64_t key, std::uint64_t value, context::completion done, void* client) {
    begin(ctx, op_kind::insert, key, value, done, client);
  }
  // Overwrites the value of `key` if it is there (found); inserts nothing.
  void update(context& ctx, std::uint64_t key, std::uint64_t value, context::completion done, void* client) {
    begin(ctx, op_kind::update, key, value, done, client);
  }

  // --- While no task runs: checks, loading and reconfiguration. ---

  std::optional<std::uint64_t> find(std::uint64_t key) const noexcept {
    if (key == no_key) return std::nullopt;  // never stored (begin refuses it): no stored key reaches it
    const node* n = root();
    for (;;) {
      while (key >= n->high.load(std::memory_order_acquire)) n = object_ref<node>::from_raw(n->right.load()).get();
      if (n->level == 0) break;
      n = object_ref<node>::from_raw(n->slot(n->child_for(key))).get();
    }
    const unsigned pos = n->lower_bound(key);
    if (pos < n->size() && n->key(pos) == key) return n->slot(pos);
    return std::nullopt;
  }

  // Calls f(key, value) for every entry in key order.
  template <class F>
  void for_each(F&& f) const {
    const node* n = root();
    while (n->level > 0) n = object_ref<node>::from_raw(n->slot(0)).get();
    for (; n != nullptr; n = object_ref<node>::from_raw(n->right.load()).get()) {
      for (unsigned i = 0; i < n->size(); ++i) f(n->key(i), n->slot(i));
    }
  }

  unsigned height() const noexcept { return root()->level + 1u; }
  std::size_t nodes() const {
    std::lock_guard<std::mutex> g(arena_mutex_);
    return nodes_;
  }
  std::size_t bytes() const { return nodes() * node_bytes; }

  // Every node's keys sorted and below its high key, the levels' sibling
  // chains ordered, each parent's separators bounding its children, and
  // every link naming its node's owner.
  // Returns a description of the first violation, or an empty string.
  std::string check() const {
    const node* first = root();
    if (first->high.load() != no_key || first->right.load() != 0) return "the root has a sibling";
    for (;;) {
      std::uint64_t low = 0;
      bool has_low = false;
      for (const node* n = first; n != nullptr; n = object_ref<node>::from_raw(n->right.load()).get()) {
        const unsigned size = n->count.load();
        if (size > capacity) return "a node holds more than its capacity";
        if (n->level != first->level) return "a sibling on another level";
        const std::uint64_t high = n->high.load();
        for (unsigned i = 0; i < size; ++i) {
          const std::uint64_t k = n->key(i);
          if ((i > 0 && k <= n->key(i - 1)) || (has_low && k < low) || k >= high) return "keys out of order";
        }
        if (n->right.load() == 0 && high != no_key) return "the last node of a level has a high key";
        if (const auto r = object_ref<node>::from_raw(n->right.load()); r && r.owner() != r->owner) {
          return "a link that names another owner than its node's";
        }
        if (n->level > 0) {
          for (unsigned i = 0; i <= size; ++i) {
            const auto ref = object_ref<node>::from_raw(n->slot(i));
            const node* child = ref.get();
            if (ref.owner() != child->owner) return "a link that names another owner than its node's";
            if (child->level + 1u != n->level) return "a child on the wrong level";
            if (child->high.load() != (i < size ? n->key(i) : high)) return "a separator the child does not agree with";
            if (i < size && object_ref<node>::from_raw(child->right.load()).get() !=
                                object_ref<node>::from_raw(n->slot(i + 1)).get()) {
              return "children not linked in order";
            }
          }
        }
        low = high;
        has_low = true;
      }
      if (first->level == 0) return {};
      first = object_ref<node>::from_raw(first->slot(0)).get();
    }
  }

  // How many of a node's lines, from its start, each task prefetches: 1 to
  // node_lines. The keys fill lines 0-7 and the slots 8-15, each array from
  // its front, and a node is about 69% full after scattered inserts, so the
  // last lines of both are mostly empty. Fetching all of them takes miss
  // buffers that other nodes in flight could use; `weave bench blink
  // --prefetch-lines` measures the trade.
  void set_prefetch_lines(std::uint16_t lines) {
    if (lines < 1 || lines > node_lines) throw std::invalid_argument("prefetch lines must be in 1..16");
    lines_ = lines;
  }
  std::uint16_t prefetch_lines() const noexcept { return lines_; }

  // Which levels count as cached: the top ones whose nodes take no more
  // than `bytes` together, as the tree stands. Every operation passes
  // through one node of each level, so a few hundred KiB at the top stay in
  // a core's caches by that traffic alone; a task there is run on at once
  // instead of queueing for a prefetch it does not need (runtime.hpp,
  // context::follow). 0: none. Returns how many levels count.
  unsigned set_cached_bytes(std::size_t bytes) {
    cached_from_level_ = no_level;
    std::size_t total = 0;
    for (const node* first = root(); first != nullptr;
         first = first->level > 0 ? child_at(*first, 0) : nullptr) {
      for (const node* n = first; n != nullptr && total <= bytes; n = right_of(*n)) total += node_bytes;
      if (total > bytes) break;
      cached_from_level_ = first->level;
    }
    return cached_from_level_ == no_level ? 0 : height() - cached_from_level_;
  }

  // Gives every node a new owner among `workers` so that each worker owns
  // an even share of the touches an operation makes, counted on the tree as
  // it stands: every level is touched once per operation, evenly over its
  // nodes. Placement when a node is made can only guess (its frequency is
  // fixed while the tree above it still grows, and neighbours alternate
  // between workers). Levels with fewer nodes than workers go to the least
  // loaded ones; every other level is cut into key ranges, one per worker,
  // sized to even the totals, so that below the top an operation's path
  // stays on one worker: under `schedule` each change of worker is a task
  // handed across cores. Returns the largest share one worker now owns
  // (even: 1 / workers).
  double rebalance(unsigned workers) {
    if (workers == 0 || workers > 4096) throw std::invalid_argument("workers must be in 1..4096");
    std::vector<std::vector<node*>> levels;  // top down, each in key order
    for (node* first = root(); first != nullptr; first = first->level > 0 ? child_at(*first, 0) : nullptr) {
      levels.emplace_back();
      for (node* n = first; n != nullptr; n = right_of(*n)) levels.back().push_back(n);
    }
    std::vector<double> load(workers, 0.0);
    const auto own = [&](node* n, std::uint16_t w, double each) {
      n->owner = w;
      n->frequency = static_cast<float>(each);
      load[w] += each;
    };
    std::size_t spread_from = 0;  // the first level cut into ranges
    for (; spread_from < levels.size() && levels[spread_from].size() < workers; ++spread_from) {
      const double each = 1.0 / static_cast<double>(levels[spread_from].size());
      for (node* n : levels[spread_from]) {
        own(n, static_cast<std::uint16_t>(std::min_element(load.begin(), load.end()) - load.begin()), each);
      }
    }
    // Each worker's part of every remaining level: what it lacks of an even share.
    const double even = static_cast<double>(levels.size()) / workers;
    std::vector<double> upto(workers);  // cumulative parts, ending at 1
    double lacking = 0;
    for (unsigned w = 0; w < workers; ++w) lacking += std::max(0.0, even - load[w]);
    for (unsigned w = 0; w < workers; ++w) {
      const double part = lacking > 0 ? std::max(0.0, even - load[w]) / lacking : 1.0 / workers;
      upto[w] = (w == 0 ? 0.0 : upto[w - 1]) + part;
    }
    for (std::size_t l = spread_from; l < levels.size(); ++l) {
      const std::size_t m = levels[l].size();
      const double each = 1.0 / static_cast<double>(m);
      unsigned w = 0;
      for (std::size_t i = 0; i < m; ++i) {
        const double at = (static_cast<double>(i) + 0.5) / static_cast<double>(m);
        while (w + 1 < workers && at >= upto[w]) ++w;
        own(levels[l][i], static_cast<std::uint16_t>(w), each);
      }
    }
    // Links carry their target's owner: write them again.
    for (const auto& level : levels) {
      for (node* n : level) {
        if (node* r = right_of(*n)) n->right.store(object_ref<node>(r).raw(), std::memory_order_release);
        if (n->level > 0) {
          for (unsigned i = 0; i <= n->size(); ++i)
            n->slots[i].store(object_ref<node>(child_at(*n, i)).raw());
        }
      }
    }
    anchor_.root.store(object_ref<node>(root()).raw(), std::memory_order_release);
    return *std::max_element(load.begin(), load.end()) / static_cast<double>(levels.size());
  }

  // Re-annotates every node (and the anchor) with `sync`; not none (see the constructor).
  void set_sync(sync_kind sync) {
    sync_ = checked(sync);
    anchor_.sync = sync;
    anchor_.word.store(0);
    for (const node* first = root(); first != nullptr;
         first = first->level > 0 ? object_ref<node>::from_raw(first->slot(0)).get() : nullptr) {
      for (node* n = const_cast<node*>(first); n != nullptr; n = object_ref<node>::from_raw(n->right.load()).get()) {
        n->sync = sync;
        n->word.store(0);
      }
    }
  }

 private:
  enum class op_kind : std::uint8_t { lookup, insert, update, separator };

  // An operation's state, carried from task to task.
  struct op_state {
    std::uint64_t key;
    std::uint64_t value;  // separator: the new child (object_ref<node>, raw)
    blink_tree* tree;
    context::completion done;
    void* client;
    std::uint64_t path[5];  // the node read at levels 1..5, parents for splits below
    op_kind kind;
    std::uint8_t target;  // the level the operation writes at
  };

  node* root() const noexcept { return object_ref<node>::from_raw(anchor_.root.load(std::memory_order_acquire)).get(); }
  static node* child_at(const node& n, unsigned i) noexcept {
    return object_ref<node>::from_raw(n.slot(i)).get();
  }
  static node* right_of(const node& n) noexcept {
    return object_ref<node>::from_raw(n.right.load(std::memory_order_acquire)).get();
  }

  node* make_node(unsigned level, std::uint16_t owner) {
    void* p;
    {
      std::lock_guard<std::mutex> g(arena_mutex_);
      p = nodes_arena_.allocate(node_bytes, 64);
      ++nodes_;
    }
    node* n = new (p) node;
    n->level = static_cast<std::uint8_t>(level);
    n->owner = owner;
    n->sync = sync_;
    n->frequency = expected_frequency(level);
    return n;
  }

  // Touches per operation of one node at `level`: 1 at the root, and a
  // fanout's share less per level below.
  float expected_frequency(unsigned level) const noexcept {
    const std::uint64_t r = anchor_.root.load(std::memory_order_acquire);
    const unsigned top = r != 0 ? object_ref<node>::from_raw(r)->level : 0;
    return level >= top ? 1.0f : std::pow(1.0f / 40, static_cast<float>(top - level));
  }

  static sync_kind checked(sync_kind sync) {
    if (sync == sync_kind::none) throw std::invalid_argument("a Blink-tree's tasks conflict: sync_kind::none would corrupt it");
    return sync;
  }

  void begin(context& ctx, op_kind kind, std::uint64_t key, std::uint64_t value, context::completion done,
             void* client) {
    if (key == no_key) throw std::invalid_argument("key 2^64-1 is reserved");
    op_state op{};
    op.key = key;
    op.value = value;
    op.tree = this;
    op.done = done;
    op.client = client;
    op.kind = kind;
    op.target = 0;
    const auto r = object_ref<node>::from_raw(anchor_.root.load(std::memory_order_acquire));
    send(ctx, op, r, kind != op_kind::lookup && r->level == 0 ? access::write : access::read);
  }

  void send(context& ctx, const op_state& op, object_ref<node> to, access mode) {
    annotated_task* t = ctx.make();
    t->run = &step;
    t->annotate(to, mode, sync_, lines_);
    t->set_state(op);
    ctx.spawn(t);
  }

  void send_to_anchor(context& ctx, const op_state& op) {
    annotated_task* t = ctx.make();
    t->run = &grow;
    t->annotate(object_ref<anchor_object>(&anchor_, anchor_.owner), access::write, sync_, 1);
    t->rank = priority::high;
    t->set_state(op);
    ctx.spawn(t);
  }

  static void step(const annotated_task& t, context& ctx) {
    const op_state& op = t.state<op_state>();
    blink_tree& tree = *op.tree;
    node& n = *static_cast<node*>(t.object);
    if (op.key >= n.high.load(std::memory_order_acquire)) {  // split since: move right
      ctx.follow(object_ref<node>::from_raw(n.right.load(std::memory_order_acquire)), t.mode, tree.sync_,
                 tree.lines_, tree.cached(n.level));
      return;
    }
    if (t.mode == access::write) {
      // The writer's task is the only one on the node: see runtime.hpp.
      tree.write(ctx, op, n);
      return;
    }
    if (n.level == 0) {  // a lookup's leaf
      const unsigned pos = n.lower_bound(op.key);
      const bool found = pos < n.size() && n.key(pos) == op.key;
      if (op.done != nullptr) ctx.complete(op.done, op.client, op.key, found ? n.slot(pos) : 0, found);
      return;
    }
    const auto child = object_ref<node>::from_raw(n.slot(n.child_for(op.key)));
    const access mode =
        op.kind != op_kind::lookup && n.level - 1u == op.target ? access::write : access::read;
    if (op.kind == op_kind::lookup || op.kind == op_kind::update) {  // nothing to remember on the way
      ctx.follow(child, mode, tree.sync_, tree.lines_, tree.cached(n.level - 1u));
      return;
    }
    op_state next = op;  // inserts remember the path, for the parents of splits
    if (n.level <= 5) next.path[n.level - 1] = object_ref<node>(&n, t.owner).raw();
    tree.send(ctx, next, child, mode);
  }

  void write(context& ctx, const op_state& op, node& n) {
    if (n.level == 0) {
      const unsigned size = n.size();
      const unsigned pos = n.lower_bound(op.key);
      if (pos < size && n.key(pos) == op.key) {
        n.slots[pos].store(op.value, std::memory_order_release);
        if (op.done != nullptr) ctx.complete(op.done, op.client, op.key, op.value, true);
        return;
      }
      if (op.kind == op_kind::update) {
        if (op.done != nullptr) ctx.complete(op.done, op.client, op.key, 0, false);
        return;
      }
      if (op.done != nullptr) ctx.complete(op.done, op.client, op.key, op.value, false);
    }
    insert_here(ctx, op, n);
  }

  // Puts (op.key, op.value) into `n` at its level, splitting it when full.
  void insert_here(context& ctx, const op_state& op, node& n) {
    node* into = &n;
    if (n.size() == capacity) {
      const std::uint64_t separator = n.level == 0 ? split_leaf(ctx, n) : split_inner(ctx, n);
      node* right = object_ref<node>::from_raw(n.right.load(std::memory_order_acquire)).get();
      if (op.key >= separator) into = right;
      // The parent learns of the new node after this task: until then it is
      // found through the sibling link.
      op_state up = op;
      up.kind = op_kind::separator;
      up.key = separator;
      up.value = n.right.load(std::memory_order_acquire);
      up.done = nullptr;
      up.target = static_cast<std::uint8_t>(n.level + 1);
      const std::uint64_t parent = n.level + 1u <= 5 ? op.path[n.level] : 0;
      if (parent != 0) {
        send(ctx, up, object_ref<node>::from_raw(parent), access::write);
      } else {
        send_to_anchor(ctx, up);
      }
    }
    node& m = *into;
    const unsigned size = m.size();
    if (m.level == 0) {
      const unsigned pos = m.lower_bound(op.key);
      for (unsigned i = size; i > pos; --i) {
        m.keys[i].store(m.key(i - 1), std::memory_order_release);
        m.slots[i].store(m.slot(i - 1), std::memory_order_release);
      }
      m.keys[pos].store(op.key, std::memory_order_release);
      m.slots[pos].store(op.value, std::memory_order_release);
    } else {
      const unsigned pos = m.child_for(op.key);
      for (unsigned i = size; i > pos; --i) {
        m.keys[i].store(m.key(i - 1), std::memory_order_release);
        m.slots[i + 1].store(m.slot(i), std::memory_order_release);
      }
      m.keys[pos].store(op.key, std::memory_order_release);
      m.slots[pos + 1].store(op.value, std::memory_order_release);
    }
    m.count.store(static_cast<std::uint16_t>(size + 1), std::memory_order_release);
  }

  // Moves the upper half of a full leaf to a new right sibling; returns the
  // separator (the sibling's first key, the leaf's new high key).
  std::uint64_t split_leaf(context& ctx, node& n) {
    node* r = make_node(0, ctx.place(expected_frequency(0)));
    const unsigned keep = capacity / 2;
    for (unsigned i = keep; i < capacity; ++i) {
      r->keys[i - keep].store(n.key(i), std::memory_order_release);
      r->slots[i - keep].store(n.slot(i), std::memory_order_release);
    }
    r->count.store(static_cast<std::uint16_t>(capacity - keep), std::memory_order_release);
    const std::uint64_t separator = n.key(keep);
    link_right(n, *r, keep, separator);
    return separator;
  }

  // Moves the keys above the middle one, and their children, to a new right
  // sibling; the middle key goes up as the separator.
  std::uint64_t split_inner(context& ctx, node& n) {
    node* r = make_node(n.level, ctx.place(expected_frequency(n.level)));
    const unsigned middle = capacity / 2;
    for (unsigned i = middle + 1; i < capacity; ++i) r->keys[i - middle - 1].store(n.key(i), std::memory_order_release);
    for (unsigned i = middle + 1; i <= capacity; ++i) {
      r->slots[i - middle - 1].store(n.slot(i), std::memory_order_release);
    }
    r->count.store(static_cast<std::uint16_t>(capacity - middle - 1), std::memory_order_release);
    const std::uint64_t separator = n.key(middle);
    link_right(n, *r, middle, separator);
    return separator;
  }

  static void link_right(node& n, node& r, unsigned keep, std::uint64_t separator) {
    r.high.store(n.high.load(std::memory_order_acquire), std::memory_order_release);
    r.right.store(n.right.load(std::memory_order_acquire), std::memory_order_release);
    n.count.store(static_cast<std::uint16_t>(keep), std::memory_order_release);
    n.high.store(separator, std::memory_order_release);
    n.right.store(object_ref<node>(&r).raw(), std::memory_order_release);
  }

  // On the anchor: a separator whose parent the path did not know. If the
  // split node was at the root's level, a new root goes above it; otherwise
  // the separator descends from the root to its level.
  static void grow(const annotated_task& t, context& ctx) {
    const op_state& op = t.state<op_state>();
    blink_tree& tree = *op.tree;
    const auto old_root = object_ref<node>::from_raw(tree.anchor_.root.load(std::memory_order_acquire));
    const unsigned root_level = old_root->level;
    if (root_level + 1u == op.target) {
      node* r = tree.make_node(op.target, ctx.place(1));
      r->keys[0].store(op.key, std::memory_order_release);
      r->slots[0].store(old_root.raw(), std::memory_order_release);
      r->slots[1].store(op.value, std::memory_order_release);
      r->count.store(1, std::memory_order_release);
      tree.anchor_.root.store(object_ref<node>(r).raw(), std::memory_order_release);
      return;
    }
    op_state down = op;
    std::fill(std::begin(down.path), std::end(down.path), 0);
    tree.send(ctx, down, old_root, root_level == op.target ? access::write : access::read);
  }

  bool cached(unsigned level) const noexcept { return level >= cached_from_level_; }

  static constexpr unsigned no_level = 256;
  sync_kind sync_;
  std::uint16_t lines_ = default_prefetch_lines;
  unsigned cached_from_level_ = no_level;  // levels at or above it count as cached
  anchor_object anchor_;
  mutable std::mutex arena_mutex_;
  chunk_arena nodes_arena_{1 << 20, std::size_t{64} << 20};
  std::size_t nodes_ = 0;
};

}  // namespace weave::tasks
