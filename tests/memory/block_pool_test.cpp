#include "weave/memory/block_pool.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <thread>
#include <vector>

namespace weave {
namespace {

// Each test its own pool, so that what one leaves in the depot does not
// serve another.
struct handover_tag;
struct exit_tag;
struct random_tag;

template <class Pool>
std::vector<void*> allocate_on_a_thread(std::size_t n, std::size_t bytes) {
  std::vector<void*> out;
  std::thread([&] {
    for (std::size_t i = 0; i < n; ++i) out.push_back(Pool::allocate(bytes));
  }).join();
  return out;
}

// Recovery makes versions on one thread and the engine frees them on
// another; a third makes the next ones. They must reuse the memory.
TEST(block_pool, blocks_freed_on_another_thread_serve_a_third) {
  using pool = block_pool<handover_tag>;
  constexpr std::size_t n = 200000, bytes = 48;  // about 200 chunks of 64-byte blocks
  for (void* p : allocate_on_a_thread<pool>(n, bytes)) pool::deallocate(p, bytes);
  const std::size_t carved = pool::chunks();
  EXPECT_GE(carved, n * 64 / (64 * 1024));
  const auto again = allocate_on_a_thread<pool>(n, bytes);
  EXPECT_LE(pool::chunks() - carved, 8u) << "the blocks freed here were carved again";
  for (void* p : again) pool::deallocate(p, bytes);
}

TEST(block_pool, an_exiting_thread_hands_its_blocks_over) {
  using pool = block_pool<exit_tag>;
  constexpr std::size_t n = 3000, bytes = 100;  // fewer than a thread keeps
  std::thread([&] {
    std::vector<void*> mine;
    for (std::size_t i = 0; i < n; ++i) mine.push_back(pool::allocate(bytes));
    for (void* p : mine) pool::deallocate(p, bytes);
  }).join();
  const std::size_t carved = pool::chunks();
  const auto again = allocate_on_a_thread<pool>(n, bytes);
  EXPECT_LE(pool::chunks() - carved, 1u);
  for (void* p : again) pool::deallocate(p, bytes);
}

// Blocks of every class, allocated and freed on several threads in random
// order, each filled with its own pattern: no two live blocks overlap and
// none is changed by another's use.
TEST(block_pool, live_blocks_never_overlap_across_threads) {
  using pool = block_pool<random_tag>;
  struct live {
    std::uintptr_t at;
    std::size_t bytes;
    unsigned char pattern;
  };
  std::vector<std::thread> threads;
  std::vector<std::vector<live>> kept(3);
  for (unsigned t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      std::vector<live>& mine = kept[t];
      for (int step = 0; step < 60000; ++step) {
        if (mine.empty() || rng() % 3 != 0) {
          const std::size_t bytes = 1 + rng() % 2100;
          const auto pattern = static_cast<unsigned char>(rng());
          void* p = pool::allocate(bytes);
          std::memset(p, pattern, bytes);
          mine.push_back({reinterpret_cast<std::uintptr_t>(p), bytes, pattern});
        } else {
          const std::size_t i = rng() % mine.size();
          const live l = mine[i];
          const auto* bytes = reinterpret_cast<const unsigned char*>(l.at);
          for (std::size_t b = 0; b < l.bytes; ++b) ASSERT_EQ(bytes[b], l.pattern);
          pool::deallocate(reinterpret_cast<void*>(l.at), l.bytes);
          mine[i] = mine.back();
          mine.pop_back();
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::map<std::uintptr_t, std::size_t> all;  // the oracle: start -> length
  for (const auto& mine : kept) {
    for (const live& l : mine) {
      ASSERT_TRUE(all.emplace(l.at, l.bytes).second);
      const auto* bytes = reinterpret_cast<const unsigned char*>(l.at);
      for (std::size_t b = 0; b < l.bytes; ++b) ASSERT_EQ(bytes[b], l.pattern);
    }
  }
  for (auto it = all.begin(); it != all.end() && std::next(it) != all.end(); ++it) {
    ASSERT_LE(it->first + it->second, std::next(it)->first);
  }
  for (const auto& mine : kept) {
    for (const live& l : mine) pool::deallocate(reinterpret_cast<void*>(l.at), l.bytes);
  }
}

}  // namespace
}  // namespace weave
