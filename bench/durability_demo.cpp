// weave demo's durability part: a bank on a durable engine under `sync` is
// killed with SIGKILL in the middle of its transfers, and the directory is
// recovered: every acknowledged transfer must be there and the money whole.

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/demo.hpp"
#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace weave::bench {

namespace {

constexpr std::uint64_t accounts = 1000;
constexpr std::int64_t opening = 1000;
constexpr std::size_t kill_after = 20'000;  // acknowledged transfers

std::string money(std::int64_t v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); }
std::int64_t money_of(std::string_view s) {
  std::int64_t v = 0;
  std::memcpy(&v, s.data(), sizeof v);
  return v;
}

template <class Policy>
task<txn::commit_status> transfer(txn::engine& db, txn::table& balances, txn::table& log, std::uint64_t id,
                                  std::uint64_t from, std::uint64_t to) {
  txn::transaction t = db.begin();
  const auto a = co_await t.get<Policy>(balances, from);
  const auto b = co_await t.get<Policy>(balances, to);
  if (!a || !b) co_return txn::commit_status::write_conflict;
  if (co_await t.put<Policy>(balances, from, money(money_of(*a) - 1)) != txn::status::ok ||
      co_await t.put<Policy>(balances, to, money(money_of(*b) + 1)) != txn::status::ok ||
      co_await t.insert<Policy>(log, id, money(static_cast<std::int64_t>(from))) != txn::status::ok) {
    co_return txn::commit_status::write_conflict;
  }
  co_return co_await t.commit<Policy>();
}

// The child: transfers, eight in flight, each acknowledged id to `out`, until killed.
[[noreturn]] void run_bank(const std::filesystem::path& dir, int out) {
  try {
    auto db = txn::engine::open(dir);
    txn::table& balances = *db->find_table("balances");
    txn::table& log = *db->find_table("transfers");
    participant& me = db->join();
    std::mt19937_64 rng(1);
    for (std::uint64_t next = 0;; next += 256) {
      const epoch_guard g = db->enter(me);
      batched_scheduler{8}.run(
          next, next + 256,
          [&](auto policy, std::size_t id) {
            const std::uint64_t from = rng() % accounts, to = (from + 1 + rng() % (accounts - 1)) % accounts;
            return transfer<decltype(policy)>(*db, balances, log, id, from, to);
          },
          [&](std::size_t id, txn::commit_status s) {
            const std::uint64_t acked = id;
            if (s == txn::commit_status::committed && ::write(out, &acked, sizeof acked) != sizeof acked) ::_exit(3);
          });
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weave demo: the bank failed: %s\n", e.what());
  }
  ::_exit(2);
}

}  // namespace

void run_durability_demo(const demo_options&) {
  namespace fs = std::filesystem;
  std::string pattern = (fs::temp_directory_path() / "weave-demo-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot make a temporary directory");
  const fs::path dir = pattern;
  struct remover {
    fs::path p;
    ~remover() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{dir};
  {
    auto db = txn::engine::open(dir);
    txn::table& balances = db->create_table("balances");
    db->create_table("transfers");
    txn::transaction t = db->begin();
    for (std::uint64_t a = 0; a < accounts; ++a) sync_wait(t.insert<sequential_policy>(balances, a, money(opening)));
    if (t.commit() != txn::commit_status::committed) throw std::runtime_error("the demo bank did not open");
  }
  std::fflush(stdout);  // the child must not print what the parent buffered
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    ::close(fds[0]);
    run_bank(dir, fds[1]);
  }
  ::close(fds[1]);
  std::set<std::uint64_t> acknowledged;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool killed = false;
  for (std::string pending;;) {
    if (!killed && (acknowledged.size() >= kill_after || std::chrono::steady_clock::now() > deadline)) {
      ::kill(child, SIGKILL);
      killed = true;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, 1000) <= 0 && killed) break;
    char buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // the child is gone
    pending.append(buf, static_cast<std::size_t>(n));
    for (; pending.size() >= 8; pending.erase(0, 8)) {
      std::uint64_t id = 0;
      std::memcpy(&id, pending.data(), 8);
      acknowledged.insert(id);
    }
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) throw std::runtime_error("the demo bank stopped by itself");

  auto db = txn::engine::open(dir);
  const txn::recovery_report& r = db->recovery();
  txn::transaction t = db->begin();
  std::vector<std::pair<std::uint64_t, std::string_view>> balances, transfers;
  sync_wait(t.scan<sequential_policy>(*db->find_table("balances"), std::uint64_t{0}, ~std::size_t{0}, balances));
  sync_wait(t.scan<sequential_policy>(*db->find_table("transfers"), std::uint64_t{0}, ~std::size_t{0}, transfers));
  std::int64_t total = 0;
  for (const auto& b : balances) total += money_of(b.second);
  std::set<std::uint64_t> present;
  for (const auto& x : transfers) present.insert(x.first);
  std::size_t kept = 0;
  for (std::uint64_t id : acknowledged) kept += present.count(id);
  t.abort();
  fmt::print("\ndurability: a bank on one worker under sync, killed with SIGKILL after {} acknowledged transfers;\n"
             "  recovered in {:.1f} ms ({} logged transactions replayed): {} of {} acknowledged transfers kept, "
             "{} more made durable before the kill; money {}\n",
             acknowledged.size(), r.seconds * 1e3, r.log_transactions, kept, acknowledged.size(),
             present.size() - kept, total == static_cast<std::int64_t>(accounts) * opening ? "whole" : "NOT WHOLE");
  if (kept != acknowledged.size() || total != static_cast<std::int64_t>(accounts) * opening) {
    throw std::runtime_error("the recovered bank lost an acknowledged transfer or money");
  }
}

}  // namespace weave::bench
