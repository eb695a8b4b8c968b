#include "weave/exec/frame_pool.hpp"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/load.hpp"
#include "weave/index/hash_table.hpp"

namespace weave {
namespace {

TEST(frame_pool, recycles_a_freed_block_for_the_next_frame_of_its_size) {
  void* a = detail::frame_pool::allocate(100);
  detail::frame_pool::deallocate(a, 100);
  void* b = detail::frame_pool::allocate(120);  // same 128-byte class
  EXPECT_EQ(a, b);
  detail::frame_pool::deallocate(b, 120);
}

TEST(frame_pool, gives_distinct_blocks_while_they_are_live) {
  std::set<void*> live;
  std::vector<void*> blocks;
  for (int i = 0; i < 5000; ++i) {
    void* p = detail::frame_pool::allocate(200);
    EXPECT_TRUE(live.insert(p).second);
    blocks.push_back(p);
  }
  for (void* p : blocks) detail::frame_pool::deallocate(p, 200);
}

TEST(frame_pool, frames_larger_than_the_largest_class_still_work) {
  void* p = detail::frame_pool::allocate(10'000);
  ASSERT_NE(p, nullptr);
  static_cast<char*>(p)[9'999] = 1;
  detail::frame_pool::deallocate(p, 10'000);
}

// Threads that come and go, each running interleaved lookups over one shared
// table: frames move to the depot when a thread exits and serve later threads.
TEST(frame_pool, threads_that_exit_leave_their_frames_for_others) {
  hash_table table(4096);
  for (std::uint32_t k = 0; k < 4096; ++k) table.insert(k, k + 1);
  for (int round = 0; round < 4; ++round) {
    std::vector<std::thread> threads;
    std::vector<std::uint64_t> sums(2, 0);
    for (std::size_t t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        interleaved_scheduler{16}.run(
            8192, [&](auto policy, std::size_t i) { return find<decltype(policy)>(table, i % 4096); },
            [&](std::size_t, std::optional<std::uint32_t> v) { sums[t] += v.value_or(0); });
      });
    }
    for (auto& th : threads) th.join();
    for (std::uint64_t s : sums) EXPECT_EQ(s, 2u * (4096u * 4097u / 2));
  }
}

}  // namespace
}  // namespace weave
