#include "weave/memory/growing_buffer.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <cstdint>
#include <random>
#include <vector>

namespace {

// 48 bytes, like a byte key: a 2 MiB chunk does not hold whole ones, and the
// next chunk's first element starts inside the previous chunk.
struct odd_sized {
  std::array<std::uint64_t, 6> words;
};
static_assert(sizeof(odd_sized) == 48);

template <class T>
void grows_like_a_vector(std::size_t max_count, std::uint64_t seed) {
  weave::growing_buffer<T> buffer(max_count);
  std::vector<T> oracle;
  std::mt19937_64 rng(seed);
  while (oracle.size() < max_count) {
    const std::size_t next = std::min<std::size_t>(max_count, oracle.size() + 1 + rng() % 200'000);
    buffer.grow_to(next);
    ASSERT_GE(buffer.size(), next);
    for (std::size_t i = oracle.size(); i < next; ++i) {
      T fresh{};
      ASSERT_EQ(std::memcmp(&buffer[i], &fresh, sizeof(T)), 0) << "element " << i << " is not zero-filled";
      T v{};
      std::memset(&v, static_cast<int>(rng() & 0xff), sizeof(T));
      buffer[i] = v;
      oracle.push_back(v);
    }
  }
  for (std::size_t i = 0; i < oracle.size(); ++i) {
    ASSERT_EQ(std::memcmp(&buffer[i], &oracle[i], sizeof(T)), 0) << "element " << i;
  }
  EXPECT_THROW(buffer.grow_to(buffer.max_size() + 1), std::length_error);
}

TEST(growing_buffer, elements_that_divide_a_chunk) { grows_like_a_vector<std::uint64_t>(3'000'000, 1); }

TEST(growing_buffer, elements_that_straddle_chunks) { grows_like_a_vector<odd_sized>(500'000, 2); }

}  // namespace
