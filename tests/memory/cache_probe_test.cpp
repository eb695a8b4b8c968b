#include "weave/memory/cache_probe.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "weave/memory/machine.hpp"

namespace weave::machine {
namespace {

constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::size_t GiB = std::size_t{1} << 30;

// ---------------------------------------------------------------------------
// WEAVE_CACHE_SIZES

TEST(cache_override, reads_both_sizes_in_any_order_with_binary_suffixes) {
  cache_override given = parse_cache_override("l1d=48K,llc=32M");
  EXPECT_EQ(given.l1d_bytes, 48 * KiB);
  EXPECT_EQ(given.llc_bytes, 32 * MiB);
  given = parse_cache_override(" llc = 1GiB , L1D = 32kib ");
  EXPECT_EQ(given.l1d_bytes, 32 * KiB);
  EXPECT_EQ(given.llc_bytes, GiB);
  given = parse_cache_override("llc=8Mi");
  EXPECT_EQ(given.l1d_bytes, 0u);
  EXPECT_EQ(given.llc_bytes, 8 * MiB);
  given = parse_cache_override("l1d=65536");
  EXPECT_EQ(given.l1d_bytes, 64 * KiB);
  EXPECT_EQ(given.llc_bytes, 0u);
  EXPECT_EQ(parse_cache_override("llc=2G").llc_bytes, 2 * GiB);
  EXPECT_EQ(parse_cache_override("l1d=1K").l1d_bytes, KiB);
  EXPECT_EQ(parse_cache_override("llc=1024G").llc_bytes, 1024 * GiB);
}

TEST(cache_override, empty_text_overrides_nothing) {
  for (const char* text : {"", "  "}) {
    const cache_override given = parse_cache_override(text);
    EXPECT_EQ(given.l1d_bytes, 0u);
    EXPECT_EQ(given.llc_bytes, 0u);
  }
}

TEST(cache_override, bad_text_gets_a_one_line_error_naming_the_variable) {
  const char* bad[] = {
      "l1d",                              // no size
      "l1d=",                             // empty size
      "=48K",                             // no key
      "l1d=48X",                          // unknown suffix
      "l1d=48KB",                         // unknown suffix (K, Ki or KiB)
      "l1d=K",                            // no number
      "l1d=-1K",                          // negative
      "l1d=1.5M",                         // not an integer
      "l1d=48K,",                         // empty item
      ",",                                // empty items
      "l1d=48K;llc=32M",                  // wrong separator
      "l2=1M",                            // unknown cache
      "l1d=48K,l1d=32K",                  // twice
      "l1d=64M,llc=32M",                  // l1d larger than llc
      "l1d=512",                          // less than 1 KiB: surely not bytes
      "llc=2048G",                        // more than 1 TiB
      "llc=99999999999999999999999999K",  // out of range
      "llc=32M\nl1d=48K",                 // a newline
      "l1d=048K",                         // a leading zero, refused on the command line too
  };
  for (const char* text : bad) {
    try {
      parse_cache_override(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("WEAVE_CACHE_SIZES=", 0), 0u) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

// ---------------------------------------------------------------------------
// The boundary rule

// Sizes 4 KiB, 6 KiB, 8 KiB, 12 KiB, ... up to `max`, with latencies from `ns`.
std::vector<latency_point> make_curve(std::size_t max, const std::function<double(std::size_t)>& ns) {
  std::vector<latency_point> curve;
  for (std::size_t base = 4 * KiB; base <= max; base *= 2) {
    curve.push_back({base, ns(base)});
    if (base + base / 2 <= max) curve.push_back({base + base / 2, ns(base + base / 2)});
  }
  return curve;
}

// L1 32 KiB at 1 ns, L2 768 KiB at 4 ns, L3 32 MiB at 12-20 ns, memory at
// 90 ns, with a step of transition after each.
double four_levels(std::size_t bytes) {
  if (bytes <= 32 * KiB) return 1.0;
  if (bytes <= 48 * KiB) return 2.2;
  if (bytes <= 768 * KiB) return 4.0;
  if (bytes <= 1 * MiB) return 7.0;
  if (bytes <= 24 * MiB) return 12.0 + static_cast<double>(bytes / MiB) * 0.1;  // a little TLB slope
  if (bytes <= 32 * MiB) return 20.0;
  if (bytes <= 48 * MiB) return 60.0;
  return 90.0;
}

TEST(find_boundaries, finds_l1_and_the_last_cache_on_four_plateaus) {
  const auto curve = make_curve(256 * MiB, four_levels);
  const cache_boundaries found = find_boundaries(curve);
  EXPECT_EQ(found.l1d_bytes, 32 * KiB);
  EXPECT_EQ(found.llc_bytes, 32 * MiB);
  EXPECT_TRUE(found.memory_reached);
}

TEST(find_boundaries, ignores_spikes) {
  auto curve = make_curve(256 * MiB, four_levels);
  for (latency_point& point : curve) {
    if (point.bytes == 8 * KiB || point.bytes == 256 * KiB || point.bytes == 4 * MiB) point.ns *= 6;
  }
  const cache_boundaries found = find_boundaries(curve);
  EXPECT_EQ(found.l1d_bytes, 32 * KiB);
  EXPECT_EQ(found.llc_bytes, 32 * MiB);
  EXPECT_TRUE(found.memory_reached);
}

TEST(find_boundaries, reads_noisy_curves_measured_on_a_busy_vm) {
  // AMD EPYC VM (sysfs: L1d 32 KiB, L2 1 MiB, L3 32 MiB) with compilers
  // running: a last cache of about 4 MiB, whose end moves while neighbours
  // come and go (a dip at 12 MiB, a spike at 1.5 MiB). A spike just before
  // the end, or a dip just after, would tie two splits: the smaller wins.
  const std::vector<latency_point> dip{
      {4 * KiB, 1.08},   {6 * KiB, 1.10},   {8 * KiB, 1.08},     {12 * KiB, 1.08},  {16 * KiB, 1.10},
      {24 * KiB, 1.12},  {32 * KiB, 1.25},  {48 * KiB, 3.85},    {64 * KiB, 3.82},  {96 * KiB, 3.81},
      {128 * KiB, 3.84}, {192 * KiB, 3.83}, {256 * KiB, 3.82},   {384 * KiB, 4.38}, {512 * KiB, 5.19},
      {768 * KiB, 6.23}, {1 * MiB, 8.99},   {1536 * KiB, 68.83}, {2 * MiB, 13.80},  {3 * MiB, 14.66},
      {4 * MiB, 17.93},  {6 * MiB, 133.21}, {8 * MiB, 139.80},   {12 * MiB, 52.52}, {16 * MiB, 150.2},
      {24 * MiB, 160.1}, {32 * MiB, 165.3}};
  cache_boundaries found = find_boundaries(dip);
  EXPECT_EQ(found.l1d_bytes, 32 * KiB);
  EXPECT_EQ(found.llc_bytes, 4 * MiB);
  EXPECT_TRUE(found.memory_reached);
  // Cut after the dip, the last three sizes are not stable: not memory yet.
  EXPECT_FALSE(find_boundaries(std::span(dip).first(24)).memory_reached);
}

TEST(find_boundaries, memory_is_reached_after_two_stable_sizes) {
  // What the probe sees as it goes: memory once 48, 64 and 96 MiB are
  // within 1.5x of one another (60, 90, 90 ns).
  EXPECT_FALSE(find_boundaries(make_curve(64 * MiB, four_levels)).memory_reached);
  const cache_boundaries found = find_boundaries(make_curve(96 * MiB, four_levels));
  EXPECT_TRUE(found.memory_reached);
  EXPECT_EQ(found.llc_bytes, 32 * MiB);
}

TEST(find_boundaries, knows_no_last_cache_before_memory_is_reached) {
  // Cut on the L3 plateau: its 12 ns could be memory's for all the curve says.
  const cache_boundaries found = find_boundaries(make_curve(16 * MiB, four_levels));
  EXPECT_EQ(found.l1d_bytes, 32 * KiB);
  EXPECT_EQ(found.llc_bytes, 0u);
  EXPECT_FALSE(found.memory_reached);
}

TEST(find_boundaries, a_gradual_rise_ends_the_last_cache_where_a_load_costs_most_of_a_miss) {
  // 2 ns after L1, then 1.2x a step (1.44x for two).
  const auto rising = [](std::size_t bytes) {
    if (bytes <= 32 * KiB) return 1.0;
    double ns = 2.0;
    for (std::size_t b = 48 * KiB; b <= bytes; b = b % 3 == 0 ? b / 3 * 4 : b / 2 * 3) ns *= 1.2;
    return ns;
  };
  // Cut at 16 MiB the curve has not levelled off (37 ns at 8 MiB, 53 at 16):
  // no memory, so no last cache either.
  cache_boundaries found = find_boundaries(make_curve(16 * MiB, rising));
  EXPECT_EQ(found.l1d_bytes, 32 * KiB);
  EXPECT_EQ(found.llc_bytes, 0u);
  EXPECT_FALSE(found.memory_reached);

  // Up to a memory plateau at 100 ns: the cache ends at the last size
  // within 40 ns (memory / 2.5), though no step marks it.
  const auto plateau = [&](std::size_t bytes) { return std::min(rising(bytes), 100.0); };
  const auto curve = make_curve(256 * MiB, plateau);
  found = find_boundaries(curve);
  EXPECT_EQ(found.l1d_bytes, 32 * KiB);
  EXPECT_TRUE(found.memory_reached);
  ASSERT_NE(found.llc_bytes, 0u);
  EXPECT_LE(plateau(found.llc_bytes), 40.0);
  const auto next = std::find_if(curve.begin(), curve.end(),
                                 [&](const latency_point& p) { return p.bytes > found.llc_bytes; });
  ASSERT_NE(next, curve.end());
  EXPECT_GT(next->ns, 40.0);

  // The probe itself stops earlier on such a rise: at 32 MiB its last three
  // sizes (53, 64, 76 ns) already count as memory, and the split falls lower,
  // at a last cache smaller than the full curve's (the cheaper error).
  const cache_boundaries stopped = find_boundaries(make_curve(32 * MiB, plateau));
  EXPECT_TRUE(stopped.memory_reached);
  EXPECT_NE(stopped.llc_bytes, 0u);
  EXPECT_LT(stopped.llc_bytes, found.llc_bytes);
}

TEST(find_boundaries, reads_a_vm_share_of_a_large_last_cache) {
  // Intel VM (family 6 model 167; sysfs: L1d 48 KiB, L2 2 MiB, L3 480 MiB),
  // 2026-11-30: no step after L2, the latency climbs from 27 ns at 2 MiB to
  // memory's 140 ns by 48 MiB as the neighbours' lines crowd the probe's
  // out. Memory / 2.5 is 56 ns: 8 MiB and 16 MiB are under it, 12 MiB is
  // not, and on the tie the smaller end wins.
  const std::vector<latency_point> curve{
      {4 * KiB, 1.371},  {6 * KiB, 1.299},   {8 * KiB, 1.349},    {12 * KiB, 1.280},   {16 * KiB, 1.324},
      {24 * KiB, 1.313}, {32 * KiB, 1.338},  {48 * KiB, 1.398},   {64 * KiB, 4.327},   {96 * KiB, 4.343},
      {128 * KiB, 4.47}, {192 * KiB, 4.517}, {256 * KiB, 4.725},  {384 * KiB, 4.588},  {512 * KiB, 5.129},
      {768 * KiB, 5.58}, {1 * MiB, 5.812},   {1536 * KiB, 8.323}, {2 * MiB, 26.719},   {3 * MiB, 32.149},
      {4 * MiB, 51.607}, {6 * MiB, 45.617},  {8 * MiB, 50.742},   {12 * MiB, 63.24},   {16 * MiB, 48.747},
      {24 * MiB, 81.28}, {32 * MiB, 69.096}, {48 * MiB, 132.256}, {64 * MiB, 140.286}, {96 * MiB, 153.75}};
  const cache_boundaries found = find_boundaries(curve);
  EXPECT_EQ(found.l1d_bytes, 48 * KiB);
  EXPECT_TRUE(found.memory_reached);
  EXPECT_EQ(found.llc_bytes, 8 * MiB);  // (the OS's 480 MiB is then more than 2x off: not used)
}

TEST(find_boundaries, a_fast_plateau_is_not_memory) {
  // Flat at 20 ns from 2 MiB: a slow cache or a fast memory, but under 50 ns it counts as a cache.
  const cache_boundaries found = find_boundaries(
      make_curve(256 * MiB, [](std::size_t bytes) { return bytes <= 32 * KiB ? 1.0 : 20.0; }));
  EXPECT_EQ(found.l1d_bytes, 32 * KiB);
  EXPECT_FALSE(found.memory_reached);
  EXPECT_EQ(found.llc_bytes, 0u);
}

TEST(find_boundaries, flat_or_short_curves_say_nothing) {
  EXPECT_EQ(find_boundaries({}).l1d_bytes, 0u);
  const std::vector<latency_point> one{{4 * KiB, 1.0}};
  EXPECT_EQ(find_boundaries(one).l1d_bytes, 0u);
  const cache_boundaries flat = find_boundaries(make_curve(MiB, [](std::size_t) { return 1.0; }));
  EXPECT_EQ(flat.l1d_bytes, 0u);
  EXPECT_EQ(flat.llc_bytes, 0u);
}

// ---------------------------------------------------------------------------
// Which figures are used

TEST(decide_caches, the_os_figure_stands_when_the_probe_agrees_within_2x) {
  const cache_boundaries probe{32 * KiB, 24 * MiB, true};
  const cache_sizes sizes =
      decide_caches({32 * KiB, 32 * MiB}, &probe, {}, cache_sizes::probe_state::measured);
  EXPECT_EQ(sizes.l1d_bytes, 32 * KiB);
  EXPECT_EQ(sizes.llc_bytes, 32 * MiB);
  EXPECT_EQ(sizes.l1d_source, cache_sizes::source::os);
  EXPECT_EQ(sizes.llc_source, cache_sizes::source::os);
  EXPECT_EQ(sizes.probe_llc_bytes, 24 * MiB);
  EXPECT_EQ(sizes.os_llc_bytes, 32 * MiB);
}

TEST(decide_caches, the_probe_wins_when_the_os_is_far_off) {
  const cache_boundaries probe{32 * KiB, 24 * MiB, true};
  const cache_sizes sizes =
      decide_caches({32 * KiB, 508 * MiB}, &probe, {}, cache_sizes::probe_state::cached);
  EXPECT_EQ(sizes.llc_bytes, 24 * MiB);
  EXPECT_EQ(sizes.llc_source, cache_sizes::source::probe);
  EXPECT_EQ(sizes.os_llc_bytes, 508 * MiB);
  EXPECT_EQ(sizes.probe, cache_sizes::probe_state::cached);
}

TEST(decide_caches, falls_back_in_order) {
  const cache_boundaries no_llc{48 * KiB, 0, false};
  cache_sizes sizes = decide_caches({0, 16 * MiB}, &no_llc, {}, cache_sizes::probe_state::measured);
  EXPECT_EQ(sizes.l1d_bytes, 48 * KiB);  // no OS figure: the probe's
  EXPECT_EQ(sizes.l1d_source, cache_sizes::source::probe);
  EXPECT_EQ(sizes.llc_bytes, 16 * MiB);  // no probe figure: the OS's
  EXPECT_EQ(sizes.llc_source, cache_sizes::source::os);

  sizes = decide_caches({}, nullptr, {}, cache_sizes::probe_state::measured);
  EXPECT_EQ(sizes.l1d_bytes, 32 * KiB);
  EXPECT_EQ(sizes.llc_bytes, 8 * MiB);
  EXPECT_EQ(sizes.l1d_source, cache_sizes::source::fallback);
  EXPECT_EQ(sizes.llc_source, cache_sizes::source::fallback);
  EXPECT_EQ(sizes.probe, cache_sizes::probe_state::none);  // no probe result
}

TEST(decide_caches, an_override_wins_alone) {
  const cache_boundaries probe{32 * KiB, 24 * MiB, true};
  const cache_sizes sizes =
      decide_caches({32 * KiB, 32 * MiB}, &probe, {0, 12 * MiB}, cache_sizes::probe_state::measured);
  EXPECT_EQ(sizes.llc_bytes, 12 * MiB);
  EXPECT_EQ(sizes.llc_source, cache_sizes::source::override);
  EXPECT_EQ(sizes.l1d_bytes, 32 * KiB);
  EXPECT_EQ(sizes.l1d_source, cache_sizes::source::os);
}

TEST(decide_caches, an_override_below_the_other_figure_is_refused) {
  const cache_boundaries probe{48 * KiB, 2 * MiB, true};
  const auto refused = [&](cache_override given, const std::string& words) {
    try {
      decide_caches({48 * KiB, 32 * MiB}, &probe, given, cache_sizes::probe_state::measured);
      ADD_FAILURE() << "accepted " << given.l1d_bytes << " / " << given.llc_bytes;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("WEAVE_CACHE_SIZES"), std::string::npos) << what;
      EXPECT_NE(what.find(words), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  };
  refused({0, 16 * KiB}, "llc of 16384 bytes is smaller than the l1d of 49152 bytes (from the os)");
  refused({64 * MiB, 0}, "l1d of 67108864 bytes is larger than the llc of 2097152 bytes (from the probe)");
  // Equal is allowed: no cache past L1.
  EXPECT_EQ(decide_caches({48 * KiB, 32 * MiB}, &probe, {0, 48 * KiB}, cache_sizes::probe_state::measured)
                .llc_bytes,
            48 * KiB);
}

TEST(decide_caches, machine_figures_that_disagree_leave_llc_no_smaller_than_l1d) {
  // A probe whose last cache is below the OS's L1d: the OS's last cache.
  const cache_boundaries probe{0, 32 * KiB, true};
  cache_sizes sizes = decide_caches({48 * KiB, 32 * MiB}, &probe, {}, cache_sizes::probe_state::cached);
  EXPECT_EQ(sizes.l1d_bytes, 48 * KiB);
  EXPECT_EQ(sizes.llc_bytes, 32 * MiB);
  EXPECT_EQ(sizes.llc_source, cache_sizes::source::os);
  // No OS llc either: no cache past L1, said to come from where L1d did.
  sizes = decide_caches({48 * KiB, 0}, &probe, {}, cache_sizes::probe_state::cached);
  EXPECT_EQ(sizes.llc_bytes, 48 * KiB);
  EXPECT_EQ(sizes.llc_source, cache_sizes::source::os);
}

TEST(describe, says_which_sizes_and_where_they_came_from) {
  const cache_boundaries probe{32 * KiB, 4 * MiB, true};
  const cache_sizes sizes =
      decide_caches({32 * KiB, 320 * MiB}, &probe, {48 * KiB, 0}, cache_sizes::probe_state::measured);
  EXPECT_EQ(describe(sizes),
            "{\"l1d\":49152,\"l1d_source\":\"env\",\"llc\":4194304,\"llc_source\":\"probe\","
            "\"os_l1d\":32768,\"os_llc\":335544320,\"probe\":\"measured\",\"probe_l1d\":32768,"
            "\"probe_llc\":4194304}");
  EXPECT_EQ(describe(decide_caches({}, nullptr, {}, cache_sizes::probe_state::none)),
            "{\"l1d\":32768,\"l1d_source\":\"default\",\"llc\":8388608,\"llc_source\":\"default\","
            "\"os_l1d\":0,\"os_llc\":0,\"probe\":\"none\"}");
}

// ---------------------------------------------------------------------------
// The per-machine file

class cache_file : public testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("weave-cache-test-" + std::to_string(::getpid()) + "-" +
                  testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  void write_text(const std::filesystem::path& file, const std::string& text) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  }

  std::filesystem::path directory_;
  const std::string key_ = cache_file_key({32 * KiB, 32 * MiB});
};

probe_result sample_result() {
  probe_result result;
  result.curve = make_curve(256 * MiB, four_levels);
  result.found = find_boundaries(result.curve);
  result.seconds = 0.25;
  return result;
}

TEST_F(cache_file, round_trip) {
  const std::filesystem::path file = cache_file_path(directory_ / "nested" / "weave", key_);
  const probe_result written = sample_result();
  ASSERT_TRUE(write_cache_file(file, key_, written));  // creates the directories
  const std::optional<probe_result> read = read_cache_file(file, key_);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->found.l1d_bytes, written.found.l1d_bytes);
  EXPECT_EQ(read->found.llc_bytes, written.found.llc_bytes);
  EXPECT_EQ(read->found.memory_reached, written.found.memory_reached);
  EXPECT_DOUBLE_EQ(read->seconds, 0.25);
  ASSERT_EQ(read->curve.size(), written.curve.size());
  for (std::size_t i = 0; i < read->curve.size(); ++i) {
    EXPECT_EQ(read->curve[i].bytes, written.curve[i].bytes);
    EXPECT_NEAR(read->curve[i].ns, written.curve[i].ns, 1e-3);
  }
  // Rewriting replaces it, and no temporary file stays behind.
  ASSERT_TRUE(write_cache_file(file, key_, written));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(file.parent_path())) ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(cache_file, another_machine_has_another_file_and_key) {
  const std::string other = cache_file_key({32 * KiB, 508 * MiB});
  EXPECT_NE(other, key_);
  EXPECT_NE(cache_file_path(directory_, other), cache_file_path(directory_, key_));
  EXPECT_EQ(cache_file_path(directory_, key_), cache_file_path(directory_, key_));
  EXPECT_EQ(cache_file_path(directory_, key_).filename().string().size(),
            std::string("cache-sizes-").size() + 16);
  // A file written for another key (a hash collision, or a copied file) is not read.
  const std::filesystem::path file = cache_file_path(directory_, key_);
  ASSERT_TRUE(write_cache_file(file, other, sample_result()));
  EXPECT_FALSE(read_cache_file(file, key_).has_value());
}

TEST_F(cache_file, a_corrupt_or_missing_file_is_ignored) {
  const std::filesystem::path file = cache_file_path(directory_, key_);
  EXPECT_FALSE(read_cache_file(file, key_).has_value());  // missing
  const std::string header = "weave cache sizes 1\nkey " + key_ + "\n";
  const std::string good =
      header + "l1d 32768\nllc 25165824\nmemory_reached 1\nseconds 0.25\ncurve 4096:1.0 8192:1.1\n";
  write_text(file, good);
  ASSERT_TRUE(read_cache_file(file, key_).has_value());
  write_text(file, header + "l1d 0\nllc 0\ncurve 4096:1.0\n");  // the probe found no boundary
  ASSERT_TRUE(read_cache_file(file, key_).has_value());
  const std::string corrupt[] = {
      "",
      "garbage",
      std::string("\0\xff\x01", 3),
      "weave cache sizes 2\nkey " + key_ + "\nl1d 32768\nllc 25165824\ncurve 4096:1.0\n",  // another version
      header,                                                                              // truncated
      header + "l1d 32768\nllc 25165824\n",                                                // no curve
      header + "l1d 32768\nllc 25165824\ncurve 4096:1.0 8192\n",                           // half a point
      header + "l1d 32768\nllc 25165824\ncurve 8192:1.0 4096:1.1\n",     // sizes not increasing
      header + "l1d 32768\nllc 25165824\ncurve 4096:-1\n",               // negative time
      header + "l1d -5\nllc 25165824\ncurve 4096:1.0\n",                 // bad number
      header + "l1d 32768x\nllc 25165824\ncurve 4096:1.0\n",             // trailing junk
      header + "l1d 33554432\nllc 32768\ncurve 4096:1.0\n",              // l1d > llc
      header + "l1d 2\nllc 25165824\ncurve 4096:1.0\n",                  // less than 1 KiB
      header + "l1d 32768\nllc 1023\ncurve 4096:1.0\n",                  // less than 1 KiB
      header + "l1d 32768\nllc 1099511627777\ncurve 4096:1.0\n",         // more than 1 TiB
      header + "l1d 32768\nllc 25165824\nllc 1\ncurve 4096:1.0\n",       // twice
      header + "l1d 32768\nllc 25165824\ncolour red\ncurve 4096:1.0\n",  // unknown line
      good + std::string(70000, 'x'),                                    // too long
  };
  for (const std::string& text : corrupt) {
    write_text(file, text);
    EXPECT_FALSE(read_cache_file(file, key_).has_value()) << text.substr(0, 200);
  }
  // A directory where the file should be.
  std::filesystem::remove(file);
  std::filesystem::create_directories(file);
  EXPECT_FALSE(read_cache_file(file, key_).has_value());
  EXPECT_FALSE(write_cache_file(file, key_, sample_result()));
  std::filesystem::remove(file);
  // A corrupt file is rewritten.
  write_text(file, "garbage");
  ASSERT_TRUE(write_cache_file(file, key_, sample_result()));
  EXPECT_TRUE(read_cache_file(file, key_).has_value());
}

TEST_F(cache_file, a_directory_that_cannot_be_made_means_no_file) {
  // A regular file in the way of the directory.
  write_text(directory_ / "blocker", "x");
  const std::filesystem::path file = cache_file_path(directory_ / "blocker" / "weave", key_);
  EXPECT_FALSE(write_cache_file(file, key_, sample_result()));
  EXPECT_FALSE(read_cache_file(file, key_).has_value());
}

TEST(cache_directory, follows_xdg_then_home) {
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const char* old_home = std::getenv("HOME");
  const std::string saved_xdg = old_xdg != nullptr ? old_xdg : "";
  const std::string saved_home = old_home != nullptr ? old_home : "";
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(cache_directory(), std::filesystem::path("/tmp/xdg/weave"));
  ::setenv("XDG_CACHE_HOME", "relative", 1);  // invalid by the XDG spec: ignored
  EXPECT_EQ(cache_directory(), std::filesystem::path("/home/someone/.cache/weave"));
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(cache_directory(), std::filesystem::path("/home/someone/.cache/weave"));
  ::unsetenv("HOME");
  EXPECT_TRUE(cache_directory().empty());
  if (old_xdg != nullptr) ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  if (old_home != nullptr) ::setenv("HOME", saved_home.c_str(), 1);
}

// ---------------------------------------------------------------------------
// The probe and the process's sizes

TEST(probe_caches, returns_a_curve_and_sane_sizes) {
  const probe_result result = probe_caches();
  ASSERT_FALSE(result.curve.empty());
  for (std::size_t i = 1; i < result.curve.size(); ++i) {
    EXPECT_GT(result.curve[i].bytes, result.curve[i - 1].bytes);
    EXPECT_GT(result.curve[i].ns, 0.0);
  }
  if (result.found.l1d_bytes != 0 && result.found.llc_bytes != 0) {
    EXPECT_LE(result.found.l1d_bytes, result.found.llc_bytes);
  }
  const cache_sizes sizes = decide_caches(os_caches(), &result.found, {}, cache_sizes::probe_state::measured);
  EXPECT_GT(sizes.l1d_bytes, 0u);
  EXPECT_GT(sizes.llc_bytes, 0u);
  EXPECT_LE(sizes.l1d_bytes, sizes.llc_bytes);
}

// The sizes are fixed once per process: the first call to caches() or
// measure_caches() decides. A bad override makes measure_caches() throw and
// fixes nothing.
TEST(caches, take_the_override_and_refuse_a_bad_one) {
  ::setenv("WEAVE_CACHE_SIZES", "l1d=48K,llc=16Q", 1);
  EXPECT_THROW(measure_caches(), std::invalid_argument);
  ::setenv("WEAVE_CACHE_SIZES", "l1d=48K,llc=16M", 1);
  const cache_sizes& sizes = measure_caches();  // both given: no probe, no file
  EXPECT_EQ(sizes.l1d_bytes, 48 * KiB);
  EXPECT_EQ(sizes.llc_bytes, 16 * MiB);
  EXPECT_EQ(sizes.l1d_source, cache_sizes::source::override);
  EXPECT_EQ(sizes.llc_source, cache_sizes::source::override);
  EXPECT_EQ(&caches(), &sizes);
  EXPECT_EQ(l1d_bytes(), 48 * KiB);
  EXPECT_EQ(llc_bytes(), 16 * MiB);
  EXPECT_TRUE(fits_in_cache(4 * MiB));
  EXPECT_FALSE(fits_in_cache(4 * MiB + 1));
  ::unsetenv("WEAVE_CACHE_SIZES");
}

}  // namespace
}  // namespace weave::machine
