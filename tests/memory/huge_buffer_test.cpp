#include "weave/memory/huge_buffer.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr std::size_t huge_page = weave::huge_buffer<char>::huge_page;

// Whether every page of [p, p + bytes) is mapped (mincore fails with ENOMEM
// on an unmapped page).
bool mapped(const void* p, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<std::uintptr_t>(p) / page * page;
  std::vector<unsigned char> vec((bytes + page - 1) / page + 1);
  return ::mincore(reinterpret_cast<void*>(start), reinterpret_cast<std::uintptr_t>(p) + bytes - start,
                   vec.data()) == 0;
}

TEST(huge_buffer, is_zero_filled_and_writable) {
  std::mt19937_64 rng(7);
  std::vector<std::size_t> counts = {1, 1000, huge_page / 4 - 1, huge_page / 4, huge_page / 4 + 1};
  for (int i = 0; i < 12; ++i) counts.push_back(1 + rng() % (5 * huge_page / 4));
  for (const std::size_t count : counts) {
    weave::huge_buffer<std::uint32_t> b(count);
    ASSERT_EQ(b.size(), count);
    ASSERT_EQ(b.bytes(), count * 4);
    for (std::size_t j = 0; j < count; ++j) ASSERT_EQ(b[j], 0u) << j;
    for (std::size_t j = 0; j < count; ++j) b[j] = static_cast<std::uint32_t>(j * 2654435761u);
    for (std::size_t j = 0; j < count; ++j) ASSERT_EQ(b[j], static_cast<std::uint32_t>(j * 2654435761u));
  }
}

// A 3.8 MiB array (a dictionary of 10^6 integers) is mapped as two whole
// huge pages, so that its second half is not left in small pages; a 2.4 MiB
// one is not (that would cost two thirds more), nor one under a huge page.
TEST(huge_buffer, rounds_up_to_whole_huge_pages_when_that_costs_little) {
  using buffer = weave::huge_buffer<std::uint32_t>;
  EXPECT_EQ(buffer::mapped_bytes(1'000'000), 2 * huge_page);
  EXPECT_EQ(buffer::mapped_bytes(625'000), 2'500'000u);
  EXPECT_EQ(buffer::mapped_bytes(huge_page / 4 - 1), huge_page - 4);
  EXPECT_EQ(buffer::mapped_bytes(7 * huge_page / 32), 7 * huge_page / 8);     // 1.75 MiB: small pages
  EXPECT_EQ(buffer::mapped_bytes(15 * huge_page / 8 + 1), 8 * huge_page);     // 15 MiB and 4 bytes: 16 MiB
  EXPECT_EQ(buffer::mapped_bytes(7 * huge_page / 4 + 1), 7 * huge_page + 4);  // 14 MiB and 4: too much
  EXPECT_EQ(buffer::mapped_bytes(huge_page * 3 / 8 + 1), huge_page * 3 / 2 + 4);  // 3 MiB and 4: too much
}

// The mapping that holds `p`, from /proc/self/maps: {start, end}.
std::pair<std::uintptr_t, std::uintptr_t> mapping_of(const void* p) {
  std::ifstream maps("/proc/self/maps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::string line;
  while (std::getline(maps, line)) {
    std::uintptr_t from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &from, &to) == 2 && from <= at && at < to) {
      return {from, to};
    }
  }
  return {0, 0};
}

TEST(huge_buffer, maps_what_it_says) {
  // The kernel places a new mapping just below the last one; a small one of
  // other flags first keeps the array's from merging with a neighbour's.
  void* guard = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(guard, MAP_FAILED);
  {
    weave::huge_buffer<std::uint32_t> dictionary(1'000'000);
    const auto at = reinterpret_cast<std::uintptr_t>(dictionary.data());
    const auto [from, to] = mapping_of(dictionary.data());
    if (from != at || to > at + 2 * huge_page) {
      ::munmap(guard, 4096);
      GTEST_SKIP() << "the array's mapping merged with a neighbour's";
    }
    EXPECT_EQ(to, at + 2 * huge_page);  // not at + 4,001,792: rounded up
  }
  ::munmap(guard, 4096);
}

TEST(huge_buffer, gives_back_its_whole_mapping) {
  const void* p = nullptr;
  {
    weave::huge_buffer<std::uint32_t> b(1'000'000);
    p = b.data();
  }
  for (std::size_t at = 0; at < 2 * huge_page; at += 4096) {
    ASSERT_FALSE(mapped(static_cast<const char*>(p) + at, 1))
        << "a page " << at << " bytes in is still mapped";
  }
}

TEST(huge_buffer, moves_its_mapping) {
  weave::huge_buffer<std::uint64_t> a(huge_page / 8 * 3);
  a[5] = 42;
  const auto* p = a.data();
  weave::huge_buffer<std::uint64_t> b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b[5], 42u);
  weave::huge_buffer<std::uint64_t> c(10);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), huge_page / 8 * 3);
}

TEST(huge_buffer, refuses_a_size_past_the_address_space) {
  EXPECT_THROW(weave::huge_buffer<std::uint64_t>(~std::size_t{0} / 4), std::bad_alloc);
  EXPECT_THROW(weave::huge_buffer<char>(~std::size_t{0} - huge_page), std::bad_alloc);
}

}  // namespace
