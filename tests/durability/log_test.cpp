#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#define XXH_INLINE_ALL
#if defined(__x86_64__)
#define XXH_VECTOR XXH_SSE2
#endif
#include <xxhash.h>

#include "fuzz/directory_image.hpp"
#include "support/file_bytes.hpp"
#include "support/temp_dir.hpp"
#include "weave/durability/log_format.hpp"
#include "weave/durability/log_reader.hpp"
#include "weave/durability/log_writer.hpp"

namespace weave::durability {
namespace {

namespace fs = std::filesystem;

// The oracle's copy of a transaction: owned strings, compared field by field.
struct write_copy {
  std::uint32_t table;
  write_op op;
  std::string key, value;
  bool operator==(const write_copy&) const = default;
};
struct txn_copy {
  std::uint64_t commit;
  std::vector<write_copy> writes;
  bool operator==(const txn_copy&) const = default;
};

txn_copy copy_of(const logged_transaction& t) {
  txn_copy c{t.commit, {}};
  for (const logged_write& w : t.writes) c.writes.push_back({w.table, w.op, std::string(w.key), std::string(w.value)});
  return c;
}

txn_copy random_txn(std::mt19937_64& rng, std::uint64_t commit) {
  txn_copy t{commit, {}};
  const std::size_t writes = rng() % 6;  // a read-only transaction logs nothing, but the format allows it
  for (std::size_t i = 0; i < writes; ++i) {
    write_copy w{static_cast<std::uint32_t>(rng() % 4), rng() % 5 == 0 ? write_op::remove : write_op::put, {}, {}};
    w.key.resize(1 + rng() % 40);
    for (char& c : w.key) c = static_cast<char>(rng());
    if (w.op == write_op::put) {
      w.value.resize(rng() % 300);
      for (char& c : w.value) c = static_cast<char>(rng());
    }
    t.writes.push_back(std::move(w));
  }
  return t;
}

std::string seal(const std::vector<txn_copy>& txns) {
  group_builder b;
  std::uint64_t through = 0;
  for (const txn_copy& t : txns) {
    std::vector<logged_write> ws;
    for (const write_copy& w : t.writes) ws.push_back({w.table, w.op, w.key, w.value});
    b.add(t.commit, ws);
    through = std::max(through, t.commit);
  }
  return b.seal(through);
}

using test_support::file_bytes;
using test_support::temp_dir;

void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<txn_copy> read_back(const fs::path& dir, log_scan* scan = nullptr, bool cut = false) {
  std::vector<txn_copy> out;
  const log_scan s = read_log(dir, [&](const logged_transaction& t) { out.push_back(copy_of(t)); }, cut);
  if (scan != nullptr) *scan = s;
  return out;
}

TEST(log, reads_back_what_was_written_across_segments) {
  std::mt19937_64 rng(1);
  for (int round = 0; round < 20; ++round) {
    temp_dir dir;
    std::vector<txn_copy> oracle;
    {
      log_writer writer(dir.path, 4096 + rng() % 8192);  // small segments: many rotations
      std::uint64_t commit = 1;
      const std::size_t groups = 1 + rng() % 30;
      for (std::size_t g = 0; g < groups; ++g) {
        std::vector<txn_copy> txns;
        for (std::size_t t = 1 + rng() % 8; t > 0; --t) txns.push_back(random_txn(rng, commit++));
        writer.append(seal(txns));
        if (rng() % 3 == 0) writer.sync();
        oracle.insert(oracle.end(), txns.begin(), txns.end());
      }
      writer.sync();
    }
    log_scan scan;
    ASSERT_EQ(read_back(dir.path, &scan), oracle) << "round " << round;
    EXPECT_EQ(scan.transactions, oracle.size());
    EXPECT_EQ(scan.torn_bytes, 0u);
  }
}

// Three segments of one transaction each, in `dir`.
void three_segments(const fs::path& dir, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  log_writer writer(dir, 1);  // every group in a segment of its own
  for (std::uint64_t c = 1; c <= 3; ++c) writer.append(seal({random_txn(rng, c)}));
  writer.sync();
}

// Three groups in one segment, and where each ends.
struct three_groups {
  temp_dir dir;
  std::vector<std::vector<txn_copy>> groups;
  std::vector<std::size_t> ends;
  fs::path segment;
  std::size_t opening = 0;  // the segment's opening group
  three_groups() {
    std::mt19937_64 rng(2);
    log_writer writer(dir.path);
    segment = dir.path / segment_name(writer.segment());
    opening = fs::file_size(segment);
    std::uint64_t commit = 1;
    for (int g = 0; g < 3; ++g) {
      std::vector<txn_copy> txns;
      for (int t = 0; t < 3; ++t) txns.push_back(random_txn(rng, commit++));
      const std::string bytes = seal(txns);
      writer.append(bytes);
      groups.push_back(txns);
      ends.push_back((ends.empty() ? opening : ends.back()) + bytes.size());
    }
    writer.sync();
  }
  // The transactions of the groups that end at or before `bytes`.
  std::vector<txn_copy> complete_before(std::size_t bytes) const {
    std::vector<txn_copy> out;
    for (std::size_t g = 0; g < groups.size(); ++g)
      if (ends[g] <= bytes) out.insert(out.end(), groups[g].begin(), groups[g].end());
    return out;
  }
};

TEST(log, a_torn_tail_at_any_byte_keeps_every_complete_group) {
  three_groups log;
  const std::string whole = file_bytes(log.segment);
  for (std::size_t cut = 0; cut <= whole.size(); ++cut) {
    write_file(log.segment, std::string_view(whole).substr(0, cut));
    log_scan scan;
    ASSERT_EQ(read_back(log.dir.path, &scan, true), log.complete_before(cut)) << "cut at " << cut;
    std::size_t kept = cut >= log.opening ? log.opening : 0;
    for (std::size_t e : log.ends)
      if (e <= cut) kept = e;
    EXPECT_EQ(scan.torn_bytes, cut - kept) << "cut at " << cut;
    EXPECT_EQ(fs::file_size(log.segment), kept) << "the torn tail was not cut off";
  }
}

TEST(log, garbage_over_the_last_group_is_a_torn_tail) {
  three_groups log;
  std::mt19937_64 rng(3);
  const std::string whole = file_bytes(log.segment);
  for (int round = 0; round < 200; ++round) {
    std::string bytes = whole;
    const std::size_t from = log.ends[1] + rng() % (log.ends[2] - log.ends[1]);
    for (std::size_t i = from; i < bytes.size(); ++i) bytes[i] = static_cast<char>(rng());
    write_file(log.segment, bytes);
    EXPECT_EQ(read_back(log.dir.path), log.complete_before(log.ends[1])) << "garbage from byte " << from;
  }
}

TEST(log, every_segment_opens_with_a_group_synced_alone) {
  temp_dir dir;
  three_segments(dir.path, 7);
  for (std::uint64_t n = 1; n <= 3; ++n) {
    const fs::path path = dir.path / segment_name(n);
    const std::string bytes = file_bytes(path);
    const group_view g = decode_group(bytes);
    ASSERT_EQ(g.state, group_state::complete) << segment_name(n);
    EXPECT_EQ(g.transactions, 0u);
    EXPECT_EQ(g.bytes, opening_group_bytes);
    EXPECT_GT(bytes.size(), g.bytes) << segment_name(n) << " holds its opening group alone";
  }
}

// Each segment names its log and itself; a writer that opens the log again
// keeps the name, and a writer of another log draws another.
TEST(log, every_segment_names_its_log_and_itself) {
  temp_dir dir, other;
  three_segments(dir.path, 7);
  const auto identity_of = [](const fs::path& path) {
    const std::string bytes = file_bytes(path);
    const group_view g = decode_group(bytes);
    EXPECT_EQ(g.state, group_state::complete) << path;
    EXPECT_TRUE(g.opening) << path;
    EXPECT_TRUE(decode_transactions(g).empty());
    return g.identity;
  };
  const std::uint64_t log = identity_of(dir.path / segment_name(1)).log;
  EXPECT_NE(log, 0u);
  for (std::uint64_t n = 1; n <= 3; ++n)
    EXPECT_EQ(identity_of(dir.path / segment_name(n)), (segment_identity{log, n}));
  {
    log_writer again(dir.path);
    EXPECT_EQ(again.segment(), 4u);
    EXPECT_EQ(again.log(), log);
  }
  EXPECT_EQ(identity_of(dir.path / segment_name(4)), (segment_identity{log, 4}));
  log_scan scan;
  read_back(dir.path, &scan);
  EXPECT_EQ(scan.log, log);
  EXPECT_EQ(scan.identified_from, 1u);
  three_segments(other.path, 7);
  EXPECT_NE(identity_of(other.path / segment_name(1)).log, log);
  EXPECT_THROW(seal_opening({0, 1}), std::invalid_argument);
}

// The same segment under the name of a later one, or a segment of another
// log whose commits all come after this log's: every group is sound and
// moves forward in time, and only the opening group tells.
TEST(log, a_segment_from_another_log_with_later_commits_is_reported) {
  temp_dir dir, other;
  three_segments(dir.path, 5);  // commits 1 to 3
  {
    std::mt19937_64 rng(6);
    log_writer writer(other.path, 1);
    for (std::uint64_t c = 11; c <= 14; ++c) writer.append(seal({random_txn(rng, c)}));
    writer.sync();
  }
  const auto refused_with = [&](const fs::path& from, const std::string& says) {
    fs::copy_file(from, dir.path / segment_name(4), fs::copy_options::overwrite_existing);
    try {
      read_back(dir.path);
      ADD_FAILURE() << from << " was read as sound";
    } catch (const log_corruption& e) {
      EXPECT_NE(std::string(e.what()).find(segment_name(4)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused_with(other.path / segment_name(4), "another log");  // the right number, another log
  refused_with(other.path / segment_name(3), "renamed");
  fs::remove(dir.path / segment_name(4));
  EXPECT_EQ(read_back(dir.path).size(), 3u);
}

// Segments of older builds open with an empty group (or with none) and name
// no log. They are read where they come first, as the log a directory of
// format 3 holds when a writer of this build goes on after it; after a
// segment that names a log, one that names none is not this log's.
TEST(log, segments_that_name_no_log_are_read_only_before_those_that_do) {
  temp_dir dir;
  std::mt19937_64 rng(10);
  std::vector<std::vector<txn_copy>> oracle;
  for (std::uint64_t n = 1; n <= 2; ++n) {  // as the older writer made them
    oracle.push_back({random_txn(rng, n)});
    write_file(dir.path / segment_name(n), group_builder{}.seal(0) + seal(oracle.back()));
  }
  std::uint64_t log = 0, last = 0;
  {
    log_writer writer(dir.path, 1);
    log = writer.log();
    for (std::uint64_t c = 3; c <= 4; ++c) {
      oracle.push_back({random_txn(rng, c)});
      writer.append(seal(oracle.back()));
    }
    writer.sync();
    last = writer.segment();
  }
  std::vector<txn_copy> expect;
  for (const auto& g : oracle) expect.insert(expect.end(), g.begin(), g.end());
  log_scan scan;
  EXPECT_EQ(read_back(dir.path, &scan), expect);
  EXPECT_EQ(scan.log, log);
  EXPECT_EQ(scan.identified_from, 3u);
  // One more segment as the older writer made it, with a later commit.
  const fs::path late = dir.path / segment_name(last + 1);
  write_file(late, group_builder{}.seal(0) + seal({random_txn(rng, 9)}));
  try {
    read_back(dir.path);
    ADD_FAILURE() << "a segment that names no log was read after those that do";
  } catch (const log_corruption& e) {
    EXPECT_NE(std::string(e.what()).find(late.filename().string() + " names no log"), std::string::npos)
        << e.what();
  }
}

// A crash tears a segment's first bytes only while they are all it holds;
// a longer segment whose first group is gone was overwritten (by zeros or
// anything else), and cutting it would drop every synced group in it.
TEST(log, a_segment_damaged_from_its_first_byte_is_reported_not_cut) {
  three_groups log;
  std::mt19937_64 rng(8);
  const std::string whole = file_bytes(log.segment);
  for (int round = 0; round < 50; ++round) {
    std::string bytes = whole;
    const bool zeros = round % 2 == 0;
    const std::size_t length = opening_group_bytes + 1 + rng() % (bytes.size() - opening_group_bytes);
    bytes.resize(length);
    for (char& c : bytes) c = zeros ? '\0' : static_cast<char>(rng());
    write_file(log.segment, bytes);
    EXPECT_THROW(read_back(log.dir.path, nullptr, true), log_corruption) << length << " bytes of " << (zeros ? "zeros" : "garbage");
    EXPECT_EQ(fs::file_size(log.segment), length) << "a damaged segment was cut";
  }
  // No longer than its opening group: a crash in that group's write, cut.
  write_file(log.segment, std::string(opening_group_bytes, '\0'));
  log_scan scan;
  EXPECT_TRUE(read_back(log.dir.path, &scan, true).empty());
  EXPECT_EQ(scan.torn_bytes, opening_group_bytes);
  EXPECT_EQ(fs::file_size(log.segment), 0u);
}

// Segments written before segments had opening groups began with a group
// of commits: one torn by a crash is a sound header cut short at byte 0,
// and is cut as before.
TEST(log, a_segment_without_an_opening_group_torn_in_its_first_group_is_cut) {
  temp_dir dir;
  std::mt19937_64 rng(9);
  std::vector<txn_copy> txns;
  for (int t = 0; t < 5; ++t) txns.push_back(random_txn(rng, 1 + static_cast<std::uint64_t>(t)));
  const std::string group = seal(txns);
  ASSERT_GT(group.size(), 2 * group_header_bytes);
  const fs::path path = dir.path / segment_name(1);
  const std::size_t torn = group_header_bytes + 1 + rng() % (group.size() - group_header_bytes - 1);
  write_file(path, std::string_view(group).substr(0, torn));
  log_scan scan;
  EXPECT_TRUE(read_back(dir.path, &scan, true).empty());
  EXPECT_EQ(scan.torn_bytes, torn);
  EXPECT_EQ(fs::file_size(path), 0u);
}

TEST(log, a_flipped_byte_before_the_tail_is_reported_not_skipped) {
  three_groups log;
  const std::string whole = file_bytes(log.segment);
  for (std::size_t at = 0; at < log.ends[1]; ++at) {
    std::string bytes = whole;
    bytes[at] = static_cast<char>(bytes[at] ^ 0x10);
    write_file(log.segment, bytes);
    try {
      read_back(log.dir.path);
      ADD_FAILURE() << "a flipped byte at " << at << " went unnoticed";
    } catch (const log_corruption& e) {
      EXPECT_NE(std::string(e.what()).find(log.segment.filename().string()), std::string::npos) << e.what();
    }
  }
}

TEST(log, a_writer_opened_after_a_crash_cuts_the_torn_tail_first) {
  three_groups log;
  fs::resize_file(log.segment, log.ends[2] - 5);  // the crash tore the last group
  std::mt19937_64 rng(6);
  const txn_copy later = random_txn(rng, 100);
  {
    log_writer writer(log.dir.path);  // as a restarted engine would
    writer.append(seal({later}));
    writer.sync();
  }
  log_scan scan;
  std::vector<txn_copy> expect = log.complete_before(log.ends[1]);
  expect.push_back(later);
  EXPECT_EQ(read_back(log.dir.path, &scan), expect);
  EXPECT_EQ(scan.torn_bytes, 0u);
}

TEST(log, a_group_of_another_format_version_is_never_cut_off) {
  three_groups log;
  std::string bytes = file_bytes(log.segment);
  // A later build's last group: a sound header (its own checksum) of version 2.
  group_builder b;
  b.add(99, {});
  std::string foreign = b.seal(99);
  foreign[4] = 2;
  const std::uint64_t header_sum = XXH3_64bits(foreign.data(), 48);  // as that build would write it
  for (int i = 0; i < 8; ++i) foreign[static_cast<std::size_t>(48 + i)] = static_cast<char>(header_sum >> (8 * i));
  bytes += foreign;
  write_file(log.segment, bytes);
  EXPECT_ANY_THROW(read_back(log.dir.path, nullptr, true));
  EXPECT_EQ(fs::file_size(log.segment), bytes.size()) << "a foreign group was cut off";
}

// Sound groups (their checksums match) with values no engine writes, as a
// checksum collision or a bug could leave them; the fuzz tests found that a
// timestamp past 2^63 was replayed as a pending stamp, which hid the records.
TEST(log, timestamps_no_clock_reaches_are_corruption) {
  group_builder b;
  b.add(5, {});
  b.add(6, {});
  const std::string sound = b.seal(6);
  std::string same = sound;
  fuzz::reseal_groups(same);
  ASSERT_EQ(same, sound) << "the fuzz tests' reseal_groups no longer follows the format";
  const auto with = [&](std::size_t field, std::uint64_t v) {
    std::string g = sound;
    for (std::size_t i = 0; i < 8; ++i) g[field + i] = static_cast<char>((v >> (8 * i)) & 0xff);
    fuzz::reseal_groups(g);
    return g;
  };
  for (const std::size_t field : {16, 24, 32}) {  // the first and last commit, through
    EXPECT_THROW(decode_group(with(field, timestamp_limit)), log_corruption) << field;
  }
  EXPECT_EQ(decode_group(with(32, timestamp_limit - 1)).state, group_state::complete);
  // A commit outside its group's first and last.
  EXPECT_EQ(decode_transactions(decode_group(sound)).size(), 2u);
  const std::string late_first = with(16, 6), early_last = with(24, 5);
  EXPECT_THROW(decode_transactions(decode_group(late_first)), log_corruption);
  EXPECT_THROW(decode_transactions(decode_group(early_last)), log_corruption);
}

TEST(log, damage_in_an_earlier_segment_is_reported) {
  temp_dir dir;
  three_segments(dir.path, 4);
  const fs::path first = dir.path / segment_name(1);
  const auto size = fs::file_size(first);
  fs::resize_file(first, size - 1);  // torn, but not at the end of the log
  EXPECT_THROW(read_back(dir.path), log_corruption);
}

TEST(log, a_segment_repeated_or_from_another_log_is_reported) {
  // Checksums cannot tell: every group of such a segment is sound.
  for (const bool foreign : {false, true}) {
    temp_dir dir, other;
    three_segments(dir.path, 5);
    three_segments(other.path, 6);
    const fs::path copy = (foreign ? other.path : dir.path) / segment_name(foreign ? 3 : 1);
    fs::copy_file(copy, dir.path / segment_name(4));
    try {
      read_back(dir.path);
      ADD_FAILURE() << (foreign ? "a segment of another log" : "a repeated segment") << " was read as sound";
    } catch (const log_corruption& e) {
      EXPECT_NE(std::string(e.what()).find(segment_name(4)), std::string::npos) << e.what();
    }
  }
}

TEST(log, builders_reused_from_group_to_group_keep_every_byte) {
  // As the flusher uses them: a worker's builder fills, is taken into a
  // round's builder, and both are filled again over the bytes they kept.
  // Keys and values of every length to 40 bytes (the copy takes a different
  // path below 4, 8 and past 16), and groups large enough to grow.
  std::mt19937_64 rng(17);
  group_builder worker, spare, round;
  std::uint64_t commit = 1;
  for (int g = 0; g < 60; ++g) {
    std::vector<txn_copy> oracle;
    const std::size_t txns = 1 + rng() % (g % 10 == 9 ? 2000 : 20);
    for (std::size_t t = 0; t < txns; ++t) {
      txn_copy c{commit++, {}};
      for (std::size_t w = rng() % 5; w > 0; --w) {
        write_copy wc{static_cast<std::uint32_t>(rng() % 3), write_op::put, std::string(rng() % 41, 'k'),
                      std::string(rng() % 41, 'v')};
        for (char& ch : wc.key) ch = static_cast<char>(rng());
        for (char& ch : wc.value) ch = static_cast<char>(rng());
        c.writes.push_back(std::move(wc));
      }
      std::vector<logged_write> ws;
      for (const write_copy& w : c.writes) ws.push_back({w.table, w.op, w.key, w.value});
      (rng() % 2 == 0 ? worker : round).add(c.commit, ws);
      if (rng() % 7 == 0) {
        // The flusher's swap: the worker goes on in the spare's memory.
        std::swap(worker, spare);
        round.take(spare);
      }
      oracle.push_back(std::move(c));
    }
    std::swap(worker, spare);
    round.take(spare);
    EXPECT_TRUE(worker.empty());
    EXPECT_TRUE(spare.empty());
    const std::uint64_t first = oracle.front().commit, last = oracle.back().commit;
    round.take(round);  // taking itself keeps what it holds
    // Each transaction once, whichever builder held it: compared in commit order.
    const std::string bytes = round.seal(commit);
    EXPECT_TRUE(round.empty());
    const group_view v = decode_group(bytes);
    ASSERT_EQ(v.state, group_state::complete);
    EXPECT_EQ(v.first_commit, first);
    EXPECT_EQ(v.last_commit, last);
    EXPECT_EQ(v.transactions, oracle.size());
    std::vector<logged_transaction> got;
    decode_transactions(v, got);
    ASSERT_EQ(got.size(), oracle.size());
    std::vector<txn_copy> sorted;
    for (const logged_transaction& t : got) sorted.push_back(copy_of(t));
    std::sort(sorted.begin(), sorted.end(),
              [](const txn_copy& a, const txn_copy& b) { return a.commit < b.commit; });
    EXPECT_EQ(sorted, oracle) << "group " << g;
  }
}

TEST(log, a_payload_that_does_not_parse_is_corruption_whatever_its_counts_say) {
  std::mt19937_64 rng(9);
  std::vector<txn_copy> txns;
  for (std::uint64_t c = 1; c <= 5; ++c) txns.push_back(random_txn(rng, c));
  txns[0].writes.push_back({1, write_op::put, "k", "v"});  // at least one write in the first
  const std::string bytes = seal(txns);
  const group_view g = decode_group(bytes);
  ASSERT_EQ(g.state, group_state::complete);
  std::vector<logged_transaction> reused;
  decode_transactions(g, reused);
  decode_transactions(g, reused);  // a second time into the same vector: the same transactions
  ASSERT_EQ(reused.size(), txns.size());
  for (std::size_t i = 0; i < txns.size(); ++i) EXPECT_EQ(copy_of(reused[i]), txns[i]);
  // The first transaction's write count (bytes 8-11 of the payload), as a
  // checksum collision or a bug could leave it: an error, not an allocation.
  for (const std::uint32_t writes : {0xffffffffu, 0x10000000u, static_cast<std::uint32_t>(txns[0].writes.size() + 1)}) {
    std::string payload(g.payload);
    for (int i = 0; i < 4; ++i) payload[static_cast<std::size_t>(8 + i)] = static_cast<char>(writes >> (8 * i));
    group_view bad = g;
    bad.payload = payload;
    EXPECT_THROW(decode_transactions(bad, reused), log_corruption) << writes;
  }
}

TEST(log, a_failed_write_fails_every_later_call) {
  temp_dir dir;
  std::mt19937_64 rng(5);
  log_writer writer(dir.path);
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);  // see the error instead of dying
  struct rlimit small = old;
  small.rlim_cur = 8192;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool failed = false;
  std::uint64_t commit = 1;
  for (int i = 0; i < 1000 && !failed; ++i) {
    try {
      writer.append(seal({random_txn(rng, commit++)}));
    } catch (const std::system_error&) {
      failed = true;
    }
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, old_handler);
  ASSERT_TRUE(failed) << "the file size limit was never reached";
  EXPECT_THROW(writer.append(seal({random_txn(rng, commit++)})), std::system_error);
  EXPECT_THROW(writer.sync(), std::system_error);
}

}  // namespace
}  // namespace weave::durability

namespace weave::durability {
namespace {

// Groups of the given commits (one write each), their `through`, whether each is a restart.
struct planned_group {
  std::vector<std::uint64_t> commits;
  std::uint64_t through;
  bool restart = false;
};

std::vector<std::uint64_t> replayed(const std::vector<planned_group>& plan, std::uint64_t after,
                                    log_replay* result = nullptr) {
  temp_dir dir;
  {
    log_writer writer(dir.path, 4096);
    for (const planned_group& p : plan) {
      group_builder b;
      for (std::uint64_t c : p.commits) {
        const std::string key = std::to_string(c);
        const logged_write w{0, write_op::put, key, "v"};
        b.add(c, {&w, 1});
      }
      writer.append(b.seal(p.through, p.restart));
    }
    writer.sync();
  }
  std::vector<std::uint64_t> out;
  const log_replay r = replay_log(dir.path, after, [&](const logged_transaction& t) {
    EXPECT_EQ(t.writes.size(), 1u);
    EXPECT_EQ(t.writes[0].key, std::to_string(t.commit)) << "a held transaction lost its bytes";
    out.push_back(t.commit);
  });
  if (result != nullptr) *result = r;
  return out;
}

TEST(replay, a_missing_segment_after_the_checkpoint_is_reported) {
  std::mt19937_64 rng(31);
  temp_dir dir;
  std::uint64_t commit = 1;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> segments;  // number, last commit
  {
    log_writer writer(dir.path, 4096);
    while (writer.segment() < 6) {
      std::vector<txn_copy> txns;
      for (int t = 0; t < 4; ++t) txns.push_back(random_txn(rng, commit++));
      writer.append(seal(txns), commit - 1);
      if (segments.empty() || segments.back().first != writer.segment())
        segments.emplace_back(writer.segment(), 0);
      segments.back().second = commit - 1;
    }
    writer.sync();
  }
  const auto replay = [&](std::uint64_t after) {
    return replay_log(dir.path, after, [](const logged_transaction&) {});
  };
  EXPECT_NO_THROW(replay(0));
  // The third segment gone: a checkpoint before the second's last commit
  // does not cover what the third held.
  ASSERT_GE(segments.size(), 4u);
  fs::remove(dir.path / segment_name(segments[2].first));
  EXPECT_THROW(replay(0), log_corruption);
  EXPECT_THROW(replay(segments[1].second - 1), log_corruption);
  // A checkpoint at or past the second's last commit may have removed the
  // third (and a crash kept the second's name).
  EXPECT_NO_THROW(replay(segments[1].second));
}

TEST(replay, counts_a_transaction_once_a_through_reaches_it) {
  // 6 went out with a group whose `through` (5) it is past: a commit in
  // flight; the next group's `through` counts it.
  log_replay r;
  EXPECT_EQ(replayed({{{3, 6, 4}, 5}, {{7, 8}, 8}}, 0, &r), (std::vector<std::uint64_t>{3, 4, 7, 8, 6}));
  EXPECT_EQ(r.applied, 5u);
  EXPECT_EQ(r.discarded, 0u);
  EXPECT_EQ(r.through, 8u);
  EXPECT_EQ(r.last_commit, 8u);
}

TEST(replay, a_restart_discards_what_no_through_reached) {
  // 9 was never counted before the process ended; the next run's first
  // group discards it, so a later `through` cannot bring it back.
  log_replay r;
  EXPECT_EQ(replayed({{{3}, 3}, {{9}, 7}, {{}, 7, true}, {{10, 11}, 11}}, 0, &r),
            (std::vector<std::uint64_t>{3, 10, 11}));
  EXPECT_EQ(r.discarded, 1u);
  EXPECT_EQ(r.last_commit, 11u);
}

TEST(replay, what_no_through_reached_at_the_end_is_discarded) {
  log_replay r;
  EXPECT_EQ(replayed({{{3, 4}, 3}}, 0, &r), (std::vector<std::uint64_t>{3}));
  EXPECT_EQ(r.discarded, 1u);
  EXPECT_EQ(r.last_commit, 4u);
}

TEST(replay, skips_what_the_checkpoint_holds) {
  EXPECT_EQ(replayed({{{3, 6, 4}, 5}, {{7, 8}, 8}}, 5), (std::vector<std::uint64_t>{7, 8, 6}));
}

TEST(replay, a_log_that_goes_back_is_reported) {
  // A commit that an earlier group's `through` reached cannot come later:
  // every commit at or before a `through` is in its group or before it.
  EXPECT_THROW(replayed({{{3, 4}, 4}, {{4, 5}, 5}}, 0), log_corruption);
  EXPECT_THROW(replayed({{{3, 4}, 4}, {{2}, 4}}, 0), log_corruption);
  // Nor does a `through` fall back.
  EXPECT_THROW(replayed({{{3, 4}, 6}, {{}, 5}}, 0), log_corruption);
  // A restart's `through` is past every commit before it.
  EXPECT_NO_THROW(replayed({{{3, 4}, 4}, {{9}, 4}, {{}, 9, true}, {{10}, 10}}, 0));
}

TEST(replay, a_random_plan_applies_exactly_the_counted_commits) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 200; ++round) {
    // Commits in flight reach a group up to 3 rounds before `through` does.
    std::vector<planned_group> plan;
    std::vector<std::uint64_t> expect;
    std::vector<std::uint64_t> flight;  // logged, not yet counted
    std::uint64_t next = 1, through = 0;
    const std::size_t groups = 1 + rng() % 12;
    for (std::size_t g = 0; g < groups; ++g) {
      planned_group p{{}, 0, rng() % 6 == 0};
      if (p.restart) {
        flight.clear();  // a crash: what was in flight is gone
        p.through = through;
        plan.push_back(p);
        continue;
      }
      for (std::size_t i = rng() % 5; i > 0; --i) {
        p.commits.push_back(next);
        flight.push_back(next++);
      }
      if (next > 1) through = std::max<std::uint64_t>(through, next - 1 - std::min<std::uint64_t>(next - 1, rng() % 3));
      p.through = through;
      std::erase_if(flight, [&](std::uint64_t c) {
        if (c > through) return false;
        expect.push_back(c);
        return true;
      });
      plan.push_back(p);
    }
    std::vector<std::uint64_t> got = replayed(plan, 0);
    std::sort(got.begin(), got.end());
    std::sort(expect.begin(), expect.end());
    ASSERT_EQ(got, expect) << "round " << round;
  }
}

}  // namespace
}  // namespace weave::durability
