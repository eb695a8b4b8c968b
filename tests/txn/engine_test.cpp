// The transaction engine against oracles: random transactions against a
// std::map (committed ones only), the anomaly catalogue of snapshot
// isolation and of the serializable level, and concurrent bank transfers
// whose total never changes.

#include "weave/txn/engine.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"

namespace weave::txn {
namespace {

using P = interleaved_policy;

std::string get(transaction& t, const table& tab, std::uint64_t key, const std::string& missing = "<none>") {
  const auto v = sync_wait(t.get<P>(tab, key));
  return v ? std::string(*v) : missing;
}

struct transactions : ::testing::TestWithParam<isolation> {};

std::string level_name(const ::testing::TestParamInfo<isolation>& level) {
  return level.param == isolation::snapshot ? "si" : "ssn";
}
const auto both_levels = ::testing::Values(isolation::snapshot, isolation::serializable);

INSTANTIATE_TEST_SUITE_P(levels, transactions, both_levels, level_name);

// Random transactions, committed or aborted, against a map of what each
// should see; keys made by key_of(0..299).
template <class KeyOf>
void match_a_map(isolation level, key_kind kind, KeyOf key_of) {
  using key_type = decltype(key_of(0));
  engine db(level);
  table& tab = db.create_table("t", 100000, kind);
  std::map<key_type, std::string> oracle;
  std::mt19937_64 rng(21);
  for (int round = 0; round < 2000; ++round) {
    transaction t = db.begin();
    std::map<key_type, std::string> mine = oracle;  // what this transaction should see
    for (int op = 0; op < 6; ++op) {
      const key_type key = key_of(rng() % 300);
      const std::string value = "v" + std::to_string(rng() % 1000);
      const auto it = mine.find(key);
      switch (rng() % 4) {
        case 0: {
          const auto got = round % 3 == 0   ? sync_wait(t.get<P>(tab, key))
                           : round % 3 == 1 ? sync_wait(t.get_nested<P>(tab, key))
                                            : sync_wait(t.get<sequential_policy>(tab, key));
          ASSERT_EQ(got.has_value(), it != mine.end()) << "key " << key;
          if (got) {
            ASSERT_EQ(std::string(*got), it->second);
          }
          break;
        }
        case 1: {
          const status s =
              round % 2 ? sync_wait(t.put<P>(tab, key, value)) : sync_wait(t.put_nested<prefetch_policy>(tab, key, value));
          ASSERT_EQ(s, it != mine.end() ? status::ok : status::not_found);
          if (s == status::ok) it->second = value;
          break;
        }
        case 2: {
          const status s = sync_wait(t.insert<P>(tab, key, value));
          ASSERT_EQ(s, it == mine.end() ? status::ok : status::duplicate);
          if (s == status::ok) mine[key] = value;
          break;
        }
        case 3: {
          const status s = sync_wait(t.remove<P>(tab, key));
          ASSERT_EQ(s, it != mine.end() ? status::ok : status::not_found);
          if (s == status::ok) mine.erase(it);
          break;
        }
      }
    }
    if (round % 5 == 0) {
      t.abort();
    } else {
      ASSERT_TRUE(t.commit());
      oracle = std::move(mine);
    }
  }
  // A final scan sees exactly the committed records.
  transaction t = db.begin();
  std::vector<std::pair<key_type, std::string_view>> all;
  sync_wait(t.scan<P>(tab, key_type{}, 1000, all));
  ASSERT_EQ(all.size(), oracle.size());
  auto it = oracle.begin();
  for (const auto& [k, v] : all) {
    EXPECT_EQ(k, it->first);
    EXPECT_EQ(std::string(v), it->second);
    ++it;
  }
}

TEST_P(transactions, match_a_map_through_random_commits_and_aborts) {
  match_a_map(GetParam(), key_kind::integer, [](std::uint64_t n) { return n; });
}

TEST_P(transactions, match_a_map_with_byte_string_keys) {
  // Keys of 0 to 47 bytes, many sharing prefixes or being prefixes of others.
  match_a_map(GetParam(), key_kind::bytes, [](std::uint64_t n) {
    std::string k(n % 48, 'k');
    if (!k.empty()) k.back() = static_cast<char>('a' + n / 48);
    return k;
  });
}

TEST(transactions, refuse_keys_of_the_other_kind) {
  engine db;
  table& numbers = db.create_table("numbers", 10);
  table& names = db.create_table("names", 10, key_kind::bytes);
  transaction t = db.begin();
  EXPECT_THROW(sync_wait(t.insert<P>(numbers, "one", "1")), std::invalid_argument);
  EXPECT_THROW(sync_wait(t.insert<P>(names, 1, "one")), std::invalid_argument);
  EXPECT_THROW(sync_wait(t.insert<P>(names, std::string(48, 'x'), "long")), std::length_error);
  EXPECT_EQ(sync_wait(t.insert<P>(names, std::string(47, 'x'), "longest")), status::ok);
  EXPECT_EQ(sync_wait(t.insert<P>(names, "", "empty")), status::ok);
  EXPECT_EQ(sync_wait(t.get<P>(names, std::string(47, 'x'))).value_or("?"), "longest");
  EXPECT_EQ(sync_wait(t.get<P>(names, "")).value_or("?"), "empty");
  EXPECT_TRUE(t.commit());
}

// Records x (key 1) and y (key 2), under each isolation level.
struct anomalies : ::testing::TestWithParam<isolation> {
  engine db{GetParam()};
  table& tab = db.create_table("t", 100);
  void SetUp() override {
    transaction t = db.begin();
    ASSERT_EQ(sync_wait(t.insert<P>(tab, 1, "x0")), status::ok);
    ASSERT_EQ(sync_wait(t.insert<P>(tab, 2, "y0")), status::ok);
    ASSERT_TRUE(t.commit());
  }
};

TEST_P(anomalies, prevents_dirty_write) {
  transaction t1 = db.begin(), t2 = db.begin();
  EXPECT_EQ(sync_wait(t1.put<P>(tab, 1, "x1")), status::ok);
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 1, "x2")), status::conflict);
  EXPECT_TRUE(t1.commit());
  EXPECT_FALSE(t2.commit());
  transaction t3 = db.begin();
  EXPECT_EQ(get(t3, tab, 1), "x1");
}

