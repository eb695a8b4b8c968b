// The transaction engine against oracles: random transactions against a
// std::map (committed ones only), the anomaly catalogue of snapshot
// isolation and of the serializable level, and concurrent bank transfers
// whose total never changes.

#include "weave/txn/engine.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <barrier>
#include <functional>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "bench/workload/nested_ops.hpp"
#include "bench/workload/prefetch_policy.hpp"
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
// should see; keys made by key_of(0..299). Values are 2 to 4 bytes: with
// inline_bytes 3, some records' first versions are made in their slots and
// some in the pool.
template <class KeyOf>
void match_a_map(isolation level, key_kind kind, KeyOf key_of, std::size_t inline_bytes = 0) {
  using key_type = decltype(key_of(0));
  engine db(level);
  table& tab = db.create_table("t", kind, 0, inline_bytes);
  std::map<key_type, std::string> oracle;
  std::mt19937_64 rng(21);
  for (int round = 0; round < 2000; ++round) {
    transaction t = db.begin();
    std::map<key_type, std::string> mine = oracle;  // what this transaction should see
    for (int op = 0; op < 6; ++op) {
      const key_type key = key_of(rng() % 300);
      const std::string value = "v" + std::to_string(rng() % 1000);
      const auto it = mine.find(key);
      switch (rng() % 5) {
        case 0: {
          const auto got = round % 3 == 0   ? sync_wait(t.get<P>(tab, key))
                           : round % 3 == 1 ? sync_wait(bench::get_nested<P>(t, tab, key))
                                            : sync_wait(t.get<sequential_policy>(tab, key));
          ASSERT_EQ(got.has_value(), it != mine.end()) << "key " << key;
          if (got) {
            ASSERT_EQ(std::string(*got), it->second);
          }
          break;
        }
        case 1: {
          const status s =
              round % 2 ? sync_wait(t.put<P>(tab, key, value)) : sync_wait(bench::put_nested<bench::prefetch_policy>(t, tab, key, value));
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
        case 4: {  // a read-modify-write: find, then put what was found
          const auto found = round % 3 == 0   ? sync_wait(t.find<P>(tab, key))
                             : round % 3 == 1 ? sync_wait(bench::find_nested<P>(t, tab, key))
                                              : sync_wait(t.find<sequential_policy>(tab, key));
          ASSERT_EQ(found.has_value(), it != mine.end()) << "key " << key;
          if (found) {
            ASSERT_EQ(std::string(found->value), it->second);
            ASSERT_EQ(t.put(tab, *found, value), status::ok);
            it->second = value;
          }
          break;
        }
      }
    }
    if (round % 5 == 0) {
      t.abort();
    } else {
      ASSERT_EQ(t.commit(), commit_status::committed);
      oracle = std::move(mine);
    }
  }
  // A final scan sees exactly the committed records.
  transaction t = db.begin();
  std::vector<std::pair<scan_key_t<key_type>, std::string_view>> all;
  sync_wait(t.scan<P>(tab, key_type{}, 1000, all));
  ASSERT_EQ(all.size(), oracle.size());
  auto it = oracle.begin();
  for (const auto& [k, v] : all) {
    if constexpr (std::is_same_v<key_type, std::string>) {
      EXPECT_EQ(k.str(), it->first);
    } else {
      EXPECT_EQ(k, it->first);
    }
    EXPECT_EQ(std::string(v), it->second);
    ++it;
  }
}

TEST_P(transactions, match_a_map_through_random_commits_and_aborts) {
  match_a_map(GetParam(), key_kind::integer, [](std::uint64_t n) { return n; });
}

// Keys of 0 to 47 bytes, many sharing prefixes or being prefixes of others.
std::string byte_string_key(std::uint64_t n) {
  std::string k(n % 48, 'k');
  if (!k.empty()) k.back() = static_cast<char>('a' + n / 48);
  return k;
}

TEST_P(transactions, match_a_map_with_byte_string_keys) {
  match_a_map(GetParam(), key_kind::bytes, byte_string_key);
}

TEST_P(transactions, match_a_map_with_first_versions_in_slots) {
  match_a_map(
      GetParam(), key_kind::integer, [](std::uint64_t n) { return n; }, 3);
  match_a_map(GetParam(), key_kind::bytes, byte_string_key, 3);
}

TEST(tables, slots_that_hold_versions_are_whole_lines_and_bounded) {
  engine db;
  const table& pointers = db.create_table("pointers");
  EXPECT_EQ(pointers.slot_bytes(), sizeof(version*));
  EXPECT_EQ(pointers.capacity(), table::max_records);
  const table& small = db.create_table("small", key_kind::integer, 0, 8);
  EXPECT_EQ(small.slot_bytes(), 64u);
  EXPECT_EQ(small.capacity(), std::size_t{1} << 29);
  const table& wide = db.create_table("wide", key_kind::integer, 0, table::max_inline_value_bytes);
  EXPECT_EQ(wide.slot_bytes(), 1024u);
  EXPECT_EQ(wide.capacity(), std::size_t{1} << 25);
  EXPECT_THROW(db.create_table("too_wide", key_kind::integer, 0, table::max_inline_value_bytes + 1),
               std::invalid_argument);
  // A value too long for the slot goes to the pool; either reads back.
  table& t = db.create_table("t", key_kind::integer, 0, 8);
  transaction w = db.begin();
  ASSERT_EQ(sync_wait(w.insert<P>(t, 1, "12345678")), status::ok);
  ASSERT_EQ(sync_wait(w.insert<P>(t, 2, "123456789")), status::ok);
  ASSERT_EQ(w.commit(), commit_status::committed);
  EXPECT_TRUE(t.in_slot(0, t.head(0).load()));
  EXPECT_FALSE(t.in_slot(1, t.head(1).load()));
  transaction r = db.begin();
  EXPECT_EQ(get(r, t, 1), "12345678");
  EXPECT_EQ(get(r, t, 2), "123456789");
  EXPECT_EQ(sync_wait(r.get<sequential_policy>(t, 1)), std::optional<std::string_view>("12345678"));
}

TEST(transactions, refuse_keys_of_the_other_kind) {
  engine db;
  table& numbers = db.create_table("numbers");
  table& names = db.create_table("names", key_kind::bytes);
  transaction t = db.begin();
  EXPECT_THROW(sync_wait(t.insert<P>(numbers, "one", "1")), std::invalid_argument);
  EXPECT_THROW(sync_wait(t.insert<P>(names, 1, "one")), std::invalid_argument);
  EXPECT_THROW(sync_wait(t.insert<P>(names, std::string(48, 'x'), "long")), std::length_error);
  EXPECT_EQ(sync_wait(t.insert<P>(names, std::string(47, 'x'), "longest")), status::ok);
  EXPECT_EQ(sync_wait(t.insert<P>(names, "", "empty")), status::ok);
  EXPECT_EQ(sync_wait(t.get<P>(names, std::string(47, 'x'))).value_or("?"), "longest");
  EXPECT_EQ(sync_wait(t.get<P>(names, "")).value_or("?"), "empty");
  // A negative key would wrap to a huge one.
  EXPECT_THROW(sync_wait(t.insert<P>(numbers, -1, "minus")), std::invalid_argument);
  EXPECT_THROW(sync_wait(t.get<P>(numbers, std::int64_t{-5})), std::invalid_argument);
  EXPECT_EQ(sync_wait(t.insert<P>(numbers, std::int16_t{7}, "seven")), status::ok);
  EXPECT_EQ(sync_wait(t.get<P>(numbers, std::uint64_t{7})).value_or("?"), "seven");
  static_assert(record_key<int> && record_key<std::uint64_t> && record_key<std::string>);
  static_assert(!record_key<bool> && !record_key<char> && !record_key<unsigned char> && !record_key<double>);
  EXPECT_EQ(t.commit(), commit_status::committed);
}

TEST(transactions, refuse_another_engines_tables_and_values_past_the_limit) {
  engine db, other;
  table& mine = db.create_table("t");
  table& theirs = other.create_table("t");
  transaction t = db.begin();
  // Another engine's versions carry its clock's stamps, and its log and
  // catalog would not name the table.
  EXPECT_THROW(sync_wait(t.insert<P>(theirs, 1, "x")), std::invalid_argument);
  EXPECT_THROW(sync_wait(t.put<P>(theirs, 1, "x")), std::invalid_argument);
  EXPECT_THROW(sync_wait(t.remove<P>(theirs, 1)), std::invalid_argument);
  EXPECT_THROW(sync_wait(t.get<P>(theirs, 1)), std::invalid_argument);
  std::vector<std::pair<std::uint64_t, std::string_view>> out;
  EXPECT_THROW(sync_wait(t.scan<P>(theirs, 0, 10, out)), std::invalid_argument);
  // A value past the limit is refused before anything is written; a length
  // is all the check reads.
  const std::string_view too_long("", table::max_value_bytes + 1);
  EXPECT_THROW(sync_wait(t.insert<P>(mine, 1, too_long)), std::length_error);
  EXPECT_EQ(sync_wait(t.insert<P>(mine, 1, "x")), status::ok);
  EXPECT_THROW(sync_wait(t.put<P>(mine, 1, too_long)), std::length_error);
  EXPECT_EQ(t.commit(), commit_status::committed);
  transaction r = db.begin();
  EXPECT_EQ(sync_wait(r.get<P>(mine, 1)).value_or("?"), "x");
  EXPECT_EQ(r.commit(), commit_status::committed);
  transaction o = other.begin();
  EXPECT_FALSE(sync_wait(o.get<P>(theirs, 1)).has_value());
  EXPECT_EQ(o.commit(), commit_status::committed);
  // Nothing to wait for without a log.
  EXPECT_EQ(db.acknowledgement(7), commit_status::committed);
  EXPECT_EQ(db.wait_acknowledgement(7), commit_status::committed);
}

TEST(transactions, refuse_operations_once_finished) {
  engine db;
  table& tab = db.create_table("t");
  {
    transaction w = db.begin();
    EXPECT_EQ(sync_wait(w.insert<P>(tab, 1, "x")), status::ok);
    EXPECT_EQ(w.commit(), commit_status::committed);
  }
  const auto refused = [&](transaction& t) {
    EXPECT_THROW(sync_wait(t.get<P>(tab, 1)), std::logic_error);
    EXPECT_THROW(sync_wait(t.find<P>(tab, 1)), std::logic_error);
    EXPECT_THROW(sync_wait(t.put<P>(tab, 1, "y")), std::logic_error);
    EXPECT_THROW(sync_wait(t.insert<P>(tab, 2, "y")), std::logic_error);
    EXPECT_THROW(sync_wait(t.remove<P>(tab, 1)), std::logic_error);
    std::vector<std::pair<std::uint64_t, std::string_view>> out;
    EXPECT_THROW(sync_wait(t.scan<P>(tab, 0, 10, out)), std::logic_error);
    EXPECT_TRUE(out.empty());
  };
  transaction committed = db.begin();
  const auto found = sync_wait(committed.find<P>(tab, 1));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(committed.commit(), commit_status::committed);
  refused(committed);
  EXPECT_THROW(committed.put(tab, *found, "y"), std::logic_error);
  EXPECT_THROW(committed.commit(), std::logic_error);
  transaction aborted = db.begin();
  aborted.abort();
  refused(aborted);
  transaction from = db.begin();
  transaction to(std::move(from));
  refused(from);
  EXPECT_EQ(to.commit(), commit_status::committed);
  // Nothing the refused operations tried was written.
  transaction r = db.begin();
  EXPECT_EQ(sync_wait(r.get<P>(tab, 1)).value_or("?"), "x");
  EXPECT_FALSE(sync_wait(r.get<P>(tab, 2)).has_value());
  EXPECT_EQ(r.commit(), commit_status::committed);
}

TEST(tables, names_are_one_line_and_unique_in_every_engine) {
  // The same names as a durable engine's catalog takes, so that code tried
  // in memory does not fail once it keeps a log.
  engine db;
  EXPECT_THROW(db.create_table(""), std::invalid_argument);
  EXPECT_THROW(db.create_table("a\nb"), std::invalid_argument);
  table& t = db.create_table("a b");
  EXPECT_THROW(db.create_table("a b"), std::invalid_argument);
  EXPECT_EQ(db.find_table("a b"), &t);
  EXPECT_EQ(db.tables().size(), 1u);
}

// Records x (key 1) and y (key 2), under each isolation level.
struct anomalies : ::testing::TestWithParam<isolation> {
  engine db{GetParam()};
  table& tab = db.create_table("t");
  void SetUp() override {
    transaction t = db.begin();
    ASSERT_EQ(sync_wait(t.insert<P>(tab, 1, "x0")), status::ok);
    ASSERT_EQ(sync_wait(t.insert<P>(tab, 2, "y0")), status::ok);
    ASSERT_EQ(t.commit(), commit_status::committed);
  }
};

TEST_P(anomalies, prevents_dirty_write) {
  transaction t1 = db.begin(), t2 = db.begin();
  EXPECT_EQ(sync_wait(t1.put<P>(tab, 1, "x1")), status::ok);
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 1, "x2")), status::conflict);
  EXPECT_EQ(t1.commit(), commit_status::committed);
  EXPECT_EQ(t2.commit(), commit_status::write_conflict);
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
  EXPECT_EQ(t1.commit(), commit_status::committed);
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 1, "x0+2")), status::conflict);
  EXPECT_EQ(t2.commit(), commit_status::write_conflict);
}

