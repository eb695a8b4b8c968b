// A durable engine against an oracle: random transactions over integer- and
// byte-keyed tables, closed and reopened (with and without checkpoints), in
// every execution mode; damaged files; a disk that fills.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fuzz/directory_image.hpp"
#include "support/engine_contents.hpp"
#include "support/file_bytes.hpp"
#include "support/temp_dir.hpp"
#include "weave/durability/checkpoint.hpp"
#include "weave/durability/log_reader.hpp"
#include "weave/durability/log_writer.hpp"
#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace weave::txn {
namespace {

namespace fs = std::filesystem;
using test_support::temp_dir;
using durability::durability_mode;

// The oracle: each table's committed records.
using oracle = test_support::engine_contents;
using test_support::contents;

std::string int_key(std::uint64_t k) { return std::to_string(k); }

engine_options options_for(durability_mode mode, isolation level = isolation::snapshot) {
  engine_options o;
  o.level = level;
  o.log.mode = mode;
  o.log.group_window = std::chrono::microseconds(100);
  o.log.segment_bytes = 16 << 10;  // many segments
  return o;
}

table& table_of(engine& e, const std::string& name, key_kind keys) {
  if (table* t = e.find_table(name)) return *t;
  return e.create_table(name, keys);
}

// One random transaction over tables "ints" and "strings": puts, inserts,
// removes of keys from a small range, so that they collide. Applies what it
// committed to `model`.
template <class Policy>
task<commit_status> random_transaction(engine& e, std::uint64_t seed, oracle& model) {
  std::mt19937_64 rng(seed);
  table& ints = *e.find_table("ints");
  table& strings = *e.find_table("strings");
  transaction t = e.begin();
  oracle mine = model;  // what it would leave
  for (int op = 1 + static_cast<int>(rng() % 5); op > 0; --op) {
    const bool on_ints = rng() % 2 == 0;
    const std::uint64_t n = rng() % 40;
    const std::string key = on_ints ? int_key(n) : "key-" + std::to_string(n) + std::string(rng() % 30, 'x');
    std::string value(rng() % 200, '\0');
    for (char& c : value) c = static_cast<char>('a' + rng() % 26);
    table& tab = on_ints ? ints : strings;
    auto& records = mine[tab.name()];
    status s{};
    switch (rng() % 3) {
      case 0:
        s = on_ints ? co_await t.insert<Policy>(tab, n, value) : co_await t.insert<Policy>(tab, key, value);
        if (s == status::ok) records[key] = value;
        break;
      case 1:
        s = on_ints ? co_await t.put<Policy>(tab, n, value) : co_await t.put<Policy>(tab, key, value);
        if (s == status::ok) records[key] = value;
        break;
      default:
        s = on_ints ? co_await t.remove<Policy>(tab, n) : co_await t.remove<Policy>(tab, key);
        if (s == status::ok) records.erase(key);
        break;
    }
    if (s == status::conflict) break;
  }
  const commit_status c = co_await t.commit<Policy>();
  if (c == commit_status::committed) model = std::move(mine);
  co_return c;
}

enum class run_mode { sequential, strict_batches, pipeline };

// `count` random transactions, one at a time (each sees the last: the
// oracle is sequential), under a scheduler of the mode.
void run_some(engine& e, run_mode mode, std::uint64_t first_seed, std::size_t count, oracle& model) {
  const auto make = [&](auto policy, std::size_t i) {
    return random_transaction<decltype(policy)>(e, first_seed + i, model);
  };
  const auto sink = [](std::size_t, commit_status s) { ASSERT_EQ(s, commit_status::committed); };
  // One at a time: groups of one still park at commit and resume.
  for (std::size_t i = 0; i < count; ++i) {
    switch (mode) {
      case run_mode::sequential: sequential_scheduler{}.run(i, i + 1, make, sink); break;
      case run_mode::strict_batches: batched_scheduler{1}.run(i, i + 1, make, sink); break;
      case run_mode::pipeline: interleaved_scheduler{1}.run(i, i + 1, make, sink); break;
    }
  }
}

struct durable_engine : ::testing::TestWithParam<std::tuple<durability_mode, isolation, run_mode>> {};

TEST_P(durable_engine, reopening_finds_every_committed_transaction) {
  const auto [mode, level, how] = GetParam();
  temp_dir dir;
  oracle model;
  std::mt19937_64 rng(11);
  for (int cycle = 0; cycle < 6; ++cycle) {
    auto e = engine::open(dir.path, options_for(mode, level));
    if (cycle == 0) {
      EXPECT_EQ(e->recovery().log_transactions, 0u);
    }
    table_of(*e, "ints", key_kind::integer);
    table_of(*e, "strings", key_kind::bytes);
    model.try_emplace("ints");
    model.try_emplace("strings");
    ASSERT_EQ(contents(*e), model) << "cycle " << cycle;
    run_some(*e, how, rng(), 40, model);
    if (rng() % 2 == 0) e->checkpoint();
    run_some(*e, how, rng(), 20, model);
    ASSERT_EQ(contents(*e), model);
  }
  auto e = engine::open(dir.path, options_for(mode, level));
  EXPECT_EQ(contents(*e), model);
}

INSTANTIATE_TEST_SUITE_P(modes, durable_engine,
                         ::testing::Combine(::testing::Values(durability_mode::sync, durability_mode::async),
                                            ::testing::Values(isolation::snapshot, isolation::serializable),
                                            ::testing::Values(run_mode::sequential, run_mode::strict_batches,
                                                              run_mode::pipeline)));

TEST(durable_engine_files, a_checkpoint_removes_the_log_it_holds_and_older_checkpoints) {
  temp_dir dir;
  oracle model;
  auto e = engine::open(dir.path, options_for(durability_mode::sync));
  e->create_table("ints", key_kind::integer);
  e->create_table("strings", key_kind::bytes);
  run_some(*e, run_mode::sequential, 1, 300, model);
  const auto segments = [&] {
    std::size_t n = 0;
    for (const auto& f : fs::directory_iterator(dir.path)) n += durability::segment_number(f.path().filename().string()) > 0;
    return n;
  };
  const std::size_t before = segments();
  EXPECT_GT(before, 3u);
  const std::uint64_t first = e->checkpoint();
  EXPECT_EQ(e->checkpoint(), first) << "nothing committed since: the same checkpoint";
  run_some(*e, run_mode::sequential, 1000, 10, model);
  const std::uint64_t second = e->checkpoint();
  EXPECT_GT(second, first);
  EXPECT_LT(segments(), before);
  EXPECT_FALSE(fs::exists(dir.path / durability::checkpoint_name(first)));
  EXPECT_TRUE(fs::exists(dir.path / durability::checkpoint_name(second)));
  e.reset();
  e = engine::open(dir.path, options_for(durability_mode::sync));
  EXPECT_EQ(e->recovery().checkpoint, second);
  EXPECT_EQ(contents(*e), model);
}

// A new value for the key, whether it has a record or not.
template <class K>
status write(transaction& t, table& tab, const K& key, const std::string& value) {
  const status s = sync_wait(t.put<sequential_policy>(tab, key, value));
  return s == status::not_found ? sync_wait(t.insert<sequential_policy>(tab, key, value)) : s;
}

// Replay sorts a batch of writes by key and keeps the last write of each: a
// key written twice by one transaction must come back with the later value,
// and a key's writes by different transactions with the latest commit's.
TEST(durable_engine_files, replay_keeps_the_last_write_of_each_key) {
  temp_dir dir;
  oracle model;
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    table& ints = e->create_table("ints", key_kind::integer);
    table& strings = e->create_table("strings", key_kind::bytes);
    std::mt19937_64 rng(7);
    for (std::size_t round = 0; round < 300; ++round) {
      transaction t = e->begin();
      const std::size_t writes = round % 10 == 0 ? 200 : 1 + rng() % 8;  // some past the merge limit
      for (std::size_t w = 0; w < writes; ++w) {
        const std::uint64_t k = rng() % 50;
        const std::string value = "r" + std::to_string(round) + "w" + std::to_string(w);
        if (rng() % 2 == 0) {
          ASSERT_EQ(write(t, ints, k, value), status::ok);
          model["ints"][int_key(k)] = value;
        } else {
          const std::string key = "key" + std::to_string(k);
          ASSERT_EQ(write(t, strings, std::string_view(key), value), status::ok);
          model["strings"][key] = value;
        }
      }
      ASSERT_EQ(t.commit(), commit_status::committed);
    }
  }
  auto e = engine::open(dir.path, options_for(durability_mode::sync));
  EXPECT_EQ(contents(*e), model);
}