TEST_P(anomalies, prevents_dirty_read) {
  transaction t1 = db.begin(), t2 = db.begin();
  EXPECT_EQ(sync_wait(t1.put<P>(tab, 1, "x1")), status::ok);
  EXPECT_EQ(get(t2, tab, 1), "x0");
  t1.abort();
  transaction t3 = db.begin();
  EXPECT_EQ(get(t3, tab, 1), "x0");
}

TEST_P(anomalies, prevents_lost_update) {
  transaction t1 = db.begin(), t2 = db.begin();
  EXPECT_EQ(get(t1, tab, 1), "x0");
  EXPECT_EQ(get(t2, tab, 1), "x0");
  EXPECT_EQ(sync_wait(t1.put<P>(tab, 1, "x0+1")), status::ok);
  EXPECT_TRUE(t1.commit());
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 1, "x0+2")), status::conflict);
  EXPECT_FALSE(t2.commit());
}

TEST_P(anomalies, prevents_fuzzy_read) {
  transaction t1 = db.begin();
  EXPECT_EQ(get(t1, tab, 1), "x0");
  transaction t2 = db.begin();
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 1, "x2")), status::ok);
  EXPECT_TRUE(t2.commit());
  EXPECT_EQ(get(t1, tab, 1), "x0");
}

TEST_P(anomalies, prevents_read_skew) {
  transaction t1 = db.begin();
  EXPECT_EQ(get(t1, tab, 1), "x0");
  transaction t2 = db.begin();
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 1, "x2")), status::ok);
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 2, "y2")), status::ok);
  EXPECT_TRUE(t2.commit());
  EXPECT_EQ(get(t1, tab, 2), "y0");
}