// The same through find and a put of what it found, which reads the chain
// no more: the put itself must still refuse the lost update.
TEST_P(anomalies, prevents_lost_update_through_a_found_record) {
  transaction t1 = db.begin(), t2 = db.begin();
  const auto f1 = sync_wait(t1.find<P>(tab, 1));
  const auto f2 = sync_wait(t2.find<sequential_policy>(tab, 1));
  ASSERT_TRUE(f1 && f2);
  EXPECT_EQ(f1->oid, f2->oid);
  EXPECT_EQ(std::string(f2->value), "x0");
  EXPECT_EQ(t1.put(tab, *f1, "x0+1"), status::ok);
  EXPECT_EQ(t2.put(tab, *f2, "x0+2"), status::conflict);  // t1's write is pending
  EXPECT_EQ(t1.commit(), commit_status::committed);
  EXPECT_EQ(t2.commit(), commit_status::write_conflict);
  // A record deleted after the finder's snapshot is a conflict too.
  transaction t3 = db.begin(), t4 = db.begin();
  const auto f3 = sync_wait(t3.find<P>(tab, 1));
  ASSERT_TRUE(f3);
  EXPECT_EQ(sync_wait(t4.remove<P>(tab, 1)), status::ok);
  EXPECT_EQ(t4.commit(), commit_status::committed);
  EXPECT_EQ(t3.put(tab, *f3, "late"), status::conflict);
  // Its own write found again is still its to overwrite.
  transaction t5 = db.begin();
  EXPECT_EQ(sync_wait(t5.insert<P>(tab, 1, "back")), status::ok);
  const auto f5 = sync_wait(t5.find<P>(tab, 1));
  ASSERT_TRUE(f5);
  EXPECT_EQ(std::string(f5->value), "back");
  EXPECT_EQ(t5.put(tab, *f5, "back again"), status::ok);
  EXPECT_EQ(t5.commit(), commit_status::committed);
  transaction t6 = db.begin();
  EXPECT_EQ(get(t6, tab, 1), "back again");
  // Found, then deleted by the same transaction: not found, as by key,
  // and the record stays deleted.
  const auto f6 = sync_wait(t6.find<P>(tab, 1));
  ASSERT_TRUE(f6);
  EXPECT_EQ(sync_wait(t6.remove<P>(tab, 1)), status::ok);
  EXPECT_EQ(t6.put(tab, *f6, "risen"), status::not_found);
  EXPECT_EQ(get(t6, tab, 1), "<none>");
  // A record of another table is refused, not written into this one.
  table& other = db.create_table("other");
  EXPECT_THROW(t6.put(other, *f6, "elsewhere"), std::invalid_argument);
}

