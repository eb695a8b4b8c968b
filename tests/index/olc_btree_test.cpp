#include "weave/index/olc_btree.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/every_mode.hpp"
#include "weave/exec/sync_wait.hpp"

namespace weave {
namespace {

using entries = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

template <class Policy>
entries scan_all(const olc_btree& tree, std::uint64_t from, std::size_t limit) {
  entries out;
  sync_wait(scan<Policy>(tree, from, limit, out));
  return out;
}

entries oracle_scan(const std::map<std::uint64_t, std::uint64_t>& m, std::uint64_t from, std::size_t limit) {
  entries out;
  for (auto it = m.lower_bound(from); it != m.end() && out.size() < limit; ++it) out.emplace_back(*it);
  return out;
}

// `count` random inserts into both, every `remove_every`-th followed by a removal.
void write_both(olc_btree& tree, std::map<std::uint64_t, std::uint64_t>& oracle, std::mt19937_64& rng,
                std::uniform_int_distribution<std::uint64_t>& key, std::size_t count, std::size_t remove_every) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t k = key(rng), v = rng();
    EXPECT_EQ(tree.insert(k, v), oracle.count(k) == 0);
    oracle[k] = v;
    if (i % remove_every == 0) {
      const std::uint64_t r = key(rng);
      EXPECT_EQ(tree.remove(r), oracle.erase(r) == 1);
    }
  }
}

// Looks the keys up in every execution mode.
void expect_lookups_match(const olc_btree& tree, const std::map<std::uint64_t, std::uint64_t>& oracle,
                          const std::vector<std::uint64_t>& lookups) {
  std::vector<std::optional<std::uint64_t>> expected;
  for (auto k : lookups) {
    const auto it = oracle.find(k);
    expected.push_back(it == oracle.end() ? std::nullopt : std::optional(it->second));
  }
  testing::expect_every_mode<std::optional<std::uint64_t>>(
      lookups.size(), [&](auto policy, std::size_t i) { return lookup<decltype(policy)>(tree, lookups[i]); },
      expected);
}

TEST(olc_btree, matches_a_map_through_inserts_overwrites_and_removes) {
  std::mt19937_64 rng(11);
  for (std::size_t n : {1u, 30u, 31u, 500u, 20000u}) {
    olc_btree tree;
    std::map<std::uint64_t, std::uint64_t> oracle;
    std::uniform_int_distribution<std::uint64_t> key(0, 3 * n);
    write_both(tree, oracle, rng, key, 2 * n, 3);
    tree.insert(~std::uint64_t{0}, 7);
    oracle[~std::uint64_t{0}] = 7;

    std::vector<std::uint64_t> lookups(600);
    for (auto& k : lookups) k = key(rng);
    lookups.push_back(~std::uint64_t{0});
    expect_lookups_match(tree, oracle, lookups);

    for (std::uint64_t from : {std::uint64_t{0}, key(rng), key(rng), 3 * n + 1}) {
      for (std::size_t limit : {1u, 29u, 100u, 100000u}) {
        EXPECT_EQ(scan_all<sequential_policy>(tree, from, limit), oracle_scan(oracle, from, limit));
        EXPECT_EQ(scan_all<interleaved_policy>(tree, from, limit), oracle_scan(oracle, from, limit));
      }
    }
  }
}

// Keys inserted in increasing order leave full nodes behind, not half-full
// ones; inserts in any order after them still match a map.
TEST(olc_btree, increasing_inserts_leave_full_nodes) {
  constexpr std::uint64_t n = 100000;
  const std::size_t full_leaves = n / (olc_btree::leaf_keys - 1) + 1;
  olc_btree increasing, shuffled;
  std::map<std::uint64_t, std::uint64_t> oracle;
  std::vector<std::uint64_t> keys(n);
  for (std::uint64_t k = 0; k < n; ++k) {
    increasing.insert(2 * k, k);
    oracle[2 * k] = k;
    keys[k] = 2 * k;
  }
  std::mt19937_64 rng(5);
  std::shuffle(keys.begin(), keys.end(), rng);
  for (std::uint64_t k : keys) shuffled.insert(k, k / 2);
  // Full leaves and the inner nodes above them (a 28th more).
  EXPECT_LE(increasing.bytes(), full_leaves * 106 / 100 * olc_btree::node_bytes);
  EXPECT_GT(shuffled.bytes(),
            full_leaves * 5 / 4 * olc_btree::node_bytes);  // the half splits the rule leaves alone
  std::uniform_int_distribution<std::uint64_t> key(0, 2 * n + 50);
  write_both(increasing, oracle, rng, key, n, 3);
  std::vector<std::uint64_t> lookups(2000);
  for (auto& k : lookups) k = key(rng);
  expect_lookups_match(increasing, oracle, lookups);
  EXPECT_EQ(scan_all<sequential_policy>(increasing, 0, 1000000), oracle_scan(oracle, 0, 1000000));
}