TEST_P(anomalies, write_skew_only_under_snapshot_isolation) {
  // Each reads both and writes a different one: SI lets both commit, SSN
  // must not (neither serial order gives what each read).
  transaction t1 = db.begin(), t2 = db.begin();
  EXPECT_EQ(get(t1, tab, 1) + get(t1, tab, 2), "x0y0");
  EXPECT_EQ(get(t2, tab, 1) + get(t2, tab, 2), "x0y0");
  EXPECT_EQ(sync_wait(t1.put<P>(tab, 1, "x1")), status::ok);
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 2, "y2")), status::ok);
  EXPECT_TRUE(t1.commit());
  EXPECT_EQ(t2.commit(), GetParam() == isolation::snapshot);
  transaction t3 = db.begin();
  EXPECT_EQ(get(t3, tab, 2), GetParam() == isolation::snapshot ? "y2" : "y0");
}

TEST_P(anomalies, read_only_anomaly_only_under_snapshot_isolation) {
  // Fekete et al.'s read-only anomaly: t2 reads x and y and will write x;
  // t1 writes y and commits; t3 then reads both and sees t1 but not t2; t2
  // commits last. Serially t2 precedes t1 (it missed t1's write), t1
  // precedes t3, and t3 precedes t2 (it missed t2's write): a cycle. SSN
  // aborts t2.
  transaction t2 = db.begin();
  EXPECT_EQ(get(t2, tab, 1) + get(t2, tab, 2), "x0y0");
  transaction t1 = db.begin();
  EXPECT_EQ(get(t1, tab, 2), "y0");
  EXPECT_EQ(sync_wait(t1.put<P>(tab, 2, "y1")), status::ok);
  EXPECT_TRUE(t1.commit());
  transaction t3 = db.begin();
  EXPECT_EQ(get(t3, tab, 1) + get(t3, tab, 2), "x0y1");
  EXPECT_TRUE(t3.commit());
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 1, "x2")), status::ok);
  EXPECT_EQ(t2.commit(), GetParam() == isolation::snapshot);
}

TEST_P(anomalies, disjoint_read_write_transactions_all_commit) {
  // No dependency cycle, so the safety net must let every one through.
  transaction t1 = db.begin(), t2 = db.begin(), reader = db.begin();
  EXPECT_EQ(get(t1, tab, 1), "x0");
  EXPECT_EQ(get(t2, tab, 2), "y0");
  EXPECT_EQ(get(reader, tab, 1) + get(reader, tab, 2), "x0y0");
  EXPECT_EQ(sync_wait(t1.put<P>(tab, 1, "x1")), status::ok);
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 2, "y2")), status::ok);
  EXPECT_TRUE(t1.commit());
  EXPECT_TRUE(reader.commit());  // it precedes both writers
  EXPECT_TRUE(t2.commit());
  transaction t3 = db.begin();
  EXPECT_EQ(get(t3, tab, 1) + get(t3, tab, 2), "x1y2");
  EXPECT_TRUE(t3.commit());
}

// Doctors on call: pair i is (2i, 2i+1), both 1 at the start. A transaction
// reads the pair and, if both are on call, takes one off. Run interleaved,
// with a suspension between the reads and the write, SI lets two
// transactions take both off; SSN must keep at least one on call.
template <class Policy>
task<bool> go_off_call(engine& db, table& doctors, std::uint64_t pair, std::uint64_t which) {
  transaction t = db.begin();
  const auto a = co_await t.get<Policy>(doctors, 2 * pair);
  const auto b = co_await t.get<Policy>(doctors, 2 * pair + 1);
  static const char here = 0;
  co_await prefetch<Policy>(&here, 1, true);  // let the others in
  if (*a == "1" && *b == "1") {
    if (co_await t.put<Policy>(doctors, 2 * pair + which, "0") != status::ok) co_return false;
  }
  co_return t.commit();
}

std::size_t pairs_off_call(engine& db, const table& doctors, std::uint64_t pairs) {
  transaction t = db.begin();
  std::size_t off = 0;
  for (std::uint64_t p = 0; p < pairs; ++p) off += get(t, doctors, 2 * p) + get(t, doctors, 2 * p + 1) == "00";
  return off;
}