// Large enough for every path of recovery: a checkpoint whose keys come in
// order (the index is loaded leaf by leaf) and one whose keys stop being in
// order halfway (the rest are inserted); a log whose writes a sorted batch
// splits between threads, with new keys, removals and values that change
// size, in segments read ahead.
TEST(durable_engine_files, recovery_at_scale_matches_an_oracle) {
  temp_dir dir;
  oracle model;
  std::mt19937_64 rng(21);
  constexpr std::uint64_t ordered_keys = 200000, scattered_keys = 20000;
  const auto value_for = [&](std::uint64_t k) {
    return std::string(8 + (k + rng()) % 3 * 8, char('a' + rng() % 26));
  };
  std::size_t in_checkpoint = 0;
  auto options = options_for(durability_mode::async);
  options.log.segment_bytes = 2 << 20;  // segments large enough to be read ahead on another thread
  {
    auto e = engine::open(dir.path, options);
    table& ordered = e->create_table("ordered", key_kind::integer);
    // Values of 8 to 24 bytes: some of these two tables' first versions sit
    // in their slots, some in the pool.
    table& scattered = e->create_table("scattered", key_kind::integer, 0, 16);
    table& names = e->create_table("names", key_kind::bytes, 0, 8);
    std::vector<std::uint64_t> scatter(scattered_keys);
    for (std::uint64_t i = 0; i < scattered_keys; ++i) scatter[i] = 3 * i;
    std::shuffle(scatter.begin() + scattered_keys / 2, scatter.end(), rng);
    const auto commit_in_batches = [&](std::size_t n, const auto& write_one) {
      for (std::size_t i = 0; i < n;) {
        transaction t = e->begin();
        for (std::size_t end = std::min(n, i + 1000); i < end; ++i) write_one(t, i);
        ASSERT_EQ(t.commit(), commit_status::committed);
      }
    };
    commit_in_batches(ordered_keys, [&](transaction& t, std::size_t i) {
      const std::string v = value_for(i);
      ASSERT_EQ(write(t, ordered, std::uint64_t{i}, v), status::ok);
      model["ordered"][int_key(i)] = v;
    });
    commit_in_batches(scattered_keys, [&](transaction& t, std::size_t i) {
      const std::string v = value_for(i);
      ASSERT_EQ(write(t, scattered, scatter[i], v), status::ok);
      model["scattered"][int_key(scatter[i])] = v;
    });
    commit_in_batches(3000, [&](transaction& t, std::size_t) {
      const std::string k = "name-" + std::to_string(rng() % 100000), v = value_for(rng());
      ASSERT_EQ(write(t, names, std::string_view(k), v), status::ok);
      model["names"][k] = v;
    });
    in_checkpoint = ordered_keys + scattered_keys + model["names"].size();
    e->checkpoint();
    commit_in_batches(400000, [&](transaction& t, std::size_t) {
      const auto what = rng() % 100;
      if (what < 85) {  // an update or, past the loaded keys, an insert
        const std::uint64_t k = rng() % (ordered_keys + 5000);
        const std::string v = value_for(k);
        ASSERT_EQ(write(t, ordered, k, v), status::ok);
        model["ordered"][int_key(k)] = v;
      } else if (what < 90) {
        const std::uint64_t k = rng() % ordered_keys;
        const status s = sync_wait(t.remove<sequential_policy>(ordered, k));
        ASSERT_EQ(s, model["ordered"].erase(int_key(k)) ? status::ok : status::not_found);
      } else if (what < 97) {
        const std::uint64_t k = rng() % (3 * scattered_keys);
        const std::string v = value_for(k);
        ASSERT_EQ(write(t, scattered, k, v), status::ok);
        model["scattered"][int_key(k)] = v;
      } else {
        const std::string k = "name-" + std::to_string(rng() % 100000), v = value_for(rng());
        ASSERT_EQ(write(t, names, std::string_view(k), v), status::ok);
        model["names"][k] = v;
      }
    });
    ASSERT_EQ(contents(*e), model);
  }
  auto e = engine::open(dir.path, options);
  EXPECT_EQ(e->recovery().checkpoint_records, in_checkpoint);
  EXPECT_EQ(e->recovery().log_transactions, 400u);
  EXPECT_EQ(contents(*e), model);
  EXPECT_EQ(e->find_table("ordered")->inline_value_bytes(), 0u);
  EXPECT_EQ(e->find_table("scattered")->inline_value_bytes(), 16u);
  EXPECT_EQ(e->find_table("names")->inline_value_bytes(), 8u);
  // Recovered records whose values fit are read from their slots, those
  // from the checkpoint and those the log added or rewrote alike.
  for (const char* name : {"scattered", "names"}) {
    const table& t = *e->find_table(name);
    std::size_t in_slots = 0, fitting = 0;
    for (oid_t oid = 0; oid < t.records(); ++oid) {
      const version* v = t.head(oid).load();
      if (v == nullptr || !t.fits_in_slot(v->size)) continue;
      ++fitting;
      in_slots += t.in_slot(oid, v);
    }
    EXPECT_GT(fitting, 0u) << name;
    EXPECT_EQ(in_slots, fitting) << name;
  }
}