TEST(olc_btree, a_loaded_tree_matches_a_map_then_takes_inserts_and_removes) {
  std::mt19937_64 rng(13);
  for (std::size_t n : {0u, 1u, 28u, 29u, 30u, 28u * 29u, 28u * 29u + 1u, 30000u}) {
    olc_btree tree;
    std::map<std::uint64_t, std::uint64_t> oracle;
    std::uniform_int_distribution<std::uint64_t> key(0, 4 * n + 1);
    while (oracle.size() < n) oracle[key(rng)] = rng();
    {
      olc_btree::loader load(tree);
      for (const auto& [k, v] : oracle) load.add(k, v);
      load.finish();
    }
    EXPECT_EQ(scan_all<sequential_policy>(tree, 0, n + 1), oracle_scan(oracle, 0, n + 1));
    write_both(tree, oracle, rng, key, n / 2 + 5, 4);
    std::vector<std::uint64_t> lookups(500);
    for (auto& k : lookups) k = key(rng);
    expect_lookups_match(tree, oracle, lookups);
    EXPECT_EQ(scan_all<interleaved_policy>(tree, 0, 3 * n), oracle_scan(oracle, 0, 3 * n));
  }
}

TEST(olc_btree, loads_only_an_empty_tree_and_only_increasing_keys) {
  olc_btree tree;
  {
    olc_btree::loader load(tree);
    load.add(5, 1);
    EXPECT_THROW(load.add(5, 2), std::invalid_argument);
    EXPECT_THROW(load.add(4, 2), std::invalid_argument);
    load.add(6, 3);
    load.finish();
  }
  EXPECT_THROW(olc_btree::loader{tree}, std::logic_error);
  EXPECT_EQ(scan_all<sequential_policy>(tree, 0, 10), (entries{{5, 1}, {6, 3}}));
}

TEST(olc_btree, a_sweep_finds_keys_in_any_order_like_a_map) {
  std::mt19937_64 rng(14);
  for (std::size_t n : {0u, 1u, 500u, 40000u}) {
    olc_btree tree;
    std::map<std::uint64_t, std::uint64_t> oracle;
    std::uniform_int_distribution<std::uint64_t> key(0, 3 * n + 2);
    for (std::size_t i = 0; i < n; ++i) {  // inserted, so that leaves are of every fill and some empty
      const std::uint64_t k = key(rng), v = rng();
      tree.insert(k, v);
      oracle[k] = v;
      if (i % 2 == 0) {
        const std::uint64_t r = key(rng);
        tree.remove(r);
        oracle.erase(r);
      }
    }
    for (int order = 0; order < 3; ++order) {  // increasing and dense, increasing and sparse, random
      std::vector<std::uint64_t> probes;
      for (std::uint64_t k = 0; k <= 3 * n + 3; k += order == 0 ? 1 : 1 + rng() % 200) probes.push_back(k);
      if (order == 2) std::shuffle(probes.begin(), probes.end(), rng);
      olc_btree::sweep sweep(tree);
      for (std::uint64_t k : probes) {
        const auto it = oracle.find(k);
        ASSERT_EQ(sweep.find(k), it == oracle.end() ? std::nullopt : std::optional(it->second))
            << "key " << k << ", order " << order;
      }
    }
  }
}

