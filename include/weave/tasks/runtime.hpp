#pragma once
// The task runtime: one pinned worker per core, each running the tasks of
// its own pool to completion, one after another.
//
// Because a worker knows which tasks come next, it hides their misses for
// them: before running the i-th task of its queue it prefetches the
// descriptor of task i+d and the data object of task i+d-1, whose
// descriptor it prefetched one task earlier (d is the prefetch distance;
// 0 turns prefetching off). And because tasks say what they touch and how,
// the worker applies each object's synchronization around the task, and
// spawning routes a task to the pool its synchronization needs:
//
//   latch, rwlatch   anywhere (the spawner's pool, or the target worker)
//   schedule         the object's owner, for readers and writers alike
//   optimistic       writers to the owner; readers anywhere, re-run when the
//                    object's version moved while they ran
//   optimistic_latch readers as above; writers anywhere too, each holding the
//                    version odd while it runs (a writer that finds it odd is
//                    put back), so that a write costs no hand-over across cores
//
// What a task spawns, the object it follows on to, and the completion it
// reports, are held back until it has finished (and, for an optimistic
// reader, validated): a reader that saw a torn object is run again with no
// trace of the failed run. Under optimistic synchronization a task reads
// its object's fields with acquire and writes them with release order,
// which is what makes the version check sound without fences.
//
// Workers join an epoch every 64 tasks, so memory a writer unlinks from an
// object (retire) is freed only once no optimistic reader can still be
// reading it. Objects that tasks are annotated with are not covered: a
// queued task names its object, so those must outlive the tasks on them
// (the Blink-tree never frees a node).
//
// run() returns when the pools are empty and no task is running: every
// spawn and every finished task is counted by the worker that did it, and
// an idle worker compares the sums.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "weave/exec/load.hpp"
#include "weave/exec/thread_group.hpp"
#include "weave/memory/epoch.hpp"
#include "weave/memory/machine.hpp"
#include "weave/tasks/annotated_task.hpp"
#include "weave/tasks/task_allocator.hpp"
#include "weave/tasks/task_pool.hpp"

namespace weave::tasks {

class runtime;
struct worker_state;

// What a running task may do: make and spawn tasks, report its operation
// complete, retire objects and place new ones.
class context {
 public:
  // What an operation reports when it ends: its key, a value, and whether
  // it found the key.
  using completion = void (*)(context&, void* client, std::uint64_t key, std::uint64_t value, bool found);

  std::uint16_t worker() const noexcept { return index_; }
  std::uint16_t workers() const noexcept;

  // A fresh descriptor, from this worker's free list, with no annotations.
  annotated_task* make();
  // Sends `t` to its pool once the running task has finished.
  void spawn(annotated_task* t);
  // Sends the running task itself on to `ref` once it has finished: the
  // same descriptor and payload, annotated anew (its target and rank stay).
  // For a chain of steps whose state does not change, this saves making a
  // task and copying the payload at every step. With `cached` (the caller
  // expects the object in this core's caches, as the top of a tree stays),
  // the task runs on at once where it may run here: queueing it behind
  // others would buy a prefetch it does not need, at the cost of a pass
  // through the pool.
  template <class Object>
  void follow(object_ref<Object> ref, access a, sync_kind s, std::uint16_t lines,
              bool cached = false) noexcept {
    data_object* p = ref.get();
    follow_ = {p, ref.owner(), lines, a, s, cached};
  }
  // Calls `fn` once the running task has finished (one per task).
  void complete(completion fn, void* client, std::uint64_t key, std::uint64_t value, bool found) noexcept {
    done_ = {fn, client, key, value, found};
  }
  // Frees `p` with `free` once no task that might still read it runs: for
  // what tasks reach through their objects (a node's payload, a version),
  // not for objects tasks are annotated with, which queued tasks still
  // name. Not from an optimistic reader (it may run again); nor is place().
  void retire(void* p, void (*free)(void*));
  // The owner of a new object expected to be touched `frequency` times per
  // operation: the worker with the least expected load so far.
  std::uint16_t place(float frequency);

 private:
  friend class runtime;
  friend struct worker_state;
  static constexpr std::size_t max_spawns = 4;
  struct next_object {
    data_object* object = nullptr;  // null: the task ends
    std::uint16_t owner = 0, lines = 0;
    access mode = access::read;
    sync_kind sync = sync_kind::none;
    bool cached = false;
  };
  struct deferred {
    completion fn = nullptr;
    void* client = nullptr;
    std::uint64_t key = 0, value = 0;
    bool found = false;
  };

  context(runtime& rt, worker_state& w, std::uint16_t index) noexcept : rt_(&rt), w_(&w), index_(index) {}
  void flush();
  void discard();

