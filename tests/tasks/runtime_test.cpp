// The task runtime: every spawned task runs once, routing honours owners,
// targets and priorities, each synchronization kind excludes what it must,
// retired objects outlive their optimistic readers, and descriptors are
// recycled. Run with 1 and 2 workers and several prefetch distances; the
// exclusion tests matter most under TSan and ASan.

#include "weave/tasks/runtime.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace weave::tasks {
namespace {

struct config {
  unsigned workers;
  unsigned distance;
};

std::string name(const ::testing::TestParamInfo<config>& info) {
  return "w" + std::to_string(info.param.workers) + "_d" + std::to_string(info.param.distance);
}

class runtime_test : public ::testing::TestWithParam<config> {
 protected:
  runtime make_runtime() const {
    runtime::options o;
    o.workers = GetParam().workers;
    o.prefetch_distance = GetParam().distance;
    return runtime(o);
  }
};

// A chain: each task counts itself and spawns the next until `left` is 0.
struct chain_state {
  std::atomic<std::uint64_t>* ran;
  std::uint32_t left;
};

void chain_step(const annotated_task& t, context& ctx) {
  const chain_state s = t.state<chain_state>();
  s.ran->fetch_add(1, std::memory_order_relaxed);
  if (s.left == 0) return;
  annotated_task* next = ctx.make();
  next->run = &chain_step;
  next->target = static_cast<std::uint16_t>((ctx.worker() + s.left) % ctx.workers());
  next->set_state(chain_state{s.ran, s.left - 1});
  ctx.spawn(next);
}

TEST_P(runtime_test, runs_every_spawned_task_once_and_returns_when_none_is_left) {
  runtime rt = make_runtime();
  std::atomic<std::uint64_t> ran{0};
  constexpr std::uint32_t chains = 100, length = 50;
  const auto start_chains = [&](context& ctx) {
    for (std::uint32_t i = 0; i < chains; ++i) {
      annotated_task* t = ctx.make();
      t->run = &chain_step;
      t->set_state(chain_state{&ran, length});
      ctx.spawn(t);
    }
  };
  rt.run(start_chains);
  EXPECT_EQ(ran.load(), std::uint64_t{chains} * (length + 1) * rt.workers());
  // Descriptors are recycled: ten runs carve fewer than one run uses. (How
  // many are carved depends on how the workers interleave, so it is bounded
  // rather than compared with the first run.)
  for (int repeat = 0; repeat < 9; ++repeat) {
    ran = 0;
    rt.run(start_chains);
    EXPECT_EQ(ran.load(), std::uint64_t{chains} * (length + 1) * rt.workers());
  }
  EXPECT_LT(rt.descriptors(), std::size_t{chains} * (length + 1) * rt.workers());
}

// An object with a plain counter and a pair that writers keep equal.
struct guarded : data_object {
  std::uint64_t plain = 0;          // only safe if writers exclude each other
  std::atomic<std::uint64_t> a{0};  // written a then b: a reader between sees them differ
  std::atomic<std::uint64_t> b{0};
  std::atomic<int> writers_inside{0};
  std::atomic<int> readers_inside{0};
};

struct probe_state {
  guarded* object;
  std::atomic<std::uint64_t>* torn;      // readers that saw a != b and were not re-run
  std::atomic<std::uint64_t>* overlaps;  // tasks that saw a task they must exclude
  bool readers_share;                    // readers may overlap one another
  bool readers_exclude_writers;          // readers run only when no writer does
};

void spin_a_little() {
  for (int i = 0; i < 200; ++i) std::atomic_signal_fence(std::memory_order_seq_cst);
}

void writer_step(const annotated_task& t, context&) {
  const probe_state s = t.state<probe_state>();
  guarded& g = *s.object;
  if (g.writers_inside.fetch_add(1) != 0) s.overlaps->fetch_add(1);
  if (g.readers_inside.load() != 0 && s.readers_exclude_writers) s.overlaps->fetch_add(1);
  const std::uint64_t v = g.plain;
  spin_a_little();
  g.plain = v + 1;
  g.a.store(v + 1, std::memory_order_release);
  spin_a_little();
  g.b.store(v + 1, std::memory_order_release);
  g.writers_inside.fetch_sub(1);
}

void record_torn(context&, void* torn, std::uint64_t, std::uint64_t, bool consistent) {
  if (!consistent) static_cast<std::atomic<std::uint64_t>*>(torn)->fetch_add(1);
}

void reader_step(const annotated_task& t, context& ctx) {
  const probe_state s = t.state<probe_state>();
  guarded& g = *s.object;
  const int others = g.readers_inside.fetch_add(1);
  if (s.readers_exclude_writers && g.writers_inside.load() != 0) s.overlaps->fetch_add(1);
  if (!s.readers_share && others != 0) s.overlaps->fetch_add(1);
  const std::uint64_t a = g.a.load(std::memory_order_acquire);
  spin_a_little();
  const std::uint64_t b = g.b.load(std::memory_order_acquire);
  g.readers_inside.fetch_sub(1);
  ctx.complete(&record_torn, s.torn, a, b, a == b);
}

void exercise(runtime& rt, sync_kind sync, bool readers_share, bool readers_exclude_writers) {
  guarded g;
  g.sync = sync;
  g.owner = static_cast<std::uint16_t>(rt.workers() - 1);
  std::atomic<std::uint64_t> torn{0}, overlaps{0};
  constexpr int per_worker = 3000;
  rt.run([&](context& ctx) {
    for (int i = 0; i < per_worker; ++i) {
      annotated_task* t = ctx.make();
      const bool write = i % 3 == 0;
      t->run = write ? &writer_step : &reader_step;
      t->annotate(object_ref<guarded>(&g), write ? access::write : access::read, sync, 1);
      t->set_state(probe_state{&g, &torn, &overlaps, readers_share, readers_exclude_writers});
      ctx.spawn(t);
    }
  });
  const std::uint64_t writers = rt.workers() * ((per_worker + 2) / 3);
  EXPECT_EQ(g.plain, writers) << to_string(sync) << ": writers did not exclude one another";
  EXPECT_EQ(g.a.load(), writers);
  EXPECT_EQ(overlaps.load(), 0u) << to_string(sync) << ": a task ran alongside one it must exclude";
  EXPECT_EQ(torn.load(), 0u) << to_string(sync) << ": a reader's result saw a writer half done";
}

TEST_P(runtime_test, an_exclusive_latch_serializes_every_task_on_the_object) {
  runtime rt = make_runtime();
  exercise(rt, sync_kind::latch, false, true);
}

TEST_P(runtime_test, a_reader_writer_latch_lets_readers_share_but_not_with_writers) {
  runtime rt = make_runtime();
  exercise(rt, sync_kind::rwlatch, true, true);
}

TEST_P(runtime_test, scheduling_runs_every_task_of_an_object_on_its_owner_one_at_a_time) {
  runtime rt = make_runtime();
  exercise(rt, sync_kind::schedule, false, true);
}

TEST_P(runtime_test, optimistic_readers_that_saw_a_writer_are_run_again_without_a_trace) {
  runtime rt = make_runtime();
  // Readers may overlap writers (on another worker) but no torn result may
  // be reported: the runtime discards such a run and repeats it.
  exercise(rt, sync_kind::optimistic, true, false);
}

TEST_P(runtime_test, optimistic_latch_writers_exclude_one_another_wherever_they_run) {
  runtime rt = make_runtime();
  // As under optimistic, but every worker's writers run where they were
  // spawned (the routing test checks that), so they meet on the object.
  exercise(rt, sync_kind::optimistic_latch, true, false);
}

// Tasks under `schedule` run on the owner, under optimistic_latch where they
// were spawned; a task's target is honoured.
struct where_state {
  std::atomic<int>* wrong;
  std::uint16_t expected;
};

void check_worker(const annotated_task& t, context& ctx) {
  const where_state s = t.state<where_state>();
  if (ctx.worker() != s.expected) s.wrong->fetch_add(1);
}

TEST_P(runtime_test, routes_scheduled_tasks_to_the_owner_and_others_to_their_target_or_their_spawner) {
  runtime rt = make_runtime();
  guarded g;
  g.sync = sync_kind::schedule;
  g.owner = static_cast<std::uint16_t>(rt.workers() - 1);
  guarded latched;
  latched.sync = sync_kind::optimistic_latch;
  latched.owner = g.owner;
  std::atomic<int> wrong{0};
  rt.run([&](context& ctx) {
    for (int i = 0; i < 100; ++i) {
      annotated_task* t = ctx.make();
      t->run = &check_worker;
      t->annotate(object_ref<guarded>(&g), i % 2 == 0 ? access::read : access::write, sync_kind::schedule, 1);
      t->set_state(where_state{&wrong, g.owner});
      ctx.spawn(t);
      annotated_task* u = ctx.make();
      u->run = &check_worker;
      u->target = static_cast<std::uint16_t>(i % rt.workers());
      u->set_state(where_state{&wrong, u->target});
      ctx.spawn(u);
      // optimistic_latch sends neither readers nor writers to the owner.
      annotated_task* v = ctx.make();
      v->run = &check_worker;
      v->annotate(object_ref<guarded>(&latched), i % 2 == 0 ? access::read : access::write,
                  sync_kind::optimistic_latch, 1);
      v->set_state(where_state{&wrong, ctx.worker()});
      ctx.spawn(v);
    }
  });
  EXPECT_EQ(wrong.load(), 0);
}

// A walk: one task follows a row of stations to its end, reporting once it
// arrives. Writers on the same stations make optimistic walkers run again;
// a discarded run must not have sent the walker on (it would arrive twice,
// or the descriptor would sit in two queues).
struct station : data_object {
  std::atomic<std::uint64_t> visits{0};
};

struct walk_state {
  station* row;
  std::uint32_t length;
  std::atomic<std::uint64_t>* wrong_worker;
  std::atomic<std::uint64_t>* arrived;
};

void count_arrival(context&, void* arrived, std::uint64_t, std::uint64_t, bool) {
  static_cast<std::atomic<std::uint64_t>*>(arrived)->fetch_add(1);
}

void walk(const annotated_task& t, context& ctx) {
  const walk_state s = t.state<walk_state>();
  auto* here = static_cast<station*>(t.object);
  if (t.sync == sync_kind::schedule && ctx.worker() != here->owner) s.wrong_worker->fetch_add(1);
  if (t.sync == sync_kind::schedule) here->visits.fetch_add(1, std::memory_order_relaxed);
  const auto i = static_cast<std::uint32_t>(here - s.row);
  if (i + 1 == s.length) {
    ctx.complete(&count_arrival, s.arrived, 0, 0, true);
    return;
  }
  // Every other step as if the next station were cached: the walker runs
  // on at once where it may run here, and is sent on where it may not.
  ctx.follow(object_ref<station>(&s.row[i + 1]), access::read, t.sync, 1, i % 2 == 0);
}

void disturb(const annotated_task& t, context&) {
  auto* here = static_cast<station*>(t.object);
  here->frequency = here->frequency + 1;
  spin_a_little();  // a long write, so that walkers on the other worker see it
}

TEST_P(runtime_test, a_task_that_follows_visits_every_object_once_in_order_and_ends_once) {
  for (const sync_kind sync : {sync_kind::schedule, sync_kind::optimistic, sync_kind::optimistic_latch}) {
    runtime rt = make_runtime();
    constexpr std::uint32_t length = 12, walkers = 500;  // row[0] is not walked
    std::array<station, length> row;
    for (std::uint32_t i = 0; i < length; ++i) {
      row[i].sync = sync;
      row[i].owner = static_cast<std::uint16_t>(i % rt.workers());
    }
    std::atomic<std::uint64_t> wrong_worker{0};
    std::atomic<std::uint64_t> arrived{0};
    rt.run([&](context& ctx) {
      for (std::uint32_t w = 0; w < walkers; ++w) {
        annotated_task* t = ctx.make();
        t->run = &walk;
        t->annotate(object_ref<station>(&row[1]), access::read, sync, 1);
        t->set_state(walk_state{row.data(), length, &wrong_worker, &arrived});
        ctx.spawn(t);
        annotated_task* d = ctx.make();
        d->run = &disturb;
        d->annotate(object_ref<station>(&row[1 + w % (length - 1)]), access::write, sync, 1);
        ctx.spawn(d);
      }
    });
    EXPECT_EQ(arrived.load(), std::uint64_t{walkers} * rt.workers()) << to_string(sync);
    float disturbances = 0;  // each writer ran once (a stray follow would send one on)
    for (const station& at : row) disturbances += at.frequency;
    EXPECT_EQ(disturbances, static_cast<float>(walkers * rt.workers())) << to_string(sync);
    EXPECT_EQ(wrong_worker.load(), 0u) << to_string(sync);
    if (sync == sync_kind::schedule) {
      for (std::uint32_t i = 1; i < length; ++i) {
        EXPECT_EQ(row[i].visits.load(), std::uint64_t{walkers} * rt.workers()) << "station " << i;
      }
    }
    // Following makes no descriptor: one per walker and disturbance at most.
    EXPECT_LE(rt.descriptors(), 2 * walkers * rt.workers() + 64 * rt.workers() * 3);
  }
}

// A task that follows on to an object its caller expects cached runs on at
// once, before the tasks queued behind it; otherwise it queues behind them.
struct hop_state {
  std::vector<int>* order;
  int id;
  station* row;  // a task on row[0] goes on to row[1]; row[2] ends it
  bool cached;
};

void hop(const annotated_task& t, context& ctx) {
  const hop_state s = t.state<hop_state>();
  const auto i = static_cast<int>(static_cast<station*>(t.object) - s.row);
  s.order->push_back(s.id + i);
  if (i == 0) ctx.follow(object_ref<station>(&s.row[1]), access::read, t.sync, 1, s.cached);
}

TEST(runtime, runs_a_task_on_at_once_where_its_next_object_is_cached) {
  for (const bool cached : {false, true}) {
    runtime rt(runtime::options{1, 0, false});
    std::array<station, 3> row;
    std::vector<int> order;
    rt.run([&](context& ctx) {
      for (const int id : {10, 20}) {  // 10 starts on row[0], 20 on row[2]
        annotated_task* t = ctx.make();
        t->run = &hop;
        t->annotate(object_ref<station>(&row[id == 10 ? 0 : 2]), access::read, sync_kind::optimistic, 1);
        t->set_state(hop_state{&order, id == 10 ? 10 : 18, row.data(), cached});
        ctx.spawn(t);
      }
    });
    // 10 on row[0], then 11 on row[1] at once or after 20 on row[2].
    EXPECT_EQ(order, cached ? std::vector<int>({10, 11, 20}) : std::vector<int>({10, 20, 11}));
  }
}

// Within a pool, high-priority tasks run before normal ones queued earlier.
struct order_state {
  std::vector<int>* order;
  int id;
};

void record_order(const annotated_task& t, context&) {
  const order_state s = t.state<order_state>();
  s.order->push_back(s.id);
}

TEST_P(runtime_test, runs_high_priority_tasks_first) {
  runtime::options o;
  o.workers = 1;
  o.prefetch_distance = GetParam().distance;
  runtime rt(o);
  std::vector<int> order;
  rt.run([&](context& ctx) {
    for (int i = 0; i < 6; ++i) {
      annotated_task* t = ctx.make();
      t->run = &record_order;
      t->rank = i >= 4 ? priority::high : priority::normal;
      t->set_state(order_state{&order, i});
      ctx.spawn(t);
    }
  });
  EXPECT_EQ(order, (std::vector<int>{4, 5, 0, 1, 2, 3}));
}

// A writer replaces an object's payload and retires the old one while
// optimistic readers on other workers may still be reading it: with epochs
// they never read freed memory (ASan would report it) and never report a
// payload that was not whole.
struct swapped : data_object {
  std::atomic<std::array<std::atomic<std::uint64_t>, 8>*> payload{nullptr};
};

struct swap_state {
  swapped* object;
  std::atomic<std::uint64_t>* torn;
  std::uint64_t generation;
};

void free_payload(void* p) { delete static_cast<std::array<std::atomic<std::uint64_t>, 8>*>(p); }

void swap_payload(const annotated_task& t, context& ctx) {
  const swap_state s = t.state<swap_state>();
  auto* fresh = new std::array<std::atomic<std::uint64_t>, 8>;
  for (auto& x : *fresh) x.store(s.generation, std::memory_order_relaxed);
  auto* old = s.object->payload.exchange(fresh, std::memory_order_acq_rel);
  ctx.retire(old, &free_payload);
}

void read_payload(const annotated_task& t, context& ctx) {
  const swap_state s = t.state<swap_state>();
  const auto* p = s.object->payload.load(std::memory_order_acquire);
  const std::uint64_t first = (*p)[0].load(std::memory_order_acquire);
  bool whole = true;
  for (const auto& x : *p) whole = whole && x.load(std::memory_order_acquire) == first;
  ctx.complete(&record_torn, s.torn, 0, 0, whole);
}

TEST_P(runtime_test, retired_objects_outlive_the_optimistic_readers_that_may_hold_them) {
  runtime rt = make_runtime();
  swapped o;
  o.sync = sync_kind::optimistic;
  o.owner = 0;
  o.payload.store(new std::array<std::atomic<std::uint64_t>, 8>{});
  std::atomic<std::uint64_t> torn{0};
  rt.run([&](context& ctx) {
    for (std::uint64_t i = 0; i < 4000; ++i) {
      annotated_task* t = ctx.make();
      const bool write = i % 4 == 0;
      t->run = write ? &swap_payload : &read_payload;
      t->annotate(object_ref<swapped>(&o), write ? access::write : access::read, sync_kind::optimistic, 1);
      t->set_state(swap_state{&o, &torn, i});
      ctx.spawn(t);
    }
  });
  EXPECT_EQ(torn.load(), 0u);
  free_payload(o.payload.load());
}

INSTANTIATE_TEST_SUITE_P(tasks, runtime_test,
                         ::testing::Values(config{1, 0}, config{1, 3}, config{2, 0}, config{2, 1}, config{2, 4}),
                         name);

}  // namespace
}  // namespace weave::tasks