TEST(olc_btree, concurrent_writers_and_readers_agree_with_what_was_written) {
  olc_btree tree;
  constexpr std::size_t writers = 3, per_writer = 20000;
  const auto value_of = [](std::uint64_t k) { return k * 2654435761u + 1; };
  std::atomic<bool> writing{true};
  std::atomic<std::size_t> bad{0};

  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937_64 rng(w);
      std::vector<std::uint64_t> keys(per_writer);
      for (std::size_t i = 0; i < per_writer; ++i) keys[i] = i * writers + w;  // disjoint per writer
      std::shuffle(keys.begin(), keys.end(), rng);
      for (std::uint64_t k : keys) tree.insert(k, value_of(k));
      // Remove every tenth key again.
      for (std::uint64_t k : keys) {
        if (k % 10 == 0) tree.remove(k);
      }
    });
  }
  // A reader interleaving lookups while the tree grows: a key is absent or
  // has its value, never anything else.
  threads.emplace_back([&] {
    std::mt19937_64 rng(99);
    interleaved_scheduler scheduler{8};
    std::vector<std::uint64_t> keys(256);
    while (writing.load()) {
      for (auto& k : keys) k = rng() % (writers * per_writer);
      scheduler.run(keys.size(), [&](auto policy, std::size_t i) { return lookup<decltype(policy)>(tree, keys[i]); },
                    [&](std::size_t i, std::optional<std::uint64_t> v) {
                      if (v && *v != value_of(keys[i])) ++bad;
                    });
      entries out;
      sync_wait(scan<interleaved_policy>(tree, rng() % (writers * per_writer), 50, out));
      for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i].second != value_of(out[i].first) || (i > 0 && out[i - 1].first >= out[i].first)) ++bad;
      }
    }
  });
  for (std::size_t t = 0; t < writers; ++t) threads[t].join();
  writing = false;
  threads.back().join();
  EXPECT_EQ(bad.load(), 0u);

  const entries all = scan_all<sequential_policy>(tree, 0, ~std::size_t{0});
  ASSERT_EQ(all.size(), writers * per_writer - writers * per_writer / 10);
  for (std::size_t i = 0; i < all.size(); ++i) {
    ASSERT_NE(all[i].first % 10, 0u);
    ASSERT_EQ(all[i].second, value_of(all[i].first));
    if (i > 0) {
      ASSERT_LT(all[i - 1].first, all[i].first);
    }
  }
}

TEST(olc_btree, writers_appending_side_by_side_keep_the_leaves_in_order) {
  // Two writers append ascending runs in two key ranges, so the root splits
  // while both descend: an insert that starts at a root just split must not
  // land in the left half (the leaves' order, and scans, would break).
  for (int round = 0; round < 20; ++round) {
    olc_btree tree;
    constexpr std::uint64_t per_writer = 100'000;
    std::vector<std::thread> writers;
    for (std::uint64_t w = 1; w <= 2; ++w) {
      writers.emplace_back([&, w] {
        for (std::uint64_t i = 0; i < per_writer; ++i) tree.insert(w << 40 | i, i);
      });
    }
    for (auto& t : writers) t.join();
    const entries all = scan_all<sequential_policy>(tree, 0, ~std::size_t{0});
    ASSERT_EQ(all.size(), 2 * per_writer) << "round " << round;
    for (std::size_t i = 0; i < all.size(); ++i) {
      ASSERT_EQ(all[i].first, std::uint64_t{i < per_writer ? 1u : 2u} << 40 | i % per_writer) << "round " << round;
    }
  }
}

// Strings from a small alphabet (with zero and high bytes) and lengths 0 to
// 47, so that many share long prefixes or are prefixes of one another.
std::string random_string(std::mt19937_64& rng) {
  static constexpr char alphabet[] = {'\0', 'a', 'b', '\xff'};
  std::string s(rng() % (byte_key::capacity + 1), 'a');
  const std::size_t varied = rng() % 4 == 0 ? s.size() : std::min<std::size_t>(s.size(), 3);
  for (std::size_t i = s.size() - varied; i < s.size(); ++i) s[i] = alphabet[rng() % 4];
  return s;
}

TEST(byte_key, orders_like_the_strings_and_round_trips) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    const std::string a = random_string(rng), b = random_string(rng);
    ASSERT_EQ(byte_key(a).str(), a);
    ASSERT_EQ(byte_key(a) < byte_key(b), a < b) << i;
    ASSERT_EQ(byte_key(a) == byte_key(b), a == b) << i;
  }
  EXPECT_THROW(byte_key(std::string(byte_key::capacity + 1, 'x')), std::length_error);
}

