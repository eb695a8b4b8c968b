// Reservations: the held slots against a std::set, and transactions on two
// workers, interleaved or not, that update the same few records, in every
// execution mode: with reservations none of them conflicts, and the records
// end as an oracle says.

#include "weave/txn/reservations.hpp"

#include <gtest/gtest.h>

#include <array>
#include <barrier>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bench/workload/prefetch_policy.hpp"
#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace weave::txn {
namespace {

using S = sequential_policy;

TEST(reservations, exclude_equal_tokens_until_released) {
  ASSERT_NE(reservations::slot_of(7), reservations::slot_of(9));
  ASSERT_NE(reservations::slot_of(9), reservations::slot_of(11));
  reservations r;
  const std::vector<std::uint64_t> first{7, 9, 9}, second{9, 11};
  reservation a = sync_wait(r.reserve<S>(first));
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(r.held(), 2u);  // a token named twice is held once
  reservation b = r.try_reserve(second);
  EXPECT_TRUE(b.empty());  // all or nothing
  EXPECT_EQ(r.held(), 2u);
  a.release();
  EXPECT_EQ(r.held(), 0u);
  b = r.try_reserve(second);
  EXPECT_FALSE(b.empty());
  reservation moved = std::move(b);
  EXPECT_EQ(r.held(), 2u);
  moved = reservation{};  // dropping one releases it
  EXPECT_EQ(r.held(), 0u);
  EXPECT_EQ(r.given_up(), 0u);
}

TEST(reservations, held_slots_against_a_set) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed);
    reservations r;
    std::set<std::size_t> oracle;  // held slots
    struct held_one {
      reservation guard;
      std::set<std::size_t> slots;
    };
    std::vector<held_one> live;
    // Few enough tokens that they collide often; sometimes two share a slot.
    const std::uint64_t domain = 64 << seed;
    for (int step = 0; step < 20000; ++step) {
      if (live.empty() || rng() % 3 != 0) {
        std::vector<std::uint64_t> tokens(1 + rng() % 4);
        std::set<std::size_t> slots;
        for (auto& t : tokens) {
          t = rng() % domain;
          slots.insert(reservations::slot_of(t));
        }
        bool free = true;
        for (const auto s : slots) free = free && !oracle.contains(s);
        reservation g = r.try_reserve(tokens);
        ASSERT_EQ(!g.empty(), free) << "step " << step;
        if (free) {
          oracle.insert(slots.begin(), slots.end());
          live.push_back({std::move(g), slots});
        }
      } else {
        const std::size_t i = rng() % live.size();
        for (const auto s : live[i].slots) oracle.erase(s);
        live[i].guard.release();
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      }
      if (step % 64 == 0) {  // held() scans every slot
        ASSERT_EQ(r.held(), oracle.size()) << "step " << step;
      }
    }
    live.clear();
    EXPECT_EQ(r.held(), 0u);
  }
}

TEST(reservations, a_transaction_holds_its_reservation_until_it_finishes) {
  engine db;
  table& tab = db.create_table("t");
  reservations r;
  const std::array<std::uint64_t, 1> hot{reservations::token(tab, 1)};
  {
    transaction t = db.begin(sync_wait(r.reserve<S>(hot)));
    EXPECT_EQ(r.held(), 1u);
    ASSERT_EQ(sync_wait(t.insert<S>(tab, 1, "a")), status::ok);
    EXPECT_EQ(t.commit(), commit_status::committed);
    EXPECT_EQ(r.held(), 0u);
  }
  {
    transaction t = db.begin(sync_wait(r.reserve<S>(hot)));
    t.abort();
    EXPECT_EQ(r.held(), 0u);
  }
  {
    transaction t = db.begin(sync_wait(r.reserve<S>(hot)));
    transaction moved = std::move(t);
    EXPECT_EQ(r.held(), 1u);
  }  // destroyed unfinished: aborted, released
  EXPECT_EQ(r.held(), 0u);
}

TEST(reservations, a_holder_that_cannot_run_is_waited_for_only_so_long) {
  engine db;
  table& tab = db.create_table("t");
  reservations r;
  const std::array<std::uint64_t, 1> hot{reservations::token(tab, 1)};
  transaction open = db.begin(sync_wait(r.reserve<S>(hot)));
  // The same thread waits for a transaction that nothing will resume: it
  // gives up rather than hang.
  const reservation none = sync_wait(r.reserve<interleaved_policy>(hot));
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(r.waits(), 1u);  // one reservation waited, however many tries it made
  EXPECT_EQ(r.given_up(), 1u);
  open.abort();
}

std::string encode(std::uint64_t v) {
  std::string s(sizeof v, '\0');
  std::memcpy(s.data(), &v, sizeof v);
  return s;
}
std::uint64_t decode(std::string_view s) {
  std::uint64_t v = 0;
  std::memcpy(&v, s.data(), sizeof v);
  return v;
}