TEST(durable_engine_files, a_catalog_with_slots_too_wide_is_refused) {
  temp_dir dir;
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    e->create_table("slots", key_kind::integer, 0, 16);
    EXPECT_THROW(e->create_table("wide", key_kind::integer, 0, table::max_inline_value_bytes + 1),
                 std::invalid_argument);
  }
  std::ofstream(dir.path / "CATALOG", std::ios::trunc)
      << fuzz::sealed_catalog("0 integer/" + std::to_string(table::max_inline_value_bytes + 1) + " slots\n");
  try {
    engine::open(dir.path, options_for(durability_mode::sync));
    ADD_FAILURE() << "opened";
  } catch (const durability::data_directory_error& e) {
    EXPECT_NE(std::string(e.what()).find("'slots' keeps values of up to"), std::string::npos) << e.what();
  }
}

// A directory of format 2, whose catalog may lack its checksum: the engine
// reads it, and makes it format 4 only once everything in it has been
// checked, so that one it refuses stays as it was.
TEST(durable_engine_files, a_format_2_directory_is_upgraded_only_once_it_has_been_read) {
  const std::string format_2 = "weave data directory, format 2\n";
  const auto make_format_2 = [&](const fs::path& d) {  // the catalog without its checksum line
    const std::string sealed = test_support::file_bytes(d / "CATALOG");
    std::ofstream(d / "CATALOG", std::ios::trunc) << sealed.substr(0, sealed.rfind("checksum "));
    std::ofstream(d / "FORMAT", std::ios::trunc) << format_2;
    return sealed;
  };
  temp_dir dir;
  oracle model;
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    e->create_table("ints", key_kind::integer);
    e->create_table("strings", key_kind::bytes, 0, 16);
    run_some(*e, run_mode::sequential, 1, 20, model);
  }
  const std::string sealed = make_format_2(dir.path);
  {
    auto read_only = options_for(durability_mode::sync);
    read_only.read_only = true;
    auto e = engine::open(dir.path, read_only);
    EXPECT_EQ(contents(*e), model);
  }
  EXPECT_EQ(test_support::file_bytes(dir.path / "FORMAT"), format_2);
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    EXPECT_EQ(contents(*e), model);
  }
  EXPECT_EQ(test_support::file_bytes(dir.path / "FORMAT"), "weave data directory, format 4\n");
  EXPECT_EQ(test_support::file_bytes(dir.path / "CATALOG"), sealed);

  // Refused after the directory was opened (a table's slots too wide for
  // this build): nothing is upgraded.
  temp_dir wide;
  {
    auto e = engine::open(wide.path, options_for(durability_mode::sync));
    e->create_table("slots", key_kind::integer, 0, 16);
  }
  make_format_2(wide.path);
  const std::string too_wide = "0 integer/" + std::to_string(table::max_inline_value_bytes + 1) + " slots\n";
  std::ofstream(wide.path / "CATALOG", std::ios::trunc) << too_wide;
  EXPECT_THROW(engine::open(wide.path, options_for(durability_mode::sync)), durability::data_directory_error);
  EXPECT_EQ(test_support::file_bytes(wide.path / "FORMAT"), format_2);
  EXPECT_EQ(test_support::file_bytes(wide.path / "CATALOG"), too_wide);
}