TEST_P(anomalies, prevents_fuzzy_read) {
  transaction t1 = db.begin();
  EXPECT_EQ(get(t1, tab, 1), "x0");
  transaction t2 = db.begin();
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 1, "x2")), status::ok);
  EXPECT_EQ(t2.commit(), commit_status::committed);
  EXPECT_EQ(get(t1, tab, 1), "x0");
}

TEST_P(anomalies, prevents_read_skew) {
  transaction t1 = db.begin();
  EXPECT_EQ(get(t1, tab, 1), "x0");
  transaction t2 = db.begin();
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 1, "x2")), status::ok);
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 2, "y2")), status::ok);
  EXPECT_EQ(t2.commit(), commit_status::committed);
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
  EXPECT_EQ(t1.commit(), commit_status::committed);
  EXPECT_EQ(t2.commit(), GetParam() == isolation::snapshot ? commit_status::committed : commit_status::serialization_failure);
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
  EXPECT_EQ(t1.commit(), commit_status::committed);
  transaction t3 = db.begin();
  EXPECT_EQ(get(t3, tab, 1) + get(t3, tab, 2), "x0y1");
  EXPECT_EQ(t3.commit(), commit_status::committed);
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 1, "x2")), status::ok);
  EXPECT_EQ(t2.commit(), GetParam() == isolation::snapshot ? commit_status::committed : commit_status::serialization_failure);
}

