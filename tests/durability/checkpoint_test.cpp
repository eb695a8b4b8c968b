#include "weave/durability/checkpoint.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "support/file_bytes.hpp"
#include "support/temp_dir.hpp"

namespace weave::durability {
namespace {

namespace fs = std::filesystem;

using test_support::file_bytes;
using test_support::temp_dir;

using record = std::tuple<std::uint32_t, std::string, std::string>;

std::vector<record> write_random(const fs::path& dir, std::uint64_t snapshot, std::size_t count,
                                 std::mt19937_64& rng, std::uint64_t log = 0) {
  std::vector<record> out;
  checkpoint_writer w(dir, snapshot, log);
  for (std::size_t i = 0; i < count; ++i) {
    record r{static_cast<std::uint32_t>(rng() % 5), std::to_string(rng()), std::string(rng() % 400, 'x')};
    for (char& c : std::get<2>(r)) c = static_cast<char>(rng());
    w.add(std::get<0>(r), std::get<1>(r), std::get<2>(r));
    out.push_back(std::move(r));
  }
  w.finish();
  return out;
}

std::vector<record> read_all(const fs::path& dir, std::uint64_t snapshot) {
  std::vector<record> out;
  read_checkpoint(dir, snapshot, [&](std::uint32_t t, std::string_view k, std::string_view v) {
    out.emplace_back(t, std::string(k), std::string(v));
  });
  return out;
}

TEST(checkpoint, reads_back_every_record_across_groups) {
  temp_dir dir;
  std::mt19937_64 rng(1);
  const auto written = write_random(dir.path, 42, 20000, rng);  // about 4 MiB: several groups
  EXPECT_EQ(read_all(dir.path, 42), written);
  EXPECT_EQ(newest_checkpoint(dir.path), 42u);
  const auto empty = write_random(dir.path, 43, 0, rng);
  EXPECT_TRUE(read_all(dir.path, 43).empty());
  EXPECT_EQ(newest_checkpoint(dir.path), 43u);
}

// The reader takes a checkpoint 16 MiB at a time: groups straddle its reads,
// and a record larger than a read grows its buffer.
TEST(checkpoint, reads_back_groups_across_its_reads_and_one_larger_than_a_read) {
  temp_dir dir;
  std::mt19937_64 rng(3);
  std::vector<record> written;
  {
    checkpoint_writer w(dir.path, 5);
    for (std::size_t i = 0; i < 90000; ++i) {
      const std::size_t value_bytes = i == 50000 ? std::size_t{40} << 20 : rng() % 800;
      record r{static_cast<std::uint32_t>(rng() % 3), std::to_string(i),
               std::string(value_bytes, char('a' + i % 26))};
      w.add(std::get<0>(r), std::get<1>(r), std::get<2>(r));
      written.push_back(std::move(r));
    }
    w.finish();
  }
  EXPECT_GT(fs::file_size(dir.path / checkpoint_name(5)), std::uintmax_t{64} << 20);
  EXPECT_EQ(read_all(dir.path, 5), written);
}

// A checkpoint of a log opens with a group that names the log; one of an
// older build names none. An opening group anywhere else, or naming a
// segment, is damage.
TEST(checkpoint, names_its_log_in_an_opening_group_first_or_not_at_all) {
  temp_dir dir;
  std::mt19937_64 rng(4);
  const auto named = write_random(dir.path, 11, 500, rng, 0x1234);
  checkpoint_info info = read_checkpoint(dir.path, 11, {});
  EXPECT_EQ(info.log, 0x1234u);
  EXPECT_EQ(info.records, 500u);
  EXPECT_EQ(read_all(dir.path, 11), named);
  const std::string whole = file_bytes(dir.path / checkpoint_name(11));
  EXPECT_EQ(whole.substr(0, opening_group_bytes), seal_opening({0x1234, 0}));
  write_random(dir.path, 12, 5, rng);
  EXPECT_EQ(read_checkpoint(dir.path, 12, {}).log, 0u);
  const std::string body = whole.substr(opening_group_bytes);
  const auto refused = [&](const std::string& bytes) {
    std::ofstream(dir.path / checkpoint_name(11), std::ios::binary | std::ios::trunc) << bytes;
    EXPECT_THROW(read_checkpoint(dir.path, 11, {}), log_corruption);
  };
  refused(seal_opening({0x1234, 1}) + body);                              // a segment's
  refused(seal_opening({0x1234, 0}) + seal_opening({0x1234, 0}) + body);  // twice
  refused(body.substr(0, body.size() - group_header_bytes) + seal_opening({0x1234, 0}) +
          body.substr(body.size() - group_header_bytes));  // before the end marker
}

TEST(checkpoint, an_unfinished_checkpoint_leaves_nothing) {
  temp_dir dir;
  {
    checkpoint_writer w(dir.path, 7);
    w.add(0, "k", "v");
  }  // a crash or an exception before finish()
  EXPECT_TRUE(fs::is_empty(dir.path));
  EXPECT_FALSE(newest_checkpoint(dir.path).has_value());
}

TEST(checkpoint, any_damage_is_reported_even_at_the_end) {
  temp_dir dir;
  std::mt19937_64 rng(2);
  write_random(dir.path, 9, 3000, rng);
  const fs::path path = dir.path / checkpoint_name(9);
  const std::string whole = file_bytes(path);
  for (int round = 0; round < 300; ++round) {
    std::string bytes = whole;
    // Half the rounds in the last 4 KiB: a checkpoint has no tail to forgive.
    const std::size_t at = round % 2 ? rng() % bytes.size() : bytes.size() - 1 - rng() % 4096;
    bytes[at] = static_cast<char>(bytes[at] ^ (1 << (rng() % 8)));
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    EXPECT_THROW(read_all(dir.path, 9), log_corruption) << "a flipped bit at byte " << at;
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(whole.data(), static_cast<std::streamsize>(whole.size() - 3));
  EXPECT_THROW(read_all(dir.path, 9), log_corruption);
}

// Cut at a group boundary, or emptied, a checkpoint would read as a smaller
// sound one; its end marker makes that damage too, as are bytes after it.
TEST(checkpoint, one_cut_short_between_groups_or_emptied_is_reported) {
  temp_dir dir;
  std::mt19937_64 rng(4);
  write_random(dir.path, 11, 20000, rng);  // several groups
  const fs::path path = dir.path / checkpoint_name(11);
  const std::string whole = file_bytes(path);
  std::vector<std::size_t> boundaries;
  for (std::size_t at = 0; at < whole.size();) {
    boundaries.push_back(at);
    const group_view g = decode_group(std::string_view(whole).substr(at));
    ASSERT_EQ(g.state, group_state::complete);
    at += g.bytes;
  }
  ASSERT_GE(boundaries.size(), 4u);  // 0, groups of records, the end marker
  const auto rewrite = [&](std::string_view bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  };
  for (const std::size_t cut : boundaries) {
    rewrite(std::string_view(whole).substr(0, cut));
    EXPECT_THROW(read_all(dir.path, 11), log_corruption) << "cut at byte " << cut << " of " << whole.size();
  }
  rewrite(whole + whole.substr(boundaries[1], boundaries[2] - boundaries[1]));  // a sound group after the end
  EXPECT_THROW(read_all(dir.path, 11), log_corruption);
  rewrite(whole);
  EXPECT_EQ(read_all(dir.path, 11).size(), 20000u);
}

TEST(checkpoint, names_round_trip_and_strangers_are_ignored) {
  EXPECT_EQ(checkpoint_snapshot(checkpoint_name(123456789)), 123456789u);
  EXPECT_FALSE(checkpoint_snapshot("checkpoint-1.wck").has_value());
  EXPECT_FALSE(checkpoint_snapshot(checkpoint_name(5) + ".tmp").has_value());
  EXPECT_FALSE(checkpoint_snapshot("wal-000001.log").has_value());
  // No engine takes a snapshot at or past 2^62 (log_format.hpp).
  EXPECT_FALSE(checkpoint_snapshot(checkpoint_name(timestamp_limit)).has_value());
  EXPECT_EQ(checkpoint_snapshot(checkpoint_name(timestamp_limit - 1)), timestamp_limit - 1);
}

}  // namespace
}  // namespace weave::durability