// A directory of format 3: its segments open with an empty group and name
// no log (as that format's builds wrote them). The engine reads it, makes it
// format 4, and the segments it adds name a log, which later openings check.
TEST(durable_engine_files, a_format_3_directory_reads_and_its_new_segments_name_the_log) {
  temp_dir dir;
  oracle model;
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    e->create_table("ints", key_kind::integer);
    e->create_table("strings", key_kind::bytes);
    run_some(*e, run_mode::sequential, 1, 30, model);
  }
  const std::size_t legacy = fuzz::name_no_log(dir.path, false);  // no checkpoint here
  ASSERT_GT(legacy, 0u);
  std::ofstream(dir.path / "FORMAT", std::ios::trunc) << "weave data directory, format 3\n";
  std::uint64_t log = 0;
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    EXPECT_EQ(contents(*e), model);
    run_some(*e, run_mode::sequential, 100, 30, model);
  }
  EXPECT_EQ(test_support::file_bytes(dir.path / "FORMAT"), "weave data directory, format 4\n");
  {
    const durability::log_scan scan = durability::read_log_groups(dir.path, {});
    EXPECT_NE(scan.log, 0u);
    EXPECT_EQ(scan.identified_from, legacy + 1);
    log = scan.log;
  }
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    EXPECT_EQ(contents(*e), model);
  }
  EXPECT_EQ(durability::read_log_groups(dir.path, {}).log, log);
  // Another engine's newest segment, under the next number, with commits
  // that all come after this directory's: refused, nothing written.
  temp_dir other;
  {
    oracle scratch;
    {
      auto e = engine::open(other.path, options_for(durability_mode::sync));
      e->create_table("ints", key_kind::integer);
      e->create_table("strings", key_kind::bytes);
      run_some(*e, run_mode::sequential, 7, 300, scratch);
    }
    auto e = engine::open(other.path, options_for(durability_mode::sync));  // a new segment
    run_some(*e, run_mode::sequential, 900, 20, scratch);
  }
  std::uint64_t last = 0, other_last = 0;
  for (const auto& f : fs::directory_iterator(dir.path)) {
    last = std::max(last, durability::segment_number(f.path().filename().string()));
  }
  for (const auto& f : fs::directory_iterator(other.path)) {
    other_last = std::max(other_last, durability::segment_number(f.path().filename().string()));
  }
  ASSERT_GT(other_last, 0u);
  const std::string copied = test_support::file_bytes(other.path / durability::segment_name(other_last));
  const durability::group_view opening = durability::decode_group(copied);
  ASSERT_TRUE(opening.opening);
  std::uint64_t earliest = ~std::uint64_t{0};
  for (std::size_t at = opening.bytes; at < copied.size();) {
    const durability::group_view g = durability::decode_group(std::string_view(copied).substr(at));
    ASSERT_EQ(g.state, durability::group_state::complete) << "at byte " << at;
    if (g.transactions > 0) earliest = std::min(earliest, g.first_commit);
    at += g.bytes;
  }
  ASSERT_GT(earliest, durability::read_log_groups(dir.path, {}).last_commit);
  // Renumbered as this log's next segment, checksums and all, so that
  // only the log's identity differs.
  std::string renumbered = durability::seal_opening({opening.identity.log, last + 1});
  renumbered += copied.substr(durability::opening_group_bytes);
  std::ofstream(dir.path / durability::segment_name(last + 1), std::ios::binary) << renumbered;
  try {
    engine::open(dir.path, options_for(durability_mode::sync));
    ADD_FAILURE() << "a segment of another engine's log was replayed";
  } catch (const durability::log_corruption& e) {
    EXPECT_NE(std::string(e.what()).find("another log"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir.path / durability::segment_name(last + 2))) << "a refused open wrote a segment";
}

// Another engine's checkpoint, with a later snapshot than any of this
// directory's commits, would be loaded as the newest: it names its log, and
// is refused. This directory's own checkpoints name this log.
TEST(durable_engine_files, a_checkpoint_from_another_log_is_refused) {
  const auto make = [](const fs::path& dir, std::uint64_t seed, std::size_t count, oracle& model) {
    auto e = engine::open(dir, options_for(durability_mode::sync));
    e->create_table("ints", key_kind::integer);
    e->create_table("strings", key_kind::bytes);
    run_some(*e, run_mode::sequential, seed, count, model);
    return e->checkpoint();
  };
  temp_dir dir, other;
  oracle model, theirs;
  const std::uint64_t ours = make(dir.path, 1, 20, model);
  const std::uint64_t later = make(other.path, 50, 200, theirs);
  ASSERT_GT(later, ours);
  EXPECT_EQ(durability::read_checkpoint(dir.path, ours, {}).log,
            durability::read_log_groups(dir.path, {}).log);
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    EXPECT_EQ(contents(*e), model);
  }
  fs::copy_file(other.path / durability::checkpoint_name(later),
                dir.path / durability::checkpoint_name(later));
  try {
    engine::open(dir.path, options_for(durability_mode::sync));
    ADD_FAILURE() << "another engine's checkpoint was loaded";
  } catch (const durability::log_corruption& e) {
    EXPECT_NE(std::string(e.what()).find("a checkpoint from another log"), std::string::npos) << e.what();
  }
  fs::remove(dir.path / durability::checkpoint_name(later));
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    EXPECT_EQ(contents(*e), model);
  }
  // This checkpoint with segments that name no log (an older build's log
  // put in place of this one): they are not the log it was taken with.
  fuzz::name_no_log(dir.path, false);
  try {
    engine::open(dir.path, options_for(durability_mode::sync));
    ADD_FAILURE() << "a checkpoint that names a log was loaded with segments that name none";
  } catch (const durability::log_corruption& e) {
    EXPECT_NE(std::string(e.what()).find("whose segments name none"), std::string::npos) << e.what();
  }
}

