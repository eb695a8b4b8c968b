#include "weave/durability/redo_log.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "weave/durability/log_reader.hpp"
#include "weave/txn/commit_clock.hpp"

namespace weave::durability {
namespace {

namespace fs = std::filesystem;

using test_support::temp_dir;

// Transaction `commit` writes key "k<commit>" with a value that says who wrote it.
std::string key_of(std::uint64_t commit) { return "k" + std::to_string(commit); }
std::string value_of(std::uint64_t commit) { return std::string(commit % 97, 'v') + std::to_string(commit * 31); }

// A commit as the engine makes one: drawn, appended, completed.
std::uint64_t commit_one(txn::commit_clock& clock, redo_log& log, redo_log::buffer& b) {
  const std::uint64_t commit = clock.draw();
  const std::string key = key_of(commit), value = value_of(commit);
  const logged_write w{static_cast<std::uint32_t>(commit % 3), write_op::put, key, value};
  log.append(b, commit, {&w, 1});
  clock.complete(commit);
  return commit;
}

std::function<std::uint64_t()> completed_of(const txn::commit_clock& clock) {
  return [&clock] { return clock.now(); };
}

// Every transaction in the log, checked against what its commit says it wrote.
std::multiset<std::uint64_t> commits_in(const fs::path& dir) {
  std::multiset<std::uint64_t> out;
  read_log(dir, [&](const logged_transaction& t) {
    EXPECT_EQ(t.writes.size(), 1u);
    EXPECT_EQ(t.writes[0].key, key_of(t.commit));
    EXPECT_EQ(t.writes[0].value, value_of(t.commit));
    out.insert(t.commit);
  });
  return out;
}

TEST(redo_log, every_acknowledged_commit_of_every_thread_is_in_the_log_once) {
  temp_dir dir;
  constexpr std::uint64_t threads = 4, per_thread = 3000;
  {
    log_options o;
    o.group_window = std::chrono::microseconds(100);
    o.group_bytes = 4096;  // full buffers wake the flusher early too
    o.segment_bytes = 64 << 10;
    txn::commit_clock clock;
    redo_log log(dir.path, o, completed_of(clock));
    std::vector<std::thread> pool;
    std::atomic<std::uint64_t> refused{0};
    for (std::uint64_t t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        redo_log::buffer& b = log.join();
        for (std::uint64_t i = 0; i < per_thread; ++i) {
          const std::uint64_t commit = commit_one(clock, log, b);
          // Wait on some, as sync commits do; leave others, as async ones do.
          if (i % 4 == 0 && !log.wait_durable(commit)) refused.fetch_add(1);
        }
      });
    }
    for (auto& th : pool) th.join();
    EXPECT_EQ(refused.load(), 0u);
  }  // the destructor flushes what async commits left
  const auto commits = commits_in(dir.path);
  ASSERT_EQ(commits.size(), threads * per_thread);
  std::uint64_t expect = 2;  // the clock's first commit
  for (std::uint64_t c : commits) EXPECT_EQ(c, expect++);
}

// A log with a short window over a new directory, and one worker's buffer.
struct short_window_log {
  temp_dir dir;
  txn::commit_clock clock;
  redo_log log{dir.path, log_options{.group_window = std::chrono::microseconds(50)}, completed_of(clock)};
  redo_log::buffer& b = log.join();
};

TEST(redo_log, a_durable_ticket_is_in_the_files_at_once) {
  short_window_log l;
  auto& [dir, clock, log, b] = l;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t c = commit_one(clock, log, b);
    ASSERT_TRUE(log.wait_durable(c));
    ASSERT_EQ(commits_in(dir.path).count(c), 1u) << "commit " << c << " was acknowledged before it was written";
  }
}

TEST(redo_log, every_round_that_makes_a_commit_durable_counts_its_exposure) {
  short_window_log l;
  auto& [dir, clock, log, b] = l;
  const auto rounds = [&] {
    std::uint64_t n = 0;
    for (std::uint64_t c : log.exposure()) n += c;
    return n;
  };
  EXPECT_EQ(rounds(), 0u);
  for (std::uint64_t i = 1; i <= 20; ++i) {
    // One commit waited for each time: a round of its own.
    ASSERT_TRUE(log.wait_durable(commit_one(clock, log, b)));
    EXPECT_EQ(rounds(), i);
  }
}

TEST(redo_log, a_full_disk_stops_acknowledging) {
  temp_dir dir;
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  {
    log_options o;
    o.group_window = std::chrono::microseconds(50);
    txn::commit_clock clock;
    redo_log log(dir.path, o, completed_of(clock));
    redo_log::buffer& b = log.join();
    struct rlimit small = old;
    small.rlim_cur = 16384;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    std::uint64_t acknowledged = 0;
    for (int i = 0; i < 10000; ++i) {
      const std::uint64_t c = commit_one(clock, log, b);
      if (!log.wait_durable(c)) break;
      acknowledged = c;
    }
    ::setrlimit(RLIMIT_FSIZE, &old);
    EXPECT_TRUE(log.failed());
    EXPECT_FALSE(log.failure().empty());
    EXPECT_FALSE(log.wait_durable(commit_one(clock, log, b))) << "acknowledged after the log failed";
    // What was acknowledged is there, every one of it.
    const auto commits = commits_in(dir.path);
    for (std::uint64_t a = 2; a <= acknowledged; ++a) ASSERT_EQ(commits.count(a), 1u) << a;
  }
  ::signal(SIGXFSZ, old_handler);
}

}  // namespace
}  // namespace weave::durability
