// Epoch-based reclamation and version pruning: nothing is freed while a
// batch that could see it runs, chains stay short under updates, an
// unmanaged transaction keeps its snapshot, and concurrent workers read only
// live memory (this test matters most under ASan and TSan).

#include "weave/memory/epoch.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace weave::txn {
namespace {

int freed = 0;
void count_free(void*) { ++freed; }

TEST(epochs, free_retired_objects_only_after_every_batch_that_could_see_them) {
  epoch_manager m;
  participant& a = m.join();
  participant& b = m.join();
  std::uint64_t clock = 5;
  const auto now = [&] { return clock; };
  freed = 0;
  {
    epoch_guard reader(b, now);  // b is in a batch that began before the retire
    {
      epoch_guard writer(a, now);
      a.retire(nullptr, &count_free);
    }
    for (int i = 0; i < 5; ++i) {
      epoch_guard writer(a, now);
    }
    EXPECT_EQ(freed, 0) << "b's batch is still running";
    EXPECT_EQ(m.lowest_floor(9), 5u);
  }
  for (int i = 0; i < 3; ++i) {
    epoch_guard writer(a, now);
  }
  EXPECT_EQ(freed, 1);
  EXPECT_EQ(a.pending(), 0u);
  EXPECT_EQ(m.lowest_floor(9), 9u) << "no batch runs";
}

// A batch's floor rises as its items end, never past an item still running.
TEST(epochs, a_batch_floor_rises_as_its_items_end_but_not_past_a_running_one) {
  epoch_manager m;
  participant& p = m.join();
  std::uint64_t clock = 10;
  const auto now = [&] { return clock; };
  {
    const epoch_guard batch(p, now);
    const unsigned a = p.begin_item();  // both began at 10
    const unsigned b = p.begin_item();
    clock = 20;
    p.end_item(a, now);
    EXPECT_EQ(m.lowest_floor(100), 10u) << "b still runs";
    const unsigned c = p.begin_item();  // began at 20
    clock = 30;
    p.end_item(b, now);
    EXPECT_EQ(m.lowest_floor(100), 20u) << "c began at 20 and still runs";
    clock = 40;
    p.end_item(c, now);
    EXPECT_EQ(m.lowest_floor(100), 40u) << "nothing runs: later items begin at 40 or after";
    const unsigned d = p.begin_item();
    clock = 50;
    const unsigned e = p.begin_item();
    clock = 60;
    p.end_item(e, now);
    EXPECT_EQ(m.lowest_floor(100), 40u) << "d began at 40 and still runs";
    p.end_item(d, now);
    EXPECT_EQ(m.lowest_floor(100), 60u);
  }
  EXPECT_EQ(m.lowest_floor(100), 100u) << "no batch runs";
  // An item that outlives its batch and ends in the next one does not lift
  // that batch's floor past an item of its own.
  unsigned late = 0;
  {
    const epoch_guard batch(p, now);
    late = p.begin_item();
  }
  clock = 70;
  {
    const epoch_guard batch(p, now);
    const unsigned f = p.begin_item();  // began at 70
    clock = 80;
    p.end_item(late, now);
    EXPECT_EQ(m.lowest_floor(100), 70u) << "f began at 70 and still runs";
    clock = 90;
    p.end_item(f, now);
    EXPECT_EQ(m.lowest_floor(100), 90u);
  }
}

// Deferred work runs in order once the lowest floor reaches it, and a full
// ring forgets its oldest item rather than grow.
TEST(epochs, deferred_work_waits_for_the_floor_and_the_ring_forgets_the_oldest) {
  epoch_manager m;
  participant& p = m.join();
  int owner = 0;
  std::vector<std::uint64_t> ran;
  const auto record_run = [&](void* o, std::uint64_t id) {
    EXPECT_EQ(o, &owner);
    ran.push_back(id);
  };
  p.defer(&owner, 1, 10);
  p.defer(&owner, 2, 20);
  p.defer(&owner, 3, 30);
  p.run_deferred(9, record_run);
  EXPECT_TRUE(ran.empty());
  p.run_deferred(20, record_run);
  EXPECT_EQ(ran, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(p.deferred(), 1u);
  p.defer(&owner, 4, 40);
  p.run_deferred(100, record_run, 1);
  EXPECT_EQ(ran, (std::vector<std::uint64_t>{1, 2, 3})) << "one at most";
  p.run_deferred(100, record_run);
  EXPECT_EQ(ran, (std::vector<std::uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(p.deferred(), 0u);

  ran.clear();
  const std::size_t n = participant::max_deferred;
  for (std::uint64_t i = 0; i < n + 5; ++i) p.defer(&owner, i, 100 + i);
  EXPECT_EQ(p.deferred(), n);
  p.run_deferred(~std::uint64_t{0}, record_run);
  ASSERT_EQ(ran.size(), n);
  EXPECT_EQ(ran.front(), 5u) << "the five oldest were dropped";
  EXPECT_EQ(ran.back(), n + 4);
}

std::size_t chain_length(const table& t, std::uint64_t key) {
  const auto oid = sync_wait(lookup<sequential_policy>(t.index(), key));
  std::size_t n = 0;
  for (const version* v = t.head(*oid).load(); v != nullptr; v = v->older.load()) ++n;
  return n;
}

// A table holding key 1 -> "v0".
table& one_record(engine& db) {
  table& t = db.create_table("t");
  transaction load = db.begin();
  EXPECT_EQ(sync_wait(load.insert<sequential_policy>(t, 1, "v0")), status::ok);
  EXPECT_EQ(load.commit(), commit_status::committed);
  return t;
}

TEST(epochs, updates_in_batches_keep_chains_short_and_unmanaged_readers_keep_their_snapshot) {
  engine db;
  table& t = one_record(db);
  participant& worker = db.join();
  const auto update = [&](const std::string& value) {
    const epoch_guard batch = db.enter(worker);
    transaction u = db.begin();
    ASSERT_EQ(sync_wait(u.put<interleaved_policy>(t, 1, value)), status::ok);
    ASSERT_EQ(u.commit(), commit_status::committed);
  };
  for (int i = 1; i <= 100; ++i) update("v" + std::to_string(i));
  EXPECT_LE(chain_length(t, 1), 2u);

  // An unmanaged reader holds off pruning and keeps seeing its snapshot.
  transaction old_reader = db.begin();
  for (int i = 101; i <= 150; ++i) update("v" + std::to_string(i));
  EXPECT_GE(chain_length(t, 1), 50u);
  EXPECT_EQ(std::string(*sync_wait(old_reader.get<interleaved_policy>(t, 1))), "v100");
  ASSERT_EQ(old_reader.commit(), commit_status::committed);
  update("v151");
  EXPECT_LE(chain_length(t, 1), 2u);
}

// One long batch: pruning follows its transactions as they end, so chains
// stay short, but never passes one still running, which keeps its snapshot.
TEST(epochs, a_long_batch_keeps_chains_short_and_its_oldest_transaction_keeps_its_snapshot) {
  engine db;
  table& t = one_record(db);
  participant& worker = db.join();
  const epoch_guard batch = db.enter(worker);
  const auto update = [&](const std::string& value) {
    transaction u = db.begin();
    ASSERT_EQ(sync_wait(u.put<interleaved_policy>(t, 1, value)), status::ok);
    ASSERT_EQ(u.commit(), commit_status::committed);
  };
  for (int i = 1; i <= 100; ++i) update("v" + std::to_string(i));
  EXPECT_LE(chain_length(t, 1), 2u);

  transaction old_reader = db.begin();  // a sibling in the same batch
  for (int i = 101; i <= 150; ++i) update("v" + std::to_string(i));
  EXPECT_GE(chain_length(t, 1), 50u);
  EXPECT_EQ(sync_wait(old_reader.get<interleaved_policy>(t, 1)).value_or("<pruned>"), "v100");
  ASSERT_EQ(old_reader.commit(), commit_status::committed);
  update("v151");
  update("v152");
  EXPECT_LE(chain_length(t, 1), 2u);
}

// A record written once, and never again, loses the version its write
// replaced once no snapshot can read it: later commits of other records cut
// it. An unmanaged reader that began before the write keeps reading it.
TEST(epochs, a_record_written_once_keeps_one_version_once_no_snapshot_needs_the_old_one) {
  engine db;
  table& t = db.create_table("t");
  {
    transaction load = db.begin();
    for (std::uint64_t k = 0; k < 4; ++k)
      ASSERT_EQ(sync_wait(load.insert<sequential_policy>(t, k, "v0")), status::ok);
    ASSERT_EQ(load.commit(), commit_status::committed);
  }
  participant& worker = db.join();
  const auto update = [&](std::uint64_t key, const std::string& value) {
    const epoch_guard batch = db.enter(worker);
    transaction u = db.begin();
    ASSERT_EQ(sync_wait(u.put<interleaved_policy>(t, key, value)), status::ok);
    ASSERT_EQ(u.commit(), commit_status::committed);
  };
  transaction old_reader = db.begin();
  update(0, "v1");
  for (int i = 0; i < 20; ++i) update(1, "w" + std::to_string(i));
  EXPECT_EQ(chain_length(t, 0), 2u) << "the reader may still read v0";
  EXPECT_EQ(std::string(*sync_wait(old_reader.get<interleaved_policy>(t, 0))), "v0");
  ASSERT_EQ(old_reader.commit(), commit_status::committed);
  update(2, "x");
  update(3, "y");
  EXPECT_EQ(chain_length(t, 0), 1u);
  transaction reader = db.begin();
  EXPECT_EQ(std::string(*sync_wait(reader.get<interleaved_policy>(t, 0))), "v1");
  EXPECT_EQ(reader.commit(), commit_status::committed);
  // Within one long batch too, once the transactions that could read the
  // replaced version have ended: a sibling that began before the write keeps
  // it through later commits.
  const epoch_guard batch = db.enter(worker);
  transaction sibling = db.begin();
  transaction u = db.begin();
  ASSERT_EQ(sync_wait(u.put<interleaved_policy>(t, 2, "x2")), status::ok);
  ASSERT_EQ(u.commit(), commit_status::committed);
  const auto write_3 = [&](int times) {
    for (int i = 0; i < times; ++i) {
      transaction w = db.begin();
      ASSERT_EQ(sync_wait(w.put<interleaved_policy>(t, 3, "y" + std::to_string(i))), status::ok);
      ASSERT_EQ(w.commit(), commit_status::committed);
    }
  };
  write_3(20);
  EXPECT_EQ(chain_length(t, 2), 2u) << "the sibling may still read x";
  EXPECT_EQ(std::string(*sync_wait(sibling.get<interleaved_policy>(t, 2))), "x");
  ASSERT_EQ(sibling.commit(), commit_status::committed);
  write_3(3);
  EXPECT_EQ(chain_length(t, 2), 1u);
}

template <class Policy>
task<bool> overwrite(engine& db, table& t, std::uint64_t key) {
  transaction x = db.begin();
  if (co_await x.put<Policy>(t, key, "w" + std::to_string(key)) != status::ok) co_return false;
  co_return co_await x.commit<Policy>() == commit_status::committed;
}

// A pipeline that is never empty, in one long batch, still lets chains be
// cut: with the batch's floor fixed where it began, each of these records
// kept every version written in the batch (60 and more).
TEST(epochs, a_pipeline_in_one_long_batch_keeps_chains_short) {
  engine db;
  constexpr std::uint64_t keys = 16;
  table& t = db.create_table("t");
  {
    transaction load = db.begin();
    for (std::uint64_t k = 0; k < keys; ++k)
      ASSERT_EQ(sync_wait(load.insert<sequential_policy>(t, k, "v")), status::ok);
    ASSERT_EQ(load.commit(), commit_status::committed);
  }
  participant& worker = db.join();
  const epoch_guard batch = db.enter(worker);
  std::size_t commits = 0;
  // Four in flight over consecutive keys: siblings never write the same record.
  interleaved_scheduler{4}.run(
      1000, [&](auto policy, std::size_t i) { return overwrite<decltype(policy)>(db, t, i % keys); },
      [&](std::size_t, bool ok) { commits += ok ? 1 : 0; });
  EXPECT_EQ(commits, 1000u);
  for (std::uint64_t k = 0; k < keys; ++k) EXPECT_LE(chain_length(t, k), 8u) << "key " << k;
}

// A transaction belongs to its engine's epochs, not to whatever guard its
// thread is in: begun inside a batch of another manager (a task-runtime
// worker's), it is unmanaged for its engine and holds off its pruning.
TEST(epochs, a_transaction_inside_another_managers_batch_keeps_its_snapshot) {
  engine db;
  table& t = one_record(db);
  epoch_manager runtime;
  participant& runtime_worker = runtime.join();
  const epoch_guard runtime_batch(runtime_worker, [] { return participant::no_floor; });
  transaction reader = db.begin();
  std::thread updater([&] {
    participant& worker = db.join();
    for (int i = 1; i <= 50; ++i) {
      const epoch_guard batch = db.enter(worker);
      transaction u = db.begin();
      ASSERT_EQ(sync_wait(u.put<interleaved_policy>(t, 1, "v" + std::to_string(i))), status::ok);
      ASSERT_EQ(u.commit(), commit_status::committed);
    }
  });
  updater.join();
  EXPECT_EQ(sync_wait(reader.get<interleaved_policy>(t, 1)).value_or("<pruned>"), "v0");
  EXPECT_EQ(reader.commit(), commit_status::committed);
}

std::string record(std::uint64_t key, std::uint64_t n) {
  std::string s(16, '\0');
  std::memcpy(s.data(), &key, 8);
  std::memcpy(s.data() + 8, &n, 8);
  return s;
}

// Reads a record (which must name its own key) and, if asked, overwrites it.
template <class Policy>
task<bool> read_then_write(engine& db, table& t, std::uint64_t key, std::uint64_t n, bool write,
                           std::atomic<std::size_t>& bad) {
  transaction x = db.begin();
  const auto v = co_await x.get<Policy>(t, key);
  std::uint64_t stored = ~std::uint64_t{0};
  if (v) std::memcpy(&stored, v->data(), 8);
  if (stored != key) ++bad;
  if (write && co_await x.put<Policy>(t, key, record(key, n)) != status::ok) co_return false;
  co_return x.commit() == commit_status::committed;
}

TEST(epochs, concurrent_workers_read_only_live_versions) {
  engine db;
  constexpr std::uint64_t keys = 32;
  table& t = db.create_table("t");
  {
    transaction load = db.begin();
    for (std::uint64_t k = 0; k < keys; ++k) {
      ASSERT_EQ(sync_wait(load.insert<sequential_policy>(t, k, record(k, 0))), status::ok);
    }
    ASSERT_EQ(load.commit(), commit_status::committed);
  }
  std::atomic<std::size_t> bad{0}, commits{0};
  std::vector<std::thread> workers;
  for (std::size_t w = 0; w < 2; ++w) {
    workers.emplace_back([&, w] {
      participant& me = db.join();
      for (std::size_t round = 0; round < 200; ++round) {
        const epoch_guard batch = db.enter(me);
        batched_scheduler{4}.run(
            16,
            [&](auto policy, std::size_t i) {
              return read_then_write<decltype(policy)>(db, t, (i * 7 + round + w) % keys, round, i % 2 == 0, bad);
            },
            [&](std::size_t, bool ok) { commits += ok ? 1 : 0; });
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_GT(commits.load(), 0u);
  // How long a chain grew depends on how the OS scheduled the two workers (a
  // stalled batch holds off pruning); once no batch runs, one more update
  // must cut every chain back.
  participant& last = db.join();
  for (std::uint64_t k = 0; k < keys; ++k) {
    const epoch_guard batch = db.enter(last);
    transaction u = db.begin();
    ASSERT_EQ(sync_wait(u.put<interleaved_policy>(t, k, record(k, 200))), status::ok);
    ASSERT_EQ(u.commit(), commit_status::committed);
    EXPECT_LE(chain_length(t, k), 2u) << "key " << k;
  }
}

}  // namespace
}  // namespace weave::txn