TEST(durable_engine_files, a_torn_log_tail_keeps_a_prefix_of_the_commits) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 10; ++round) {
    temp_dir dir;
    std::vector<oracle> states;  // after each commit
    {
      auto e = engine::open(dir.path, options_for(durability_mode::sync));
      e->create_table("ints", key_kind::integer);
      e->create_table("strings", key_kind::bytes);
      oracle model = contents(*e);
      states.push_back(model);
      for (int i = 0; i < 30; ++i) {
        run_some(*e, run_mode::sequential, rng(), 1, model);
        states.push_back(model);
      }
    }
    // The newest segment, cut or overwritten at a random byte.
    fs::path last;
    for (const auto& f : fs::directory_iterator(dir.path)) {
      if (durability::segment_number(f.path().filename().string()) > 0 && f.path() > last) last = f.path();
    }
    ASSERT_FALSE(last.empty());
    const auto size = fs::file_size(last);
    ASSERT_GT(size, durability::opening_group_bytes);
    if (rng() % 2 == 0) {
      fs::resize_file(last, rng() % size);
    } else {
      // After the segment's opening group, which was synced before anything
      // followed it: a crash cannot leave it damaged under later bytes.
      const auto at = durability::opening_group_bytes + rng() % (size - durability::opening_group_bytes);
      std::fstream f(last, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(at));
      for (auto i = at; i < size; ++i) f.put(static_cast<char>(rng()));
    }
    // Opened read-only first: the state recovery will find, with the
    // directory left byte for byte as it was (the torn tail too).
    const auto files = [&] {
      std::map<std::string, std::string> m;
      for (const auto& f : fs::directory_iterator(dir.path)) {
        m[f.path().filename().string()] = test_support::file_bytes(f.path());
      }
      return m;
    };
    const auto before = files();
    oracle seen;
    {
      engine_options read_only = options_for(durability_mode::sync);
      read_only.read_only = true;
      auto r = engine::open(dir.path, read_only);
      seen = contents(*r);
      EXPECT_THROW(engine::open(dir.path, options_for(durability_mode::sync)), durability::data_directory_error);
      EXPECT_THROW(r->create_table("more", key_kind::integer), std::logic_error);
      EXPECT_THROW(r->checkpoint(), std::logic_error);
      transaction t = r->begin();
      ASSERT_EQ(write(t, *r->find_table("ints"), std::uint64_t{7}, std::string("x")), status::ok);
      EXPECT_EQ(t.commit(), commit_status::log_failure);
    }
    EXPECT_EQ(files(), before) << "round " << round << ": a read-only open changed the directory";
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    const oracle got = contents(*e);
    EXPECT_EQ(got, seen) << "round " << round;
    bool prefix = false;
    for (const oracle& s : states) prefix = prefix || s == got;
    EXPECT_TRUE(prefix) << "round " << round << ": recovery kept something that is no prefix of the commits";
  }
}

TEST(durable_engine_files, damage_before_the_tail_or_in_a_checkpoint_is_reported) {
  temp_dir dir;
  {
    oracle model;
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    e->create_table("ints", key_kind::integer);
    e->create_table("strings", key_kind::bytes);
    run_some(*e, run_mode::sequential, 1, 100, model);
    e->checkpoint();
    run_some(*e, run_mode::sequential, 500, 100, model);
  }
  const auto flip_in = [&](const std::string& prefix) {
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(dir.path)) {
      if (f.path().filename().string().starts_with(prefix)) files.push_back(f.path());
    }
    std::sort(files.begin(), files.end());
    const fs::path target = files.front();  // the oldest: never the torn tail
    std::fstream f(target, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(fs::file_size(target) / 2));
    const char c = static_cast<char>(f.get());
    f.seekp(static_cast<std::streamoff>(fs::file_size(target) / 2));
    f.put(static_cast<char>(c ^ 0x10));
    return target;
  };
  const fs::path segment = flip_in("wal-");
  try {
    engine::open(dir.path, options_for(durability_mode::sync));
    FAIL() << "a damaged segment was accepted";
  } catch (const durability::log_corruption& e) {
    EXPECT_NE(std::string(e.what()).find(segment.filename().string()), std::string::npos) << e.what();
  }
  fs::remove(segment);  // the rest of the test: the checkpoint
  const fs::path checkpoint = flip_in("checkpoint-");
  try {
    engine::open(dir.path, options_for(durability_mode::sync));
    FAIL() << "a damaged checkpoint was accepted";
  } catch (const durability::log_corruption& e) {
    EXPECT_NE(std::string(e.what()).find(checkpoint.filename().string()), std::string::npos) << e.what();
  }
}