// Adds one to counter `hot`, letting its siblings in between the read and
// the write and between the write and the commit (the table is small
// enough to stay cached, so no read of it suspends by itself).
template <class Policy>
task<commit_status> add_one(engine& db, table& counters, reservations* r, std::uint64_t hot) {
  const std::array<std::uint64_t, 1> tokens{reservations::token(counters, hot)};
  reservation mine;  // (no co_await inside ?: : g++ 12 miscompiles it)
  if (r != nullptr) mine = co_await r->reserve<Policy>(tokens);
  transaction t = db.begin(std::move(mine));
  const auto v = co_await t.get<Policy>(counters, hot);
  if (!v) co_return commit_status::write_conflict;
  co_await next_pass<Policy>();
  if (co_await t.put<Policy>(counters, hot, encode(decode(*v) + 1)) != status::ok) {
    co_return commit_status::write_conflict;
  }
  co_await next_pass<Policy>();
  co_return co_await t.commit<Policy>();
}

class siblings : public ::testing::TestWithParam<isolation> {};

TEST_P(siblings, with_reservations_never_collide_in_any_mode_on_two_workers) {
  constexpr std::uint64_t hot = 3, runs = 1024;
  constexpr int rounds = 12;
  engine db(GetParam());
  table& counters = db.create_table("counters");
  {
    transaction t = db.begin();
    for (std::uint64_t k = 0; k < hot; ++k) ASSERT_EQ(sync_wait(t.insert<S>(counters, k, encode(0))), status::ok);
    ASSERT_EQ(t.commit(), commit_status::committed);
  }
  // Patience for a loaded machine: a holder's thread may be off its core
  // for a while, and a reservation that gives up may collide.
  reservations r(std::chrono::seconds(60));
  std::array<std::array<std::uint64_t, hot>, 2> expected{};
  std::array<std::array<std::size_t, rounds>, 2> conflicts{};
  std::barrier rounds_together(2);  // both workers reserve, or neither does
  std::vector<std::thread> workers;
  for (std::size_t worker = 0; worker < 2; ++worker) {
    workers.emplace_back([&, worker] {
      participant& me = db.join();
      std::mt19937_64 rng(worker + (GetParam() == isolation::snapshot ? 1 : 3));
      for (int round = 0; round < rounds; ++round) {
        rounds_together.arrive_and_wait();
        const bool reserve = round % 6 != 5;  // the control: siblings without reservations collide
        std::vector<std::uint64_t> work(runs);
        for (auto& w : work) w = rng() % hot;
        const auto make = [&](auto policy, std::size_t i) {
          return add_one<decltype(policy)>(db, counters, reserve ? &r : nullptr, work[i]);
        };
        const auto sink = [&](std::size_t i, commit_status s) {
          if (s == commit_status::committed) {
            ++expected[worker][work[i]];
          } else {
            ++conflicts[worker][static_cast<std::size_t>(round)];
          }
        };
        const epoch_guard batch = db.enter(me);
        const std::size_t g = std::size_t{1} << (1 + (round + worker) % 4);  // 2 to 16
        // The two workers run different modes side by side.
        switch ((round + 2 * worker) % 6) {
          case 0: batched_scheduler{g}.run(runs, make, sink); break;
          case 1: interleaved_scheduler{g}.run(runs, make, sink); break;
          case 2: sequential_scheduler{}.run(runs, make, sink); break;
          case 3: basic_sequential_scheduler<bench::prefetch_policy>{}.run(runs, make, sink); break;
          case 4: interleaved_scheduler{1}.run(runs, make, sink); break;
          case 5: batched_scheduler{8}.run(runs, make, sink); break;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  for (int round = 0; round < rounds; ++round) {
    const auto i = static_cast<std::size_t>(round);
    if (round % 6 != 5) {
      EXPECT_EQ(conflicts[0][i] + conflicts[1][i], 0u) << "round " << round;
    } else {
      EXPECT_GT(conflicts[0][i] + conflicts[1][i], 0u) << "the control round does not make siblings collide";
    }
  }
  EXPECT_EQ(r.held(), 0u);
  EXPECT_EQ(r.given_up(), 0u);
  EXPECT_GT(r.waits(), 0u);
  transaction t = db.begin();
  for (std::uint64_t k = 0; k < hot; ++k) {
    const auto v = sync_wait(t.get<S>(counters, k));
    ASSERT_TRUE(v);
    EXPECT_EQ(decode(*v), expected[0][k] + expected[1][k]) << "counter " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(levels, siblings, ::testing::Values(isolation::snapshot, isolation::serializable));

}  // namespace
}  // namespace weave::txn