  runtime* rt_;
  worker_state* w_;
  std::uint16_t index_;
  bool holding_ = false;      // inside a task: spawns wait for it to finish
  bool speculative_ = false;  // inside an optimistic reader, which may be run again
  std::size_t pending_count_ = 0;
  annotated_task* pending_[max_spawns] = {};
  deferred done_;
  next_object follow_;
};

struct alignas(64) worker_state {
  worker_state(runtime& rt, std::uint16_t index, task_depot& depot) : allocator(depot), ctx(rt, *this, index) {}

  task_pool pool;
  task_allocator allocator;
  context ctx;
  participant* epoch = nullptr;
  std::uint64_t reruns = 0;  // tasks put back (runtime::reruns)

  // Counted by this worker only (so a plain store adds); read by idle
  // workers to detect the end.
  static void count(std::atomic<std::uint64_t>& counter, std::uint64_t n) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_release);
  }
  alignas(64) std::atomic<std::uint64_t> spawned{0};
  std::atomic<std::uint64_t> finished{0};
  alignas(64) std::atomic<std::uint64_t> expected_load{0};  // placement, in 1/2^20 touches
};

class runtime {
 public:
  struct options {
    unsigned workers = 1;
    unsigned prefetch_distance = 3;
    bool pin = true;
  };

  explicit runtime(options o) : options_(o) {
    if (o.workers == 0 || o.workers > 4096) throw std::invalid_argument("workers must be in 1..4096");
    for (unsigned i = 0; i < o.workers; ++i) {
      workers_.push_back(std::make_unique<worker_state>(*this, static_cast<std::uint16_t>(i), depot_));
      workers_.back()->epoch = &epochs_.join();
    }
  }
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  unsigned workers() const noexcept { return options_.workers; }
  unsigned prefetch_distance() const noexcept { return options_.prefetch_distance; }
  void set_prefetch_distance(unsigned d) noexcept { options_.prefetch_distance = d; }

  // Each worker calls start(context&) (to spawn the first tasks), then runs
  // tasks until none is left anywhere. Exceptions from tasks are not caught:
  // a task that throws ends the process.
  template <class Start>
  void run(Start&& start) {
    std::atomic<unsigned> started{0};
    done_.store(false, std::memory_order_relaxed);
    thread_group threads(options_.workers, [&](std::size_t i) {
      if (options_.pin) machine::pin_thread(i);
      worker_state& w = *workers_[i];
      start(w.ctx);
      started.fetch_add(1, std::memory_order_acq_rel);
      while (started.load(std::memory_order_acquire) < options_.workers) std::this_thread::yield();
      work(w);
    });
    threads.join();
  }

  // The owner of a new object expected to be touched `frequency` times per
  // operation: the worker with the least expected load so far.
  std::uint16_t place(float frequency) noexcept {
    std::uint16_t best = 0;
    std::uint64_t least = UINT64_MAX;
    for (std::uint16_t i = 0; i < options_.workers; ++i) {
      const std::uint64_t load = workers_[i]->expected_load.load(std::memory_order_relaxed);
      if (load < least) {
        least = load;
        best = i;
      }
    }
    workers_[best]->expected_load.fetch_add(static_cast<std::uint64_t>(frequency * 1048576.0f) + 1,
                                            std::memory_order_relaxed);
    return best;
  }

  // Tasks put back since the runtime was made: optimistic readers that saw
  // a writer, and optimistic_latch writers that found another.
  std::uint64_t reruns() const noexcept {
    std::uint64_t n = 0;
    for (const auto& w : workers_) n += w->reruns;
    return n;
  }
  // Descriptors ever carved from memory: flat once the runtime is warm.
  std::size_t descriptors() const { return depot_.carved(); }

 private:
  friend class context;
  static constexpr std::size_t epoch_span = 64;  // tasks per epoch guard

  // The worker whose pool `t` goes to when `from` sends it.
  std::uint16_t destination(const worker_state& from, const annotated_task* t) const noexcept {
    std::uint16_t to = from.ctx.index_;
    if (t->object != nullptr &&
        (t->sync == sync_kind::schedule || (t->sync == sync_kind::optimistic && t->mode == access::write))) {
      to = t->owner;
    } else if (t->target != annotated_task::anywhere) {
      to = t->target;
    }
    if (to >= options_.workers) to = static_cast<std::uint16_t>(to % options_.workers);
    return to;
  }

  void send(worker_state& from, annotated_task* t) {
    const std::uint16_t to = destination(from, t);
    if (to == from.ctx.index_) {
      from.pool.push(t);
    } else {
      workers_[to]->pool.push_remote(t);
    }
  }