// Files that recovery would otherwise pass over in silence, losing what they
// held: a log that is gone, and a segment or checkpoint under a name weave
// does not write. Each is refused with a message naming it, and nothing is
// changed.
TEST(durable_engine_files, a_missing_log_or_a_renamed_file_is_reported) {
  const auto make = [](const fs::path& dir, bool checkpoint) {
    oracle model;
    auto e = engine::open(dir, options_for(durability_mode::sync));
    e->create_table("ints", key_kind::integer);
    e->create_table("strings", key_kind::bytes);
    run_some(*e, run_mode::sequential, 1, 50, model);
    if (checkpoint) e->checkpoint();
    run_some(*e, run_mode::sequential, 500, 50, model);
  };
  const auto files_of = [](const fs::path& dir, const std::string& prefix) {
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(dir)) {
      if (f.path().filename().string().starts_with(prefix)) files.push_back(f.path());
    }
    return files;
  };
  const auto refused = [](const fs::path& dir, const std::string& expect) {
    try {
      engine::open(dir, options_for(durability_mode::sync));
      ADD_FAILURE() << "opened; expected: " << expect;
    } catch (const durability::log_corruption& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  };
  for (const bool checkpoint : {false, true}) {
    SCOPED_TRACE(checkpoint ? "with a checkpoint" : "without a checkpoint");
    {
      temp_dir dir;
      make(dir.path, checkpoint);
      for (const fs::path& f : files_of(dir.path, "wal-")) fs::remove(f);
      refused(dir.path, "the log is missing");
      EXPECT_TRUE(files_of(dir.path, "wal-").empty()) << "a refused open wrote a segment";
    }
    {
      temp_dir dir;
      make(dir.path, checkpoint);
      const std::vector<fs::path> segments = files_of(dir.path, "wal-");
      ASSERT_FALSE(segments.empty());
      fs::rename(segments.back(), dir.path / "wal-99999999999999999999999.log");
      refused(dir.path, "'wal-99999999999999999999999.log' is named like a log segment");
    }
    if (checkpoint) {
      temp_dir dir;
      make(dir.path, checkpoint);
      const std::vector<fs::path> checkpoints = files_of(dir.path, "checkpoint-");
      ASSERT_EQ(checkpoints.size(), 1u);
      fs::rename(checkpoints.front(), dir.path / "checkpoint-99999999999999999999.wck");
      refused(dir.path, "'checkpoint-99999999999999999999.wck' is named like a checkpoint");
    }
  }
  {  // a directory (or anything but a file) under a segment's name
    temp_dir dir;
    make(dir.path, false);
    const std::vector<fs::path> segments = files_of(dir.path, "wal-");
    ASSERT_FALSE(segments.empty());
    fs::remove(segments.back());
    fs::create_directory(segments.back());
    refused(dir.path, "'" + segments.back().filename().string() + "' is not a regular file");
  }
  // A new directory holds no log yet, and opens.
  temp_dir fresh;
  EXPECT_NO_THROW(engine::open(fresh.path, options_for(durability_mode::sync)));
}

// Records whose checksums match but which do not fit the catalog (a bug, or
// a log from another directory): recovery names the commit and what is wrong.
TEST(durable_engine_files, a_logged_record_that_does_not_fit_the_catalog_is_reported) {
  struct bad_record {
    std::uint32_t table;
    std::string key;
    const char* what;
  };
  const std::string eight(8, 'k');
  for (const bad_record& bad : {bad_record{7, eight, "which CATALOG does not name (it names 2 tables)"},
                                bad_record{0, "12345", "whose keys are integers"},
                                bad_record{1, std::string(byte_key::capacity + 1, 'x'), "a key of"}}) {
    temp_dir dir;
    {
      auto e = engine::open(dir.path, options_for(durability_mode::sync));
      e->create_table("ints", key_kind::integer);
      e->create_table("strings", key_kind::bytes);
    }
    const std::uint64_t commit = 1'000'000;
    {
      durability::log_writer writer(dir.path);
      durability::group_builder b;
      const durability::logged_write w{bad.table, durability::write_op::put, bad.key, "v"};
      b.add(commit, std::span<const durability::logged_write>(&w, 1));
      writer.append(b.seal(commit));
      writer.sync();
    }
    try {
      engine::open(dir.path, options_for(durability_mode::sync));
      ADD_FAILURE() << "a record of table " << bad.table << " with a key of " << bad.key.size()
                    << " bytes was accepted";
    } catch (const durability::log_corruption& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("the log's commit 1000000"), std::string::npos) << what;
      EXPECT_NE(what.find(bad.what), std::string::npos) << what;
    }
  }
}

