#include "weave/exec/load.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <set>

#include "weave/exec/policy.hpp"

namespace weave {
namespace {

TEST(for_each_line, visits_every_line_of_a_range_once) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 5000; ++round) {
    const std::uintptr_t begin = 4096 + rng() % 4096;
    const std::size_t bytes = round < 200 ? static_cast<std::size_t>(round) : rng() % 2000;
    std::multiset<std::uintptr_t> visited;
    detail::for_each_line(reinterpret_cast<const void*>(begin), bytes,
                          [&](const void* line) { visited.insert(reinterpret_cast<std::uintptr_t>(line)); });
    // The oracle: the plain loop over the lines the range touches.
    std::multiset<std::uintptr_t> expected;
    for (std::uintptr_t at = begin & ~std::uintptr_t{63}; at < begin + bytes; at += 64) expected.insert(at);
    ASSERT_EQ(visited, expected) << "from " << begin << ", " << bytes << " bytes";
  }
}

struct alignas(64) three_lines {
  char bytes[130];
};

TEST(prefetch, an_aligned_object_is_prefetched_whole) {
  static_assert(sizeof(three_lines) == 192);
  const three_lines object{};
  const auto awaitable = prefetch<interleaved_policy>(object, false);
  EXPECT_EQ(awaitable.ptr, &object);
  EXPECT_EQ(awaitable.bytes, sizeof(three_lines));
  EXPECT_TRUE(awaitable.await_ready());  // a hot object: no suspension
  EXPECT_FALSE(prefetch<interleaved_policy>(object).await_ready());
  EXPECT_TRUE(prefetch<sequential_policy>(object).await_ready());
}

// The object form needs a type aligned to a line, and a pointer with a flag
// (a forgotten `*`) does not compile.
template <class Arg>
concept prefetchable = requires(const Arg& a) { prefetch<interleaved_policy>(a, true); };
static_assert(prefetchable<three_lines>);
static_assert(!prefetchable<int>);
static_assert(!prefetchable<const three_lines*>);

}  // namespace
}  // namespace weave
