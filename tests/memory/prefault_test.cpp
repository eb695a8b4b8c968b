#include "weave/memory/prefault.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#include "weave/memory/chunk_arena.hpp"
#include "weave/memory/huge_buffer.hpp"

namespace weave {
namespace {

bool kernel_populates() {
#ifdef MADV_POPULATE_WRITE
  void* p = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = ::madvise(p, 4096, MADV_POPULATE_WRITE) == 0;
  ::munmap(p, 4096);
  return ok;
#else
  return false;
#endif
}

// The prefault thread faults pages in while this thread writes to them:
// every value written stays, and the ranges asked for are done.
TEST(prefault, pages_faulted_in_behind_a_writer_keep_what_it_wrote) {
  constexpr std::size_t words = (std::size_t{16} << 20) / sizeof(std::uint64_t);
  huge_buffer<std::uint64_t> buffer(words);
  const std::size_t before = prefaulted_ranges();
  constexpr std::size_t pieces = 8;
  const std::size_t piece = words / pieces;
  for (std::size_t p = 0; p < pieces; ++p) {
    // Ask for this piece and the rest while writing this one.
    prefault_async(buffer.data() + p * piece, (words - p * piece) * sizeof(std::uint64_t));
    for (std::size_t i = p * piece; i < (p + 1) * piece; ++i) buffer[i] = i * 0x9e3779b97f4a7c15ULL;
  }
  prefault_drain();
  for (std::size_t i = 0; i < words; ++i) ASSERT_EQ(buffer[i], i * 0x9e3779b97f4a7c15ULL) << i;
  if (kernel_populates()) {
    EXPECT_GT(prefaulted_ranges(), before);
  }
}

// A range unmapped or made inaccessible before its turn is skipped, not a
// crash, and later ranges are still faulted in.
TEST(prefault, a_range_gone_before_its_turn_is_skipped_and_the_next_served) {
  for (int round = 0; round < 20; ++round) {
    huge_buffer<std::byte> gone(std::size_t{4} << 20);
    prefault_async(gone.data(), gone.size());
  }
  void* closed =
      ::mmap(nullptr, std::size_t{4} << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(closed, MAP_FAILED);
  prefault_async(closed, std::size_t{4} << 20);  // refused by the kernel
  prefault_drain();
  ::munmap(closed, std::size_t{4} << 20);
  const std::size_t before = prefaulted_ranges();
  huge_buffer<std::byte> live(std::size_t{4} << 20);
  prefault_async(live.data(), live.size());
  prefault_drain();
  if (kernel_populates()) {
    EXPECT_EQ(prefaulted_ranges(), before + 1);
  }
}

// A large chunk of an arena is faulted in past its first huge page; what
// the arena hands out reads as zero and keeps what is written.
TEST(prefault, a_large_arena_chunk_is_faulted_in_and_stays_zero_until_written) {
  chunk_arena arena(std::size_t{8} << 20);
  auto* first = static_cast<std::uint64_t*>(arena.allocate(std::size_t{8} << 20, 64));
  first[0] = 7;
  prefault_drain();
  const std::size_t words = (std::size_t{8} << 20) / sizeof(std::uint64_t);
  for (std::size_t i = 1; i < words; ++i) ASSERT_EQ(first[i], 0u) << i;
  EXPECT_EQ(first[0], 7u);
}

// fork() in the middle of requests: the child starts a thread of its own
// and its requests finish (the test would hang otherwise; alarm ends it).
TEST(prefault, a_child_after_fork_prefaults_with_a_thread_of_its_own) {
  huge_buffer<std::byte> buffer(std::size_t{8} << 20);
  for (int i = 0; i < 8; ++i) prefault_async(buffer.data(), buffer.size());
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::alarm(20);
    huge_buffer<std::byte> mine(std::size_t{8} << 20);
    prefault_async(mine.data(), mine.size());
    prefault_drain();
    mine[mine.size() - 1] = std::byte{1};
    ::_exit(mine[mine.size() - 1] == std::byte{1} ? 0 : 1);
  }
  prefault_drain();
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child did not finish (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace weave