TEST_P(anomalies, disjoint_read_write_transactions_all_commit) {
  // No dependency cycle, so the safety net must let every one through.
  transaction t1 = db.begin(), t2 = db.begin(), reader = db.begin();
  EXPECT_EQ(get(t1, tab, 1), "x0");
  EXPECT_EQ(get(t2, tab, 2), "y0");
  EXPECT_EQ(get(reader, tab, 1) + get(reader, tab, 2), "x0y0");
  EXPECT_EQ(sync_wait(t1.put<P>(tab, 1, "x1")), status::ok);
  EXPECT_EQ(sync_wait(t2.put<P>(tab, 2, "y2")), status::ok);
  EXPECT_EQ(t1.commit(), commit_status::committed);
  EXPECT_EQ(reader.commit(), commit_status::committed);  // it precedes both writers
  EXPECT_EQ(t2.commit(), commit_status::committed);
  transaction t3 = db.begin();
  EXPECT_EQ(get(t3, tab, 1) + get(t3, tab, 2), "x1y2");
  EXPECT_EQ(t3.commit(), commit_status::committed);
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
  co_return t.commit() == commit_status::committed;
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
  table& doctors = db.create_table("doctors");
  {
    transaction t = db.begin();
    for (std::uint64_t k = 0; k < 2 * pairs; ++k) ASSERT_EQ(sync_wait(t.insert<P>(doctors, k, "1")), status::ok);
    ASSERT_EQ(t.commit(), commit_status::committed);
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
  table& doctors = db.create_table("doctors");
  for (int round = 0; round < 20; ++round) {
    {
      transaction t = db.begin();
      for (std::uint64_t k = 0; k < 2 * pairs; ++k) {
        const status s = round == 0 ? sync_wait(t.insert<P>(doctors, k, "1")) : sync_wait(t.put<P>(doctors, k, "1"));
        ASSERT_EQ(s, status::ok);
      }
      ASSERT_EQ(t.commit(), commit_status::committed);
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
  EXPECT_EQ(t2.commit(), commit_status::committed);
}

TEST_P(anomalies, an_insert_after_the_reader_committed_is_ordered_after_it) {
  // t1 finds key 3 absent and overwrites x, which t2 has read; t1 commits.
  // Then t2 inserts key 3. t2 must precede t1 (it missed x1) and follow it
  // (t1 missed key 3): the leaf's mark tells t2 so.
  transaction t1 = db.begin(), t2 = db.begin();
  EXPECT_EQ(get(t1, tab, 3), "<none>");
  EXPECT_EQ(get(t2, tab, 1), "x0");
  EXPECT_EQ(sync_wait(t1.put<P>(tab, 1, "x1")), status::ok);
  EXPECT_EQ(t1.commit(), commit_status::committed);
  EXPECT_EQ(sync_wait(t2.insert<P>(tab, 3, "z")), status::ok);
  EXPECT_EQ(t2.commit(), GetParam() == isolation::snapshot ? commit_status::committed
                                                           : commit_status::serialization_failure);
}

// The key is in the index, its insert pending: the reader reads the absence
// beneath the inserter's version. t1 then overwrites x, which t2 read.
TEST_P(anomalies, a_pending_insert_read_as_absent_is_ordered_after_the_reader) {
  for (bool reader_first : {true, false}) {
    const std::uint64_t key = reader_first ? 3 : 4;
    transaction t1 = db.begin(), t2 = db.begin();
    EXPECT_EQ(sync_wait(t2.insert<P>(tab, key, "z")), status::ok);
    EXPECT_EQ(get(t1, tab, key), "<none>");
    EXPECT_EQ(get(t2, tab, 1), reader_first ? "x0" : "x1");
    EXPECT_EQ(sync_wait(t1.put<P>(tab, 1, reader_first ? "x1" : "x2")), status::ok);
    const bool si = GetParam() == isolation::snapshot;
    if (reader_first) {
      EXPECT_EQ(t1.commit(), commit_status::committed);
      EXPECT_EQ(t2.commit(), si ? commit_status::committed : commit_status::serialization_failure);
    } else {
      EXPECT_EQ(t2.commit(), commit_status::committed);
      EXPECT_EQ(t1.commit(), si ? commit_status::committed : commit_status::serialization_failure);
    }
  }
}

TEST_P(anomalies, an_insert_after_the_reader_committed_without_a_cycle_commits) {
  // The same without t2 reading x: t1 then t2 is a serial order.
  transaction t1 = db.begin(), t2 = db.begin();
  EXPECT_EQ(get(t1, tab, 3), "<none>");
  EXPECT_EQ(sync_wait(t1.put<P>(tab, 1, "x1")), status::ok);
  EXPECT_EQ(t1.commit(), commit_status::committed);
  EXPECT_EQ(sync_wait(t2.insert<P>(tab, 3, "z")), status::ok);
  EXPECT_EQ(t2.commit(), commit_status::committed);
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
    a = Nested ? co_await bench::get_nested<Policy>(t, accounts, from) : co_await t.get<Policy>(accounts, from);
    b = Nested ? co_await bench::get_nested<Policy>(t, accounts, to) : co_await t.get<Policy>(accounts, to);
  }
  if (!a || !b) co_return false;
  const std::int64_t new_a = decode(*a) - amount, new_b = decode(*b) + amount;
  const status s1 = Nested ? co_await bench::put_nested<Policy>(t, accounts, from, encode(new_a))
                           : co_await t.put<Policy>(accounts, from, encode(new_a));
  if (s1 != status::ok) co_return false;
  const status s2 = Nested ? co_await bench::put_nested<Policy>(t, accounts, to, encode(new_b))
                           : co_await t.put<Policy>(accounts, to, encode(new_b));
  if (s2 != status::ok) co_return false;
  co_return t.commit() == commit_status::committed;
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
  table& accounts = db.create_table("accounts");
  {
    transaction t = db.begin();
    for (std::uint64_t a = 0; a < accounts_count; ++a) {
      ASSERT_EQ(sync_wait(t.insert<P>(accounts, a, encode(start))), status::ok);
    }
    ASSERT_EQ(t.commit(), commit_status::committed);
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
          case 4: basic_sequential_scheduler<bench::prefetch_policy>{}.run(batch.size(), flat, sink); break;
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

namespace weave::txn {
namespace {

// Two transactions that each read a range or an absent key, then insert
// into what the other read: no serial order explains both committing. A
// script's steps run in lockstep with the other's, either as coroutines
// interleaved on one thread or on two threads with a barrier between steps.
struct script {
  // step 0: read (scan or get); step 1: insert. Then commit.
  std::function<task<void>(transaction&)> read;
  std::function<task<status>(transaction&)> insert;
};

template <class Policy>
task<commit_status> run_script(engine& db, const script& s, std::function<void()> between) {
  static const char here = 0;
  transaction t = db.begin();
  co_await s.read(t);
  between();
  co_await prefetch<Policy>(&here, 1, true);  // the other reads too
  const status inserted = co_await s.insert(t);
  between();
  co_await prefetch<Policy>(&here, 1, true);  // the other inserts too
  if (inserted != status::ok) {
    t.abort();
    co_return commit_status::write_conflict;
  }
  co_return t.commit();
}

std::array<commit_status, 2> run_side_by_side(engine& db, const script& a, const script& b, bool two_threads) {
  std::array<commit_status, 2> result{};
  const script* scripts[] = {&a, &b};
  if (!two_threads) {
    interleaved_scheduler{2}.run(
        2, [&](auto policy, std::size_t i) { return run_script<decltype(policy)>(db, *scripts[i], [] {}); },
        [&](std::size_t i, commit_status s) { result[i] = s; });
    return result;
  }
  std::barrier steps(2);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] {
      result[i] = sync_wait(run_script<interleaved_policy>(db, *scripts[i], [&] { steps.arrive_and_wait(); }));
    });
  }
  for (auto& t : threads) t.join();
  return result;
}

std::int64_t number(std::string_view v) { return std::stoll(std::string(v)); }

struct phantoms : ::testing::TestWithParam<std::tuple<isolation, bool>> {
  isolation level() const { return std::get<0>(GetParam()); }
  bool two_threads() const { return std::get<1>(GetParam()); }
  engine db{level()};
  table& tab = db.create_table("t");
  void SetUp() override {
    transaction t = db.begin();
    for (std::uint64_t k : {1, 2, 5, 7}) ASSERT_EQ(sync_wait(t.insert<P>(tab, k, std::to_string(k))), status::ok);
    ASSERT_EQ(t.commit(), commit_status::committed);
  }
  // Finds `read` absent, then inserts `key`.
  script get_then_insert(std::uint64_t read, std::uint64_t key) {
    return script{[this, read](transaction& t) -> task<void> {
                    EXPECT_FALSE((co_await t.get<interleaved_policy>(tab, read)).has_value());
                  },
                  [this, key](transaction& t) { return t.insert<interleaved_policy>(tab, key, "new"); }};
  }
  // Under SI both commit; serializable lets at most one through.
  void expect_outcome(const std::array<commit_status, 2>& r) {
    const int committed = (r[0] == commit_status::committed) + (r[1] == commit_status::committed);
    if (level() == isolation::snapshot) {
      EXPECT_EQ(committed, 2);
    } else {
      EXPECT_LE(committed, 1);
      for (commit_status s : r) EXPECT_NE(s, commit_status::write_conflict);  // no write met another
    }
  }
};

// Both scan the table, find no value divisible by 3, and insert one.
TEST_P(phantoms, write_skew_through_a_predicate) {
  const auto scan_then_insert = [&](std::uint64_t key, std::string value) {
    return script{[&](transaction& t) -> task<void> {
                    std::vector<std::pair<std::uint64_t, std::string_view>> rows;
                    co_await t.scan<interleaved_policy>(tab, std::uint64_t{0}, 100, rows);
                    for (const auto& [k, v] : rows) EXPECT_NE(number(v) % 3, 0) << k;
                  },
                  [&, key, value](transaction& t) { return t.insert<interleaved_policy>(tab, key, value); }};
  };
  expect_outcome(run_side_by_side(db, scan_then_insert(3, "30"), scan_then_insert(4, "42"), two_threads()));
  // What committed is what some serial order gives: at most one multiple of 3.
  transaction t = db.begin();
  std::vector<std::pair<std::uint64_t, std::string_view>> rows;
  sync_wait(t.scan<P>(tab, std::uint64_t{0}, 100, rows));
  int multiples = 0;
  for (const auto& [k, v] : rows) multiples += number(v) % 3 == 0;
  if (level() == isolation::snapshot) {
    EXPECT_EQ(multiples, 2);
  } else {
    EXPECT_LE(multiples, 1);
  }
}

// Each reads a key the other will insert and finds it absent.
TEST_P(phantoms, write_skew_through_absent_keys) {
  expect_outcome(run_side_by_side(db, get_then_insert(3, 4), get_then_insert(4, 3), two_threads()));
}

// The same where the keys were inserted once and their inserts aborted: the
// index has them, with no committed version.
TEST_P(phantoms, write_skew_through_keys_whose_insert_aborted) {
  {
    transaction t = db.begin();
    ASSERT_EQ(sync_wait(t.insert<P>(tab, 3, "gone")), status::ok);
    ASSERT_EQ(sync_wait(t.insert<P>(tab, 4, "gone")), status::ok);
    t.abort();
  }
  expect_outcome(run_side_by_side(db, get_then_insert(3, 4), get_then_insert(4, 3), two_threads()));
}

// One sums a range and records the sum under key 1; the other reads key 1
// and inserts into the range: each misses the other's write.
TEST_P(phantoms, phantom_insert_into_a_scanned_range) {
  const script summer{[&](transaction& t) -> task<void> {
                        std::vector<std::pair<std::uint64_t, std::string_view>> rows;
                        co_await t.scan<interleaved_policy>(tab, std::uint64_t{2}, std::uint64_t{8}, 100, rows);
                        EXPECT_EQ(rows.size(), 3u);
                      },
                      [&](transaction& t) { return t.put<interleaved_policy>(tab, 1, "sum"); }};
  const script inserter{[&](transaction& t) -> task<void> {
                          EXPECT_EQ((co_await t.get<interleaved_policy>(tab, 1)).value_or("?"), "1");
                        },
                        [&](transaction& t) { return t.insert<interleaved_policy>(tab, 6, "61"); }};
  expect_outcome(run_side_by_side(db, summer, inserter, two_threads()));
}

INSTANTIATE_TEST_SUITE_P(levels, phantoms, ::testing::Combine(both_levels, ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<isolation, bool>>& p) {
                           return std::string(std::get<0>(p.param) == isolation::snapshot ? "si" : "ssn") +
                                  (std::get<1>(p.param) ? "_two_threads" : "_one_thread");
                         });

// Serial transactions never fail the checks, whatever they read and insert
// (a transaction's own inserts, and the splits they cause, are its own).
TEST(phantoms, a_transaction_alone_always_commits) {
  engine db(isolation::serializable);
  table& tab = db.create_table("t");
  std::mt19937_64 rng(5);
  for (int round = 0; round < 300; ++round) {
    transaction t = db.begin();
    std::vector<std::pair<std::uint64_t, std::string_view>> rows;
    sync_wait(t.scan<P>(tab, rng() % 2000, 50, rows));
    for (int i = 0; i < 20; ++i) {
      const std::uint64_t k = rng() % 2000;
      if (!sync_wait(t.get<P>(tab, k))) {
        EXPECT_EQ(sync_wait(t.insert<P>(tab, k, "v")), status::ok);
      }
    }
    ASSERT_EQ(t.commit(), commit_status::committed) << "round " << round;
  }
}

// A scan's end bound is inclusive and a limit still applies.
TEST(transactions, scan_takes_a_key_range) {
  engine db;
  table& tab = db.create_table("t");
  table& names = db.create_table("names", key_kind::bytes);
  transaction t = db.begin();
  for (std::uint64_t k = 0; k < 100; k += 2) ASSERT_EQ(sync_wait(t.insert<P>(tab, k, std::to_string(k))), status::ok);
  for (std::string k : {"ant", "bee", "cat", "cow", "dog"}) ASSERT_EQ(sync_wait(t.insert<P>(names, k, k)), status::ok);
  std::vector<std::pair<std::uint64_t, std::string_view>> rows;
  sync_wait(t.scan<P>(tab, std::uint64_t{11}, std::uint64_t{20}, 100, rows));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows.front().first, 12u);
  EXPECT_EQ(rows.back().first, 20u);
  rows.clear();
  sync_wait(t.scan<P>(tab, std::uint64_t{0}, std::uint64_t{99}, 3, rows));
  EXPECT_EQ(rows.size(), 3u);
  rows.clear();
  sync_wait(t.scan<sequential_policy>(tab, std::uint64_t{50}, std::uint64_t{40}, 100, rows));
  EXPECT_TRUE(rows.empty());
  std::vector<std::pair<byte_key, std::string_view>> named;
  sync_wait(t.scan<P>(names, std::string("b"), std::string("cow"), 100, named));
  ASSERT_EQ(named.size(), 3u);
  EXPECT_EQ(named.front().first.str(), "bee");
  EXPECT_EQ(named.back().first.str(), "cow");
  // A scan can start from a key an earlier one returned.
  std::vector<std::pair<byte_key, std::string_view>> after;
  sync_wait(t.scan<P>(names, named[1].first, 100, after));
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after.front().first, named[1].first);
  EXPECT_EQ(t.commit(), commit_status::committed);
}

}  // namespace
}  // namespace weave::txn