TEST_P(transactions, write_skew_under_interleaving) {
  constexpr std::uint64_t pairs = 64;
  engine db(GetParam());
  table& doctors = db.create_table("doctors", 2 * pairs);
  {
    transaction t = db.begin();
    for (std::uint64_t k = 0; k < 2 * pairs; ++k) ASSERT_EQ(sync_wait(t.insert<P>(doctors, k, "1")), status::ok);
    ASSERT_TRUE(t.commit());
  }
  // Two transactions per pair, one taking each doctor off, side by side.
  std::size_t committed = 0;
  interleaved_scheduler{8}.run(
      2 * pairs,
      [&](auto policy, std::size_t i) { return go_off_call<decltype(policy)>(db, doctors, i / 2, i % 2); },
      [&](std::size_t, bool ok) { committed += ok; });
  const std::size_t off = pairs_off_call(db, doctors, pairs);
  if (GetParam() == isolation::snapshot) {
    EXPECT_EQ(off, pairs);  // every pair's two transactions overlapped
  } else {
    EXPECT_EQ(off, 0u);
    EXPECT_EQ(committed, pairs);  // exactly one of each pair gets through
  }
}

TEST(transactions, serializable_doctors_on_two_threads) {
  constexpr std::uint64_t pairs = 16;
  engine db(isolation::serializable);
  table& doctors = db.create_table("doctors", 2 * pairs);
  for (int round = 0; round < 20; ++round) {
    {
      transaction t = db.begin();
      for (std::uint64_t k = 0; k < 2 * pairs; ++k) {
        const status s = round == 0 ? sync_wait(t.insert<P>(doctors, k, "1")) : sync_wait(t.put<P>(doctors, k, "1"));
        ASSERT_EQ(s, status::ok);
      }
      ASSERT_TRUE(t.commit());
    }
    std::vector<std::thread> workers;
    for (int w = 0; w < 2; ++w) {
      workers.emplace_back([&, w] {
        participant& me = db.join();
        std::mt19937_64 rng(round * 2 + w);
        std::vector<std::uint64_t> pick(4 * pairs);
        for (auto& p : pick) p = rng() % pairs;
        epoch_guard batch = db.enter(me);
        batched_scheduler{8}.run(
            pick.size(),
            [&](auto policy, std::size_t i) { return go_off_call<decltype(policy)>(db, doctors, pick[i], (i + w) % 2); },
            [](std::size_t, bool) {});
      });
    }
    for (auto& w : workers) w.join();
    ASSERT_EQ(pairs_off_call(db, doctors, pairs), 0u) << "round " << round;
  }
}

TEST_P(anomalies, an_aborted_insert_leaves_nothing) {
  transaction t1 = db.begin();
  EXPECT_EQ(sync_wait(t1.insert<P>(tab, 3, "z")), status::ok);
  EXPECT_EQ(get(t1, tab, 3), "z");
  t1.abort();
  transaction t2 = db.begin();
  EXPECT_EQ(get(t2, tab, 3), "<none>");
  EXPECT_EQ(sync_wait(t2.insert<P>(tab, 3, "z2")), status::ok);
  EXPECT_TRUE(t2.commit());
}

INSTANTIATE_TEST_SUITE_P(levels, anomalies, both_levels, level_name);

std::string encode(std::int64_t x) { return std::string(reinterpret_cast<const char*>(&x), sizeof x); }
std::int64_t decode(std::string_view s) {
  std::int64_t x = 0;
  std::memcpy(&x, s.data(), sizeof x);
  return x;
}

// Moves `amount` from one account to another; false if it conflicted. With
// Nested, through the nested forms of the operations.
enum class reads { flat, nested, multi_key };