// The clock starts after the files' last timestamp and must stay below the
// log's timestamp_limit: an engine opened for writing refuses files past
// half of it, and files just below take commits; both open read-only.
TEST(durable_engine_files, timestamps_that_leave_the_clock_no_room_are_reported) {
  const std::uint64_t half = durability::timestamp_limit / 2;
  for (const std::uint64_t last : {half - 1, half}) {
    temp_dir dir;
    {
      auto e = engine::open(dir.path, options_for(durability_mode::sync));
      e->create_table("ints", key_kind::integer);
    }
    {
      durability::log_writer writer(dir.path);
      durability::group_builder b;
      b.add(last, {});
      writer.append(b.seal(last));
      writer.sync();
    }
    oracle expected{{"ints", {}}};
    if (last < half) {
      auto e = engine::open(dir.path, options_for(durability_mode::sync));
      transaction t = e->begin();
      ASSERT_EQ(sync_wait(t.insert<sequential_policy>(*e->find_table("ints"), std::uint64_t{1}, "v")), status::ok);
      ASSERT_EQ(t.commit(), commit_status::committed);
      expected["ints"]["1"] = "v";
    }
    // Past half now, by the commit if not before.
    try {
      engine::open(dir.path, options_for(durability_mode::sync));
      ADD_FAILURE() << "opened for writing past 2^61";
    } catch (const durability::log_corruption& e) {
      EXPECT_NE(std::string(e.what()).find("it opens read-only"), std::string::npos) << e.what();
    }
    engine_options read_only = options_for(durability_mode::sync);
    read_only.read_only = true;
    auto e = engine::open(dir.path, read_only);
    EXPECT_EQ(contents(*e), expected);
    EXPECT_GE(e->recovery().last_commit, half);
  }
}

// A CATALOG emptied by hand (its checksum made to match): the checkpoint's
// records name tables it does not hold, and the message says so, naming the
// checkpoint once.
TEST(durable_engine_files, a_checkpoint_record_that_the_catalog_does_not_name_is_reported) {
  temp_dir dir;
  {
    oracle model;
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    e->create_table("ints", key_kind::integer);
    e->create_table("strings", key_kind::bytes);
    run_some(*e, run_mode::sequential, 1, 20, model);
    e->checkpoint();
  }
  std::ofstream(dir.path / "CATALOG", std::ios::trunc) << fuzz::sealed_catalog("");
  try {
    engine::open(dir.path, options_for(durability_mode::sync));
    FAIL() << "records of a table the catalog does not name were accepted";
  } catch (const durability::log_corruption& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("which CATALOG does not name (it names 0 tables)"), std::string::npos) << what;
    const std::size_t first = what.find("checkpoint-");
    ASSERT_NE(first, std::string::npos) << what;
    EXPECT_EQ(what.find("checkpoint-", first + 1), std::string::npos) << "named twice: " << what;
  }
}

// The keys of the transactions in a directory's log (table "ints" is id 0).
std::set<std::uint64_t> keys_in_log(const fs::path& dir) {
  std::set<std::uint64_t> keys;
  durability::read_log(dir, [&](const durability::logged_transaction& t) {
    for (const durability::logged_write& w : t.writes) {
      std::uint64_t k = 0;
      std::memcpy(&k, w.key.data(), std::min(w.key.size(), sizeof k));
      keys.insert(k);
    }
  });
  return keys;
}

TEST(durable_engine_files, a_deferred_commit_is_acknowledged_only_once_it_is_on_disk) {
  temp_dir dir;
  std::vector<std::uint64_t> acknowledged;
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    table& t = e->create_table("ints", key_kind::integer);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> waiting;  // key, durable_at
    std::size_t waited = 0;
    for (std::uint64_t k = 0; k < 300; ++k) {
      transaction tx = e->begin();
      ASSERT_EQ(sync_wait(tx.insert<sequential_policy>(t, k, "v")), status::ok);
      const deferred_commit d = tx.commit_deferred();
      ASSERT_EQ(d.status, commit_status::committed);
      waiting.emplace_back(k, d.durable_at);
      // Acknowledge what the engine says is durable; it must be in the files already.
      while (!waiting.empty()) {
        const std::optional<commit_status> a = e->acknowledgement(waiting.front().second);
        if (!a) break;
        ASSERT_EQ(*a, commit_status::committed);
        acknowledged.push_back(waiting.front().first);
        waiting.erase(waiting.begin());
      }
      if (k % 50 == 0) {
        const std::set<std::uint64_t> on_disk = keys_in_log(dir.path);
        for (std::uint64_t a : acknowledged) {
          ASSERT_EQ(on_disk.count(a), 1u) << "key " << a << " acknowledged, not on disk";
        }
      }
      waited += waiting.empty() ? 0 : 1;
    }
    for (const auto& [k, at] : waiting) {
      ASSERT_NE(at, 0u) << "key " << k << " had nothing to wait for, yet was not acknowledged";
      ASSERT_EQ(e->wait_acknowledgement(at), commit_status::committed);
      acknowledged.push_back(k);
    }
    EXPECT_GT(waited, 0u) << "no commit ever waited for the disk";
    const std::set<std::uint64_t> on_disk = keys_in_log(dir.path);
    for (std::uint64_t a : acknowledged) ASSERT_EQ(on_disk.count(a), 1u) << a;
  }
  auto e = engine::open(dir.path, options_for(durability_mode::sync));
  const oracle got = contents(*e);
  EXPECT_EQ(got.at("ints").size(), acknowledged.size());
  // Under async nothing waits: every deferred commit is acknowledged at once.
  temp_dir other;
  auto a = engine::open(other.path, options_for(durability_mode::async));
  table& t = a->create_table("ints", key_kind::integer);
  transaction tx = a->begin();
  ASSERT_EQ(sync_wait(tx.insert<sequential_policy>(t, 1, "v")), status::ok);
  const deferred_commit d = tx.commit_deferred();
  EXPECT_EQ(d.status, commit_status::committed);
  EXPECT_EQ(d.durable_at, 0u);
  EXPECT_EQ(a->acknowledgement(d.durable_at), commit_status::committed);
}