namespace weave::txn {
namespace {

// Tables have no capacity: millions of records go into one created with no
// hint, and every one of them reads back.
TEST(tables, grow_to_millions_of_records_with_no_hint) {
  engine db;
  table& tab = db.create_table("big");
  constexpr std::uint64_t records = 2'000'000;
  for (std::uint64_t first = 0; first < records; first += 100'000) {
    transaction t = db.begin();
    for (std::uint64_t k = first; k < first + 100'000; ++k) {
      ASSERT_EQ(sync_wait(t.insert<sequential_policy>(tab, k * 7919 % records, std::string_view(
                                                         reinterpret_cast<const char*>(&k), sizeof k))),
                status::ok);
    }
    ASSERT_EQ(t.commit(), commit_status::committed);
  }
  EXPECT_EQ(tab.records(), records);
  transaction t = db.begin();
  for (std::uint64_t k = 0; k < records; k += 997) {
    const auto v = sync_wait(t.get<P>(tab, k * 7919 % records));
    ASSERT_TRUE(v.has_value()) << k;
    std::uint64_t got = 0;
    std::memcpy(&got, v->data(), sizeof got);
    EXPECT_EQ(got, k);
  }
}

// A duplicate insert takes no slot, and an aborted insert keeps one for its
// key: a loop that would overflow any fixed capacity stays at one slot.
TEST_P(transactions, failed_inserts_take_no_slot) {
  engine db(GetParam());
  table& tab = db.create_table("t", key_kind::integer, 4);
  {
    transaction t = db.begin();
    ASSERT_EQ(sync_wait(t.insert<P>(tab, 1, "one")), status::ok);
    ASSERT_EQ(t.commit(), commit_status::committed);
  }
  for (int i = 0; i < 100'000; ++i) {
    transaction t = db.begin();
    ASSERT_EQ(sync_wait(t.insert<P>(tab, 1, "again")), status::duplicate);
    ASSERT_EQ(sync_wait(t.insert<P>(tab, 2, "two")), status::ok);
    if (i % 2 == 0) {
      t.abort();
    } else {
      ASSERT_EQ(sync_wait(t.remove<P>(tab, 2)), status::ok);  // leaves a tombstone on key 2's slot
      ASSERT_EQ(t.commit(), commit_status::committed);
    }
  }
  EXPECT_EQ(tab.records(), 2u);
}

}  // namespace
}  // namespace weave::txn