  void work(worker_state& w) {
    std::size_t idle_spins = 0;
    for (;;) {
      if (!w.pool.inbox_empty()) w.pool.take_inbox();
      if (w.pool.empty()) {
        // Counting every spin would pull the busy workers' count lines over.
        if ((++idle_spins & 31) == 0 && idle(w)) return;
        if (done_.load(std::memory_order_acquire)) return;
        cpu_relax();
        continue;
      }
      const epoch_guard guard(*w.epoch, [] { return participant::no_floor; });
      for (std::size_t k = 0; k < epoch_span && !w.pool.empty(); ++k) {
        if ((k & 15) == 15 && !w.pool.inbox_empty()) w.pool.take_inbox();
        prefetch_ahead(w.pool);
        execute(w, w.pool.pop());
      }
    }
  }

  void prefetch_ahead(const task_pool& pool) const noexcept {
    const std::size_t d = options_.prefetch_distance;
    if (d == 0) return;
    const std::size_t n = pool.size();
    if (d < n) {  // a descriptor is two aligned lines
      const auto* next = reinterpret_cast<const std::byte*>(pool.peek(d));
      detail::prefetch_line(next);
      detail::prefetch_line(next + machine::cache_line);
    }
    if (d - 1 < n) {
      const annotated_task* t = pool.peek(d - 1);
      if (t->object != nullptr) detail::prefetch_lines(t->object, std::size_t{t->object_lines} * machine::cache_line);
    }
  }

  // Inlined into the worker's loop, with the reader's path below: clang
  // left both as calls, and a task costs only a few hundred instructions
  // (the Blink-tree's YCSB C ran 1.09x-1.11x faster inlined; tasks.md).
  [[gnu::always_inline]] void execute(worker_state& w, annotated_task* t) {
    for (;;) {  // once per object the task is on, while it runs on at once
      w.ctx.holding_ = true;
      data_object* o = t->object;
      const sync_kind s = o != nullptr ? t->sync : sync_kind::none;
      switch (s) {
        case sync_kind::none:
        case sync_kind::schedule:
          t->run(*t, w.ctx);
          break;
        case sync_kind::latch:
          lock_exclusive(*o);
          t->run(*t, w.ctx);
          o->word.store(0, std::memory_order_release);
          break;
        case sync_kind::rwlatch:
          if (t->mode == access::write) {
            lock_writer(*o);
            t->run(*t, w.ctx);
            o->word.store(0, std::memory_order_release);
          } else {
            lock_shared(*o);
            t->run(*t, w.ctx);
            o->word.fetch_sub(2, std::memory_order_release);
          }
          break;
        case sync_kind::optimistic:
          if (t->mode == access::write) {
            // Writers of an object are sequenced on its owner: no one else
            // changes the version, so plain stores make it odd, then even.
            // The task's own stores to the object are releases, so a reader
            // that sees one of them sees the odd version after it too.
            const std::uint64_t v = o->word.load(std::memory_order_relaxed);
            o->word.store(v + 1, std::memory_order_relaxed);
            t->run(*t, w.ctx);
            o->word.store(v + 2, std::memory_order_release);
          } else if (!run_optimistic_reader(w, t, *o)) {
            return;
          }
          break;
        case sync_kind::optimistic_latch:
          if (t->mode == access::write) {
            // Writers may run on any worker: making the version odd is their
            // latch. The acquire keeps the task's stores after it, which is
            // all a reader's check needs (as above).
            std::uint64_t v = o->word.load(std::memory_order_relaxed);
            if ((v & 1) != 0 || !o->word.compare_exchange_strong(v, v + 1, std::memory_order_acquire,
                                                                 std::memory_order_relaxed)) {
              put_back(w, t);  // another writer holds it, for no longer than one task
              return;
            }
            t->run(*t, w.ctx);
            o->word.store(v + 2, std::memory_order_release);
          } else if (!run_optimistic_reader(w, t, *o)) {
            return;
          }
          break;
      }
      if (w.ctx.follow_.object != nullptr) {
        // Neither finished nor spawned: the task goes on, at once if its next
        // object is cached and may be worked on here.
        const context::next_object& n = w.ctx.follow_;
        const bool now = n.cached;
        t->annotate(n.object, n.owner, n.mode, n.sync, n.lines);
        w.ctx.follow_.object = nullptr;
        if (now && destination(w, t) == w.ctx.index_) {
          w.ctx.flush();
          continue;
        }
        send(w, t);
        w.ctx.flush();
        return;
      }
      w.ctx.flush();
      worker_state::count(w.finished, 1);
      w.allocator.free(t);
      return;
    }
  }