TEST(durable_engine_files, a_deferred_commit_the_log_could_not_write_is_refused) {
  temp_dir dir;
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  std::size_t refused = 0;
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    table& t = e->create_table("ints", key_kind::integer);
    struct rlimit small = old;
    small.rlim_cur = 8192;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    std::vector<std::uint64_t> waiting;
    // Until the flusher has met the limit: on a loaded machine it may not
    // run for a while, however many commits wait.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (std::uint64_t k = 0; !e->log()->failed(); ++k) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the log never failed";
      transaction tx = e->begin();
      ASSERT_EQ(sync_wait(tx.insert<sequential_policy>(t, k, std::string(100, 'x'))), status::ok);
      const deferred_commit d = tx.commit_deferred();
      if (d.status == commit_status::committed && d.durable_at != 0) waiting.push_back(d.durable_at);
    }
    ::setrlimit(RLIMIT_FSIZE, &old);
    ASSERT_TRUE(e->log()->failed());
    for (std::uint64_t at : waiting) {
      const commit_status s = e->wait_acknowledgement(at);
      EXPECT_EQ(e->acknowledgement(at), s);
      if (s == commit_status::log_failure) {
        ++refused;
      } else {
        EXPECT_TRUE(e->log()->durable(at)) << "acknowledged, not durable";
      }
    }
  }
  ::signal(SIGXFSZ, old_handler);
  EXPECT_GT(refused, 0u) << "the failed log refused no commit";
}

TEST(durable_engine_files, a_second_engine_on_the_directory_is_refused) {
  temp_dir dir;
  auto e = engine::open(dir.path, options_for(durability_mode::sync));
  EXPECT_THROW(engine::open(dir.path, options_for(durability_mode::sync)), durability::data_directory_error);
  EXPECT_THROW(engine::open(dir.path / "x", options_for(durability_mode::off)), std::invalid_argument);
}

TEST(durable_engine_files, options_no_log_runs_with_are_refused_before_the_directory_is_touched) {
  temp_dir dir;
  const auto refused = [&](const engine_options& o) {
    EXPECT_THROW(engine::open(dir.path / "d", o), std::invalid_argument);
    EXPECT_FALSE(fs::exists(dir.path / "d")) << "a refused open made the directory";
  };
  engine_options o = options_for(durability_mode::sync);
  o.log.segment_bytes = 0;
  refused(o);
  o.log.segment_bytes = durability::log_options::min_segment_bytes - 1;
  refused(o);
  o = options_for(durability_mode::async);
  o.log.group_window = std::chrono::microseconds(-1);
  refused(o);
  o = options_for(durability_mode::sync);
  o.checkpoint_every = std::chrono::milliseconds(-1);
  refused(o);
  // The least segment is taken, and rotates as any other.
  o = options_for(durability_mode::sync);
  o.log.segment_bytes = durability::log_options::min_segment_bytes;
  {
    auto e = engine::open(dir.path / "d", o);
    table& t = e->create_table("t");
    for (std::uint64_t k = 0; k < 64; ++k) {
      transaction w = e->begin();
      ASSERT_EQ(sync_wait(w.insert<sequential_policy>(t, k, std::string(100, 'v'))), status::ok);
      ASSERT_EQ(w.commit(), commit_status::committed);
    }
  }
  std::size_t segments = 0;
  for (const auto& f : fs::directory_iterator(dir.path / "d")) {
    segments += f.path().filename().string().starts_with("wal-") ? 1 : 0;
  }
  EXPECT_GT(segments, 2u);
  auto e = engine::open(dir.path / "d", o);
  transaction r = e->begin();
  EXPECT_EQ(sync_wait(r.get<sequential_policy>(*e->find_table("t"), std::uint64_t{63})).value_or("?"), std::string(100, 'v'));
  EXPECT_EQ(r.commit(), commit_status::committed);
  // The log itself refuses them too, for a caller that makes one directly.
  durability::log_options bad;
  bad.segment_bytes = 0;
  EXPECT_THROW(durability::validate(bad), std::invalid_argument);
}

TEST(durable_engine_files, a_full_disk_fails_commits_and_acknowledges_none_after) {
  temp_dir dir;
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  std::map<std::uint64_t, std::string> acknowledged;
  {
    auto e = engine::open(dir.path, options_for(durability_mode::sync));
    table& t = e->create_table("ints", key_kind::integer);
    struct rlimit small = old;
    small.rlim_cur = 8192;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    commit_status s = commit_status::committed;
    for (std::uint64_t k = 0; k < 10000 && s == commit_status::committed; ++k) {
      transaction tx = e->begin();
      const std::string value(100, static_cast<char>('a' + k % 26));
      ASSERT_EQ(sync_wait(tx.insert<sequential_policy>(t, k, value)), status::ok);
      s = tx.commit();
      if (s == commit_status::committed) acknowledged[k] = value;
    }
    ::setrlimit(RLIMIT_FSIZE, &old);
    EXPECT_EQ(s, commit_status::log_failure);
    EXPECT_TRUE(e->log()->failed());
    transaction tx = e->begin();
    ASSERT_EQ(sync_wait(tx.insert<sequential_policy>(t, 99999, "v")), status::ok);
    EXPECT_EQ(tx.commit(), commit_status::log_failure) << "a commit after the failure";
  }
  ::signal(SIGXFSZ, old_handler);
  auto e = engine::open(dir.path, options_for(durability_mode::sync));
  const oracle got = contents(*e);
  for (const auto& [k, v] : acknowledged) ASSERT_EQ(got.at("ints").at(int_key(k)), v) << k;
}

}  // namespace
}  // namespace weave::txn