namespace weave::txn {
namespace {

// Commits complete out of order; a snapshot never passes one that has not.
TEST(commit_clock, now_never_passes_an_incomplete_commit) {
  commit_clock clock;
  constexpr std::size_t threads = 6, per_thread = 20000;
  std::vector<std::atomic<bool>> stamped(threads * per_thread + 2);
  std::atomic<bool> stop{false}, go{false};
  std::atomic<std::size_t> bad{0};
  std::thread reader([&] {
    while (!stop.load()) {
      // The newest commits are the ones that may still be stamping.
      const std::uint64_t now = clock.now();
      for (std::uint64_t ts = now; ts >= 2 && ts + 8 > now; --ts) bad += stamped[ts].load() ? 0 : 1;
    }
  });
  std::vector<std::thread> committers;
  for (std::size_t t = 0; t < threads; ++t) {
    committers.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      for (std::size_t i = 0; i < per_thread; ++i) {
        const std::uint64_t ts = clock.draw();
        for (int spin = 0; spin < 400; ++spin) std::atomic_signal_fence(std::memory_order_seq_cst);  // "stamping"
        stamped[ts].store(true);
        clock.complete(ts);
        if (clock.now() < ts) ++bad;  // a returned commit is visible
      }
    });
  }
  go = true;
  for (auto& c : committers) c.join();
  stop = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_EQ(clock.now(), 1 + threads * per_thread);
}