  // Runs a reader of a versioned object; false if it saw a writer, in which
  // case nothing it did is kept and it waits in the pool to run again.
  [[gnu::always_inline]] static bool run_optimistic_reader(worker_state& w, annotated_task* t,
                                                           data_object& o) {
    const std::uint64_t before = o.word.load(std::memory_order_acquire);
    if ((before & 1) == 0) {
      w.ctx.speculative_ = true;
      t->run(*t, w.ctx);
      w.ctx.speculative_ = false;
      if (o.word.load(std::memory_order_acquire) == before) return true;
      w.ctx.discard();
    }
    put_back(w, t);
    return false;
  }

  // Queues a task that could not run now behind the others of its worker:
  // by its turn the writer in its way has likely finished. (An urgent task
  // goes ahead of them, and so tries again at once: the writer in its way
  // holds the object for one task only.)
  static void put_back(worker_state& w, annotated_task* t) {
    w.ctx.holding_ = false;
    ++w.reruns;
    w.pool.push(t);
  }

  static void lock_exclusive(data_object& o) noexcept {
    std::uint64_t expected = 0;
    while (!o.word.compare_exchange_weak(expected, 1, std::memory_order_acquire, std::memory_order_relaxed)) {
      do {
        cpu_relax();
        expected = o.word.load(std::memory_order_relaxed);
      } while (expected != 0);
    }
  }

  // Readers add 2 while bit 0 is clear. A writer sets bit 0 as soon as no
  // other writer holds it, which keeps new readers out, then waits for the
  // readers inside to leave: a stream of overlapping readers on a hot node
  // (the root) cannot starve it.
  static void lock_writer(data_object& o) noexcept {
    for (;;) {
      const std::uint64_t v = o.word.fetch_or(1, std::memory_order_acquire);
      if ((v & 1) == 0) break;
      cpu_relax();
    }
    while (o.word.load(std::memory_order_acquire) != 1) cpu_relax();
  }

  static void lock_shared(data_object& o) noexcept {
    for (;;) {
      std::uint64_t v = o.word.load(std::memory_order_relaxed);
      if ((v & 1) == 0 &&
          o.word.compare_exchange_weak(v, v + 2, std::memory_order_acquire, std::memory_order_relaxed)) {
        return;
      }
      cpu_relax();
    }
  }

  static void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  // True when no task is left anywhere. Reads every worker's finished count
  // before any spawned count: counts only grow and a task's spawns are
  // counted before it finishes, so equal sums mean that at the moment
  // between the two reads nothing was queued or running.
  bool idle(worker_state& w) noexcept {
    if (!w.pool.inbox_empty()) return false;
    std::uint64_t finished = 0, spawned = 0;
    for (const auto& other : workers_) finished += other->finished.load(std::memory_order_acquire);
    for (const auto& other : workers_) spawned += other->spawned.load(std::memory_order_acquire);
    if (finished != spawned) return false;
    done_.store(true, std::memory_order_release);
    return true;
  }

  options options_;
  task_depot depot_;
  epoch_manager epochs_;
  std::vector<std::unique_ptr<worker_state>> workers_;
  alignas(64) std::atomic<bool> done_{false};
};

inline std::uint16_t context::workers() const noexcept { return static_cast<std::uint16_t>(rt_->workers()); }

inline annotated_task* context::make() {
  annotated_task* t = w_->allocator.allocate();
  t->reset();
  return t;
}

inline void context::spawn(annotated_task* t) {
  if (!holding_) {
    worker_state::count(w_->spawned, 1);
    rt_->send(*w_, t);
    return;
  }
  if (pending_count_ == max_spawns) throw std::length_error("a task spawns at most 4 tasks");
  pending_[pending_count_++] = t;
}

inline void context::flush() {
  holding_ = false;
  if (pending_count_ != 0) {
    worker_state::count(w_->spawned, pending_count_);
    for (std::size_t i = 0; i < pending_count_; ++i) rt_->send(*w_, pending_[i]);
    pending_count_ = 0;
  }
  if (done_.fn != nullptr) {
    const deferred d = done_;
    done_.fn = nullptr;
    d.fn(*this, d.client, d.key, d.value, d.found);  // its spawns go out at once
  }
}

inline void context::discard() {
  holding_ = false;
  for (std::size_t i = 0; i < pending_count_; ++i) w_->allocator.free(pending_[i]);
  pending_count_ = 0;
  done_.fn = nullptr;
  follow_.object = nullptr;
}

inline void context::retire(void* p, void (*free)(void*)) {
  if (speculative_) throw std::logic_error("an optimistic reader may run again: it cannot retire objects");
  w_->epoch->retire(p, free);
}

inline std::uint16_t context::place(float frequency) {
  if (speculative_) throw std::logic_error("an optimistic reader may run again: it cannot place objects");
  return rt_->place(frequency);
}

}  // namespace weave::tasks