template <class Policy, reads Reads = reads::flat>
task<bool> transfer(engine& db, table& accounts, std::uint64_t from, std::uint64_t to, std::int64_t amount) {
  constexpr bool Nested = Reads == reads::nested;
  transaction t = db.begin();
  std::optional<std::string_view> a, b;
  if constexpr (Reads == reads::multi_key) {
    const std::uint64_t both[] = {from, to};
    t.multi_get(accounts, both, [&](std::size_t i, std::optional<std::string_view> v) { (i == 0 ? a : b) = v; });
  } else {
    a = Nested ? co_await t.get_nested<Policy>(accounts, from) : co_await t.get<Policy>(accounts, from);
    b = Nested ? co_await t.get_nested<Policy>(accounts, to) : co_await t.get<Policy>(accounts, to);
  }
  if (!a || !b) co_return false;
  const std::int64_t new_a = decode(*a) - amount, new_b = decode(*b) + amount;
  const status s1 = Nested ? co_await t.put_nested<Policy>(accounts, from, encode(new_a))
                           : co_await t.put<Policy>(accounts, from, encode(new_a));
  if (s1 != status::ok) co_return false;
  const status s2 = Nested ? co_await t.put_nested<Policy>(accounts, to, encode(new_b))
                           : co_await t.put<Policy>(accounts, to, encode(new_b));
  if (s2 != status::ok) co_return false;
  co_return t.commit();
}

template <class Policy>
task<std::int64_t> audit(engine& db, const table& accounts) {
  transaction t = db.begin();
  std::vector<std::pair<std::uint64_t, std::string_view>> all;
  co_await t.scan<Policy>(accounts, 0, ~std::size_t{0}, all);
  std::int64_t total = 0;
  for (const auto& [k, v] : all) total += decode(v);
  t.commit();
  co_return total;
}

TEST_P(transactions, concurrent_bank_transfers_keep_the_total) {
  constexpr std::uint64_t accounts_count = 64;
  constexpr std::int64_t start = 1000;
  engine db(GetParam());
  table& accounts = db.create_table("accounts", accounts_count);
  {
    transaction t = db.begin();
    for (std::uint64_t a = 0; a < accounts_count; ++a) {
      ASSERT_EQ(sync_wait(t.insert<P>(accounts, a, encode(start))), status::ok);
    }
    ASSERT_TRUE(t.commit());
  }
  std::atomic<std::size_t> committed{0}, bad_audits{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 2; ++w) {
    workers.emplace_back([&, w] {
      std::mt19937_64 rng(w);
      std::vector<std::array<std::uint64_t, 3>> batch(64);
      for (int round = 0; round < 56; ++round) {
        for (auto& b : batch) b = {rng() % accounts_count, rng() % accounts_count, rng() % 50};
        const auto make_with = [&](auto how) {
          return [&](auto policy, std::size_t i) {
            const auto& b = batch[i];
            return transfer<decltype(policy), decltype(how)::value>(
                db, accounts, b[0], b[0] == b[1] ? (b[1] + 1) % accounts_count : b[1], static_cast<std::int64_t>(b[2]));
          };
        };
        const auto flat = make_with(std::integral_constant<reads, reads::flat>{});
        const auto nested = make_with(std::integral_constant<reads, reads::nested>{});
        const auto multi_key = make_with(std::integral_constant<reads, reads::multi_key>{});
        const auto sink = [&](std::size_t, bool ok) { committed += ok ? 1 : 0; };
        // Every mode of execution, and batch sizes from 1 to 16.
        constexpr std::size_t sizes[] = {1, 2, 8, 16};
        const std::size_t g = sizes[round / 7 % 4];
        switch (round % 7) {
          case 0: batched_scheduler{g}.run(batch.size(), flat, sink); break;
          case 1: batched_scheduler{g}.run(batch.size(), nested, sink); break;
          case 2: interleaved_scheduler{g}.run(batch.size(), flat, sink); break;
          case 3: sequential_scheduler{}.run(batch.size(), flat, sink); break;
          case 4: basic_sequential_scheduler<prefetch_policy>{}.run(batch.size(), flat, sink); break;
          case 5: basic_sequential_scheduler<interleaved_policy>{}.run(batch.size(), nested, sink); break;
          case 6: sequential_scheduler{}.run(batch.size(), multi_key, sink); break;
        }
        if (sync_wait(audit<P>(db, accounts)) != start * static_cast<std::int64_t>(accounts_count)) ++bad_audits;
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(bad_audits.load(), 0u);
  EXPECT_GT(committed.load(), 0u);
  EXPECT_EQ(sync_wait(audit<sequential_policy>(db, accounts)), start * static_cast<std::int64_t>(accounts_count));
}

}  // namespace
}  // namespace weave::txn
