#include "weave/memory/chunk_arena.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <random>
#include <vector>

namespace weave {
namespace {

// Pages of [p, p + bytes) that are in memory now.
std::size_t resident_pages(const void* p, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t from = reinterpret_cast<std::uintptr_t>(p) / page * page;
  const std::uintptr_t to = reinterpret_cast<std::uintptr_t>(p) + bytes;
  std::vector<unsigned char> in((to - from + page - 1) / page);
  EXPECT_EQ(::mincore(reinterpret_cast<void*>(from), to - from, in.data()), 0);
  std::size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

// Allocations of random sizes and alignments, with reservations among
// them: each is aligned, zero when it arrives, and overlaps no other (the
// oracle: a map of live ranges, each filled with its own byte).
TEST(chunk_arena, allocations_are_aligned_zeroed_and_disjoint_across_reservations) {
  chunk_arena arena(4096, std::size_t{1} << 20);
  std::mt19937_64 rng(3);
  std::map<std::uintptr_t, std::pair<std::size_t, unsigned char>> live;
  for (int step = 0; step < 20000; ++step) {
    if (step % 5000 == 2500) arena.adopt(chunk_arena::touched_chunk(std::size_t{1} << (16 + rng() % 6)));
    const std::size_t bytes = 1 + rng() % 3000;
    const std::size_t align = std::size_t{1} << (rng() % 13);
    auto* p = static_cast<unsigned char*>(arena.allocate(bytes, align));
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    ASSERT_EQ(at % align, 0u);
    ASSERT_TRUE(std::all_of(p, p + bytes, [](unsigned char b) { return b == 0; })) << "step " << step;
    const auto pattern = static_cast<unsigned char>(1 + rng() % 255);
    std::memset(p, pattern, bytes);
    auto [it, fresh] = live.emplace(at, std::make_pair(bytes, pattern));
    ASSERT_TRUE(fresh);
    if (it != live.begin()) {
      ASSERT_LE(std::prev(it)->first + std::prev(it)->second.first, at);
    }
    if (std::next(it) != live.end()) {
      ASSERT_LE(at + bytes, std::next(it)->first);
    }
  }
  for (const auto& [at, what] : live) {
    const auto* p = reinterpret_cast<const unsigned char*>(at);
    ASSERT_TRUE(std::all_of(p, p + what.first, [&](unsigned char b) { return b == what.second; }));
  }
}

// What reserve() is for: the memory the next allocations take is in place
// before they touch it.
TEST(chunk_arena, a_reservation_is_resident_before_it_is_used) {
  constexpr std::size_t bytes = std::size_t{8} << 20;
  chunk_arena arena;
  arena.allocate(100, 64);  // the reservation starts a chunk of its own all the same
  arena.adopt(chunk_arena::touched_chunk(bytes));
  void* first = arena.allocate(64, 64);
  const std::size_t pages = bytes / static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(resident_pages(first, bytes), pages);
  // And the allocations after it come from it, one after another.
  auto* next = static_cast<std::byte*>(arena.allocate(4096, 64));
  EXPECT_EQ(next, static_cast<std::byte*>(first) + 64);
}

}  // namespace
}  // namespace weave