// More threads than cores, each interleaving batches of transfers, some on a
// few hot accounts (conflicts) and some on accounts of their own (none), and
// auditing as they go: the total never changes, at either level.
TEST_P(transactions, bank_total_holds_with_more_threads_than_cores) {
  constexpr std::uint64_t hot = 4, own = 16, threads = 8;
  constexpr std::int64_t start = 1000;
  const std::uint64_t accounts_count = hot + own * threads;
  engine db(GetParam());
  // The balances' first versions in their slots (the other bank tests keep
  // them in the pool).
  table& accounts = db.create_table("accounts", key_kind::integer, 0, sizeof(std::int64_t));
  {
    transaction t = db.begin();
    for (std::uint64_t a = 0; a < accounts_count; ++a) {
      ASSERT_EQ(sync_wait(t.insert<P>(accounts, a, encode(start))), status::ok);
    }
    ASSERT_EQ(t.commit(), commit_status::committed);
  }
  const std::int64_t total = start * static_cast<std::int64_t>(accounts_count);
  std::atomic<std::size_t> committed{0}, bad_audits{0};
  std::vector<std::thread> workers;
  for (std::uint64_t w = 0; w < threads; ++w) {
    workers.emplace_back([&, w] {
      participant& me = db.join();
      std::mt19937_64 rng(w);
      std::vector<std::array<std::uint64_t, 3>> batch(32);
      for (int round = 0; round < 40; ++round) {
        for (auto& b : batch) {
          // Half on the hot accounts, half between two of this thread's own.
          const bool contended = rng() % 2 == 0;
          const std::uint64_t base = contended ? 0 : hot + w * own, span = contended ? hot : own;
          const std::uint64_t from = base + rng() % span;
          b = {from, base + (from - base + 1 + rng() % (span - 1)) % span, rng() % 50};
        }
        const epoch_guard guard = db.enter(me);
        batched_scheduler{8}.run(
            batch.size(),
            [&](auto policy, std::size_t i) {
              return transfer<decltype(policy)>(db, accounts, batch[i][0], batch[i][1],
                                                static_cast<std::int64_t>(batch[i][2]));
            },
            [&](std::size_t, bool ok) { committed += ok ? 1 : 0; });
        if (sync_wait(audit<P>(db, accounts)) != total) ++bad_audits;
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(bad_audits.load(), 0u);
  EXPECT_GT(committed.load(), 0u);
  EXPECT_EQ(sync_wait(audit<sequential_policy>(db, accounts)), total);
}

}  // namespace
}  // namespace weave::txn
