// The vector node search against a plain count, over random sorted nodes of
// every fill, with keys at the edges of the unsigned range (the AVX2 form
// flips the top bit to compare unsigned). The file is built once per
// instruction set the machine runs (tests/CMakeLists.txt), so that each
// form of count_below_vector is checked: WEAVE_NODE_SEARCH_FORM names it.

#include "weave/index/node_search.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <random>
#include <string>

namespace weave {
namespace {

#ifndef WEAVE_NODE_SEARCH_FORM
#define WEAVE_NODE_SEARCH_FORM "native"
#endif

template <bool OrEqual, std::size_t Capacity>
unsigned oracle(const std::array<std::uint64_t, Capacity>& keys, unsigned n, std::uint64_t k) {
  unsigned c = 0;
  for (unsigned i = 0; i < n; ++i) c += OrEqual ? keys[i] <= k : keys[i] < k;
  return c;
}

std::uint64_t draw(std::mt19937_64& rng) {
  // Half the keys near the edges: 0, 2^63 and 2^64 - 1, where a signed
  // compare would go wrong.
  constexpr std::array<std::uint64_t, 3> edges{0, std::uint64_t{1} << 63, ~std::uint64_t{0}};
  if (rng() % 2 == 0) return rng();
  return edges[rng() % 3] + (rng() % 5) - 2;
}

// Capacity keys that end where an inaccessible page begins: a search that
// reads one word past Capacity faults.
class keys_before_a_guard_page {
 public:
  explicit keys_before_a_guard_page(unsigned key_count) {
    page_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    void* p = ::mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    base_ = static_cast<std::byte*>(p);
    if (::mprotect(base_ + page_, page_, PROT_NONE) != 0) throw std::bad_alloc();
    keys_ = reinterpret_cast<std::atomic<std::uint64_t>*>(base_ + page_ - key_count * sizeof(std::uint64_t));
    for (unsigned i = 0; i < key_count; ++i) new (&keys_[i]) std::atomic<std::uint64_t>(0);
  }
  keys_before_a_guard_page(const keys_before_a_guard_page&) = delete;
  keys_before_a_guard_page& operator=(const keys_before_a_guard_page&) = delete;
  ~keys_before_a_guard_page() { ::munmap(base_, 2 * page_); }
  std::atomic<std::uint64_t>* keys() const noexcept { return keys_; }

 private:
  std::size_t page_;
  std::byte* base_;
  std::atomic<std::uint64_t>* keys_;
};

// Random sorted nodes of every fill n against the oracle. The keys from n
// on are random and unsorted, so a search that counted them would fail.
template <unsigned Capacity>
void check_capacity(std::mt19937_64& rng, int rounds) {
  SCOPED_TRACE("capacity " + std::to_string(Capacity));
  const keys_before_a_guard_page guarded(Capacity);
  std::atomic<std::uint64_t>* keys = guarded.keys();
  std::array<std::uint64_t, Capacity> plain{};
  for (int round = 0; round < rounds; ++round) {
    const unsigned n = static_cast<unsigned>(rng() % (Capacity + 1));
    for (unsigned i = 0; i < Capacity; ++i) plain[i] = draw(rng);
    std::sort(plain.begin(), plain.begin() + n);
    for (unsigned i = 0; i < Capacity; ++i) keys[i].store(plain[i], std::memory_order_relaxed);
    // Keys from the node itself (equal ones matter for OrEqual) and others.
    const std::uint64_t k = (n > 0 && rng() % 2 == 0) ? plain[rng() % n] : draw(rng);
    ASSERT_EQ((count_below_vector<Capacity, false>(keys, n, k)), oracle<false>(plain, n, k))
        << "n " << n << " key " << k;
    ASSERT_EQ((count_below_vector<Capacity, true>(keys, n, k)), oracle<true>(plain, n, k))
        << "n " << n << " key " << k;
  }
}

TEST(NodeSearch, VectorCountMatchesPlainCount) {
  SCOPED_TRACE(std::string("form: ") + WEAVE_NODE_SEARCH_FORM);
  std::mt19937_64 rng(11);
  check_capacity<30>(rng, 20000);  // the integer B+-tree's nodes
}

TEST(NodeSearch, CapacityNotAMultipleOfTheVector) {
  // 7 keys: one partial vector in every form.
  std::array<std::atomic<std::uint64_t>, 7> keys{};
  for (unsigned i = 0; i < 7; ++i) keys[i].store(10 * (i + 1), std::memory_order_relaxed);
  for (unsigned n = 0; n <= 7; ++n) {
    for (std::uint64_t k = 0; k <= 80; ++k) {
      unsigned below = 0, at_most = 0;
      for (unsigned i = 0; i < n; ++i) {
        below += 10 * (i + 1) < k;
        at_most += 10 * (i + 1) <= k;
      }
      EXPECT_EQ((count_below_vector<7, false>(keys.data(), n, k)), below) << n << " " << k;
      EXPECT_EQ((count_below_vector<7, true>(keys.data(), n, k)), at_most) << n << " " << k;
    }
  }
}

TEST(NodeSearch, EveryCapacityReadsNothingPastIt) {
  SCOPED_TRACE(std::string("form: ") + WEAVE_NODE_SEARCH_FORM);
  std::mt19937_64 rng(12);
  // Whole vectors only, partial last vectors of each length, and the
  // 64-key limit of the mask.
  check_capacity<1>(rng, 2000);
  check_capacity<3>(rng, 2000);
  check_capacity<4>(rng, 2000);
  check_capacity<5>(rng, 2000);
  check_capacity<8>(rng, 2000);
  check_capacity<9>(rng, 2000);
  check_capacity<31>(rng, 2000);
  check_capacity<32>(rng, 2000);
  check_capacity<63>(rng, 2000);
  check_capacity<64>(rng, 2000);
}

}  // namespace
}  // namespace weave
