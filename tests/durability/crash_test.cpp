// Crashes: a child process runs bank transfers on a durable engine, on two
// threads, and tells the parent each transfer it got acknowledged; the
// parent kills it with SIGKILL at a random moment, opens the directory and
// checks that every acknowledged transfer is there (sync) or that what was
// lost is the newest of each thread's and was acknowledged shortly before
// the kill (async), that the money adds up, and
// that every transfer there is whole. The same directory goes through every
// kill, so each child first recovers from the last.

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace weave::txn {
namespace {

using durability::durability_mode;
using test_support::temp_dir;

constexpr std::uint64_t accounts_count = 64;
constexpr std::int64_t opening_balance = 1000;

std::string bytes_of(std::int64_t v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); }
std::int64_t number_of(std::string_view s, std::size_t at = 0) {
  std::int64_t v = 0;
  std::memcpy(&v, s.data() + at, sizeof v);
  return v;
}

engine_options options_for(durability_mode mode, isolation level, bool checkpoints) {
  engine_options o;
  o.level = level;
  o.log.mode = mode;
  o.log.group_window = std::chrono::microseconds(200);
  o.log.segment_bytes = 64 << 10;
  if (checkpoints) o.checkpoint_every = std::chrono::milliseconds(15);
  return o;
}

// Moves money between two accounts and records the transfer under `id`.
template <class Policy>
task<commit_status> transfer(engine& db, table& accounts, table& transfers, std::uint64_t id, std::uint64_t from,
                             std::uint64_t to, std::int64_t amount) {
  transaction t = db.begin();
  const auto a = co_await t.get<Policy>(accounts, from);
  const auto b = co_await t.get<Policy>(accounts, to);
  if (!a || !b) co_return commit_status::write_conflict;  // cannot be: accounts are never removed
  const std::int64_t new_a = number_of(*a) - amount, new_b = number_of(*b) + amount;
  if (co_await t.put<Policy>(accounts, from, bytes_of(new_a)) != status::ok) co_return commit_status::write_conflict;
  if (co_await t.put<Policy>(accounts, to, bytes_of(new_b)) != status::ok) co_return commit_status::write_conflict;
  const std::string record = bytes_of(static_cast<std::int64_t>(from)) + bytes_of(static_cast<std::int64_t>(to)) +
                             bytes_of(amount);
  if (co_await t.insert<Policy>(transfers, id, record) != status::ok) co_return commit_status::write_conflict;
  co_return co_await t.commit<Policy>();
}

enum class run_mode { sequential, strict_batches, pipeline };

// The child: transfers until it is killed. Writes each acknowledged id to
// `out`, with the time of its acknowledgement (steady_clock is
// CLOCK_MONOTONIC, the same clock in both processes).
[[noreturn]] void run_child(const std::filesystem::path& dir, engine_options options, run_mode how, int out,
                            std::uint64_t cycle) {
  try {
    auto db = engine::open(dir, options);
    table& accounts = *db->find_table("accounts");
    table& transfers = *db->find_table("transfers");
    std::vector<std::thread> threads;
    for (std::uint64_t th = 0; th < 2; ++th) {
      threads.emplace_back([&, th] {
        std::mt19937_64 rng(cycle * 2 + th);
        participant& me = db->join();
        for (std::uint64_t next = 0;;) {
          constexpr std::size_t batch = 16;
          const auto make = [&](auto policy, std::size_t i) {
            const std::uint64_t from = rng() % accounts_count;
            const std::uint64_t to = (from + 1 + rng() % (accounts_count - 1)) % accounts_count;
            const std::uint64_t id = (cycle << 40) | (th << 32) | (next + i);
            return transfer<decltype(policy)>(*db, accounts, transfers, id, from, to,
                                              static_cast<std::int64_t>(rng() % 50));
          };
          const auto sink = [&](std::size_t i, commit_status s) {
            if (s != commit_status::committed) return;
            const std::uint64_t id = (cycle << 40) | (th << 32) | (next + i);
            const std::int64_t at = std::chrono::steady_clock::now().time_since_epoch().count();
            char message[16];
            std::memcpy(message, &id, 8);
            std::memcpy(message + 8, &at, 8);
            if (::write(out, message, sizeof message) != sizeof message) ::_exit(3);
          };
          const epoch_guard g = db->enter(me);
          switch (how) {
            case run_mode::sequential: sequential_scheduler{}.run(0, batch, make, sink); break;
            case run_mode::strict_batches: batched_scheduler{8}.run(0, batch, make, sink); break;
            case run_mode::pipeline: interleaved_scheduler{8}.run(0, batch, make, sink); break;
          }
          next += batch;
          // Under async the child runs for longer (below): paced, so that
          // the bank the next cycles recover stays small.
          if (options.log.mode == durability_mode::async) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      });
    }
    for (auto& t : threads) t.join();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child: %s\n", e.what());
    ::_exit(2);
  }
  ::_exit(0);
}

struct acknowledgement {
  std::uint64_t id;
  std::chrono::steady_clock::time_point at;
};

struct crash_result {
  std::vector<acknowledgement> acknowledged;  // in the order each thread got them
  std::chrono::steady_clock::time_point killed_at;
  int status = 0;
};

// Runs a child until it has acknowledged `target` transfers and run for
// `least` since its first (or ten seconds have passed), kills it, and
// collects every id it reported.
crash_result crash_once(const std::filesystem::path& dir, engine_options options, run_mode how,
                        std::uint64_t cycle, std::size_t target, std::chrono::milliseconds least) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe");
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("fork");
  if (child == 0) {
    ::close(fds[0]);
    run_child(dir, options, how, fds[1], cycle);
  }
  ::close(fds[1]);
  crash_result r;
  std::string pending;
  const auto read_some = [&](int timeout_ms) {
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    char buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) return false;
    pending.append(buf, static_cast<std::size_t>(n));
    std::size_t used = 0;
    for (; pending.size() - used >= 16; used += 16) {
      std::uint64_t id = 0;
      std::int64_t at = 0;
      std::memcpy(&id, pending.data() + used, 8);
      std::memcpy(&at, pending.data() + used + 8, 8);
      using clock = std::chrono::steady_clock;
      r.acknowledged.push_back({id, clock::time_point(clock::duration(at))});
    }
    pending.erase(0, used);
    return true;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  const auto enough = [&] {
    return r.acknowledged.size() >= target && std::chrono::steady_clock::now() - r.acknowledged.front().at >= least;
  };
  while (!enough() && std::chrono::steady_clock::now() < deadline) {
    if (!read_some(100)) {
      int status = 0;
      if (::waitpid(child, &status, WNOHANG) == child) {  // it ended by itself: a failure
        ::close(fds[0]);
        r.status = status;
        return r;
      }
    }
  }
  r.killed_at = std::chrono::steady_clock::now();
  ::kill(child, SIGKILL);
  while (read_some(1000)) {
  }
  ::close(fds[0]);
  ::waitpid(child, &r.status, 0);
  return r;
}

void create_bank(const std::filesystem::path& dir) {
  auto db = engine::open(dir, options_for(durability_mode::sync, isolation::snapshot, false));
  table& accounts = db->create_table("accounts", key_kind::integer);
  db->create_table("transfers", key_kind::integer);
  transaction t = db->begin();
  for (std::uint64_t a = 0; a < accounts_count; ++a) {
    ASSERT_EQ(sync_wait(t.insert<sequential_policy>(accounts, a, bytes_of(opening_balance))), status::ok);
  }
  ASSERT_EQ(t.commit(), commit_status::committed);
}

// The bank as recovered: every transfer there, and whether the balances are
// exactly what they make of the opening ones.
struct bank_state {
  std::set<std::uint64_t> transfers;
  bool balances_match = false;
  std::int64_t total = 0;
};

bank_state check_bank(const std::filesystem::path& dir) {
  auto db = engine::open(dir, options_for(durability_mode::sync, isolation::snapshot, false));
  transaction t = db->begin();
  std::vector<std::pair<std::uint64_t, std::string_view>> accounts, transfers;
  sync_wait(t.scan<sequential_policy>(*db->find_table("accounts"), std::uint64_t{0}, ~std::size_t{0}, accounts));
  sync_wait(t.scan<sequential_policy>(*db->find_table("transfers"), std::uint64_t{0}, ~std::size_t{0}, transfers));
  bank_state s;
  std::map<std::uint64_t, std::int64_t> expect;
  for (std::uint64_t a = 0; a < accounts_count; ++a) expect[a] = opening_balance;
  for (const auto& [id, record] : transfers) {
    s.transfers.insert(id);
    const auto amount = number_of(record, 16);
    expect[static_cast<std::uint64_t>(number_of(record, 0))] -= amount;
    expect[static_cast<std::uint64_t>(number_of(record, 8))] += amount;
  }
  std::map<std::uint64_t, std::int64_t> got;
  for (const auto& [a, balance] : accounts) {
    got[a] = number_of(balance);
    s.total += number_of(balance);
  }
  s.balances_match = got == expect;
  t.abort();
  return s;
}

TEST(crash, kill_9_loses_no_acknowledged_transfer_and_half_applies_none) {
  temp_dir dir;
  create_bank(dir.path);
  std::mt19937_64 rng(42);
  std::size_t kills = 0, acknowledged = 0, lost_async = 0;
  // Under async a kill may lose the commits acknowledged in the last group
  // window or so (the window, then the round's write and sync). The bound
  // leaves room for a slow disk, a sanitizer, and a flusher that waits for
  // a core while other tests run beside this one (with two busy loops
  // beside it, losses reached 146 ms; the test failed once in a full ctest
  // -j2 run, its log lost). The child runs longer than the bound, so a log
  // that stopped writing would still break it.
  constexpr auto async_loss_bound = std::chrono::milliseconds(1000);
  constexpr auto async_run = std::chrono::milliseconds(1500);
  std::chrono::steady_clock::duration oldest_loss{0};
  // CI kills 24 times; a soak sets WEAVE_CRASH_KILLS (docs/results/durability.md).
  std::size_t cycles = 24;
  if (const char* env = std::getenv("WEAVE_CRASH_KILLS")) {
    cycles = std::strtoull(env, nullptr, 10);
    ASSERT_GT(cycles, 0u) << "WEAVE_CRASH_KILLS must be a positive count";
  }
  for (std::uint64_t cycle = 1; cycle <= cycles; ++cycle) {
    const durability_mode mode = cycle % 4 == 0 ? durability_mode::async : durability_mode::sync;
    const isolation level = cycle % 2 == 0 ? isolation::serializable : isolation::snapshot;
    const auto how = static_cast<run_mode>(cycle % 3);
    const bool checkpoints = cycle % 5 < 2;
    const crash_result r =
        crash_once(dir.path, options_for(mode, level, checkpoints), how, cycle, 20 + rng() % 400,
                   mode == durability_mode::async ? async_run : std::chrono::milliseconds(0));
    ASSERT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL)
        << "cycle " << cycle << ": the child ended by itself (status " << r.status << ")";
    ++kills;
    acknowledged += r.acknowledged.size();
    const bank_state s = check_bank(dir.path);
    ASSERT_EQ(s.total, static_cast<std::int64_t>(accounts_count) * opening_balance) << "cycle " << cycle;
    ASSERT_TRUE(s.balances_match) << "cycle " << cycle << ": a transfer is half applied";
    if (mode == durability_mode::sync) {
      for (const acknowledgement& a : r.acknowledged) {
        ASSERT_TRUE(s.transfers.count(a.id)) << "cycle " << cycle << ": acknowledged transfer " << a.id << " is lost";
      }
    } else {
      // A prefix of each thread's commits survives: once one is lost, so
      // are the ones it acknowledged after it.
      std::map<std::uint64_t, bool> lost_one;
      for (const auto& [id, at] : r.acknowledged) {
        const std::uint64_t thread = (id >> 32) & 0xff;
        const bool present = s.transfers.count(id) > 0;
        ASSERT_FALSE(present && lost_one[thread]) << "cycle " << cycle << ": transfer " << id
                                                  << " survived one acknowledged before it";
        if (!present) {
          lost_one[thread] = true;
          ++lost_async;
          const auto age = r.killed_at - at;
          oldest_loss = std::max(oldest_loss, age);
          ASSERT_LE(age, async_loss_bound) << "cycle " << cycle << ": transfer " << id << ", acknowledged "
                                           << std::chrono::duration<double, std::milli>(age).count()
                                           << " ms before the kill, is lost";
        }
      }
    }
  }
  std::printf("%zu kills, %zu acknowledged transfers checked, %zu lost under async, the oldest acknowledged %.2f ms "
              "before its kill\n",
              kills, acknowledged, lost_async, std::chrono::duration<double, std::milli>(oldest_loss).count());
}

}  // namespace
}  // namespace weave::txn