TEST(byte_key, largest_is_the_longest_string_of_0xff_and_follows_every_key) {
  EXPECT_EQ(byte_key::largest(), byte_key(std::string(byte_key::capacity, '\xff')));
  std::mt19937_64 rng(6);
  for (int i = 0; i < 1000; ++i) ASSERT_LE(byte_key(random_string(rng)), byte_key::largest());
}

TEST(byte_key, same_prefix_agrees_with_the_strings) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const std::string a = random_string(rng);
    // Often b shares a prefix of a, then differs somewhere.
    std::string b =
        rng() % 2 == 0 ? random_string(rng) : a.substr(0, rng() % (a.size() + 1)) + random_string(rng);
    if (b.size() > byte_key::capacity) b.resize(byte_key::capacity);
    const std::size_t n = rng() % (byte_key::capacity + 2);
    const bool expected = a.size() >= n && b.size() >= n && a.compare(0, n, b, 0, n) == 0;
    ASSERT_EQ(byte_key(a).same_prefix(byte_key(b), n), expected) << i << " n=" << n;
  }
}

TEST(olc_string_btree, matches_a_map_through_inserts_removes_lookups_and_scans) {
  std::mt19937_64 rng(12);
  for (std::size_t n : {1u, 17u, 18u, 3000u}) {
    olc_string_btree tree;
    std::map<std::string, std::uint64_t> oracle;
    for (std::size_t i = 0; i < 2 * n; ++i) {
      const std::string k = random_string(rng);
      const std::uint64_t v = rng();
      EXPECT_EQ(tree.insert(byte_key(k), v), oracle.count(k) == 0);
      oracle[k] = v;
      if (i % 3 == 0) {
        const std::string r = random_string(rng);
        EXPECT_EQ(tree.remove(byte_key(r)), oracle.erase(r) == 1);
      }
    }
    std::vector<std::string> probes(400);
    for (auto& k : probes) k = random_string(rng);
    for (const auto& [k, v] : oracle) {
      if (probes.size() < 800) probes.push_back(k);
    }
    std::vector<std::optional<std::uint64_t>> expected;
    for (const auto& k : probes) {
      const auto it = oracle.find(k);
      expected.push_back(it == oracle.end() ? std::nullopt : std::optional(it->second));
    }
    testing::expect_every_mode<std::optional<std::uint64_t>>(probes.size(), [&](auto policy, std::size_t i) {
      return lookup<decltype(policy)>(tree, byte_key(probes[i]));
    }, expected);

    for (int s = 0; s < 6; ++s) {
      const std::string from = s == 0 ? std::string() : random_string(rng);
      for (std::size_t limit : {1u, 16u, 17u, 100000u}) {
        std::vector<std::pair<byte_key, std::uint64_t>> got;
        sync_wait(scan<interleaved_policy>(tree, byte_key(from), limit, got));
        std::vector<std::pair<std::string, std::uint64_t>> got_strings, want;
        for (const auto& [k, v] : got) got_strings.emplace_back(k.str(), v);
        for (auto it = oracle.lower_bound(from); it != oracle.end() && want.size() < limit; ++it) want.emplace_back(*it);
        ASSERT_EQ(got_strings, want) << "from '" << from << "' limit " << limit;
      }
    }
  }
}

TEST(olc_string_btree, a_loaded_tree_matches_a_map) {
  std::mt19937_64 rng(15);
  olc_string_btree tree;
  std::map<std::string, std::uint64_t> oracle;
  while (oracle.size() < 5000) oracle[random_string(rng)] = rng();
  {
    olc_string_btree::loader load(tree);
    for (const auto& [k, v] : oracle) load.add(byte_key(k), v);
    load.finish();
  }
  olc_string_btree::sweep sweep(tree);
  for (const auto& [k, v] : oracle) ASSERT_EQ(sweep.find(byte_key(k)), v);
  std::vector<std::pair<byte_key, std::uint64_t>> got;
  sync_wait(scan<interleaved_policy>(tree, byte_key(std::string()), 100000, got));
  ASSERT_EQ(got.size(), oracle.size());
  auto it = oracle.begin();
  for (const auto& [k, v] : got) {
    ASSERT_EQ(k.str(), it->first);
    ASSERT_EQ(v, it->second);
    ++it;
  }
}

}  // namespace
}  // namespace weave
