// A bank on weave's transaction engine.
//
// An application writes each transaction as a coroutine over an execution
// policy and uses single-key operations (get, put, insert, remove, scan);
// `co_await` marks where an operation may wait for memory. A scheduler then
// runs many transactions on one thread: sequentially, or interleaved so that
// one transaction's cache misses overlap another's work.
//
//   build/release/bank   (built with the weave command; see README)

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace {

using weave::txn::status;

std::string money(std::int64_t cents) { return std::string(reinterpret_cast<const char*>(&cents), sizeof cents); }
std::int64_t cents(std::string_view bytes) {
  std::int64_t c = 0;
  std::memcpy(&c, bytes.data(), sizeof c);
  return c;
}

// Moves `amount` between two accounts. Returns false if it did not commit
// (a write-write conflict with a concurrent transfer, or an overdraft).
template <class Policy>
weave::task<bool> transfer(weave::txn::engine& db, weave::txn::table& accounts, std::uint64_t from,
                           std::uint64_t to, std::int64_t amount) {
  weave::txn::transaction t = db.begin();
  const auto a = co_await t.get<Policy>(accounts, from);
  const auto b = co_await t.get<Policy>(accounts, to);
  if (!a || !b || cents(*a) < amount) co_return false;  // the destructor aborts
  if (co_await t.put<Policy>(accounts, from, money(cents(*a) - amount)) != status::ok) co_return false;
  if (co_await t.put<Policy>(accounts, to, money(cents(*b) + amount)) != status::ok) co_return false;
  co_return t.commit() == weave::txn::commit_status::committed;
}

// The sum of all balances in one snapshot.
template <class Policy>
weave::task<std::int64_t> audit(weave::txn::engine& db, const weave::txn::table& accounts) {
  weave::txn::transaction t = db.begin();
  std::vector<std::pair<std::uint64_t, std::string_view>> all;
  co_await t.scan<Policy>(accounts, 0, ~std::size_t{0}, all);
  std::int64_t total = 0;
  for (const auto& [account, balance] : all) total += cents(balance);
  t.commit();
  co_return total;
}

}  // namespace

int main() {
  constexpr std::uint64_t accounts_count = 100'000;
  weave::txn::engine db;
  weave::txn::table& accounts = db.create_table("accounts");
  {
    weave::txn::transaction t = db.begin();
    for (std::uint64_t a = 0; a < accounts_count; ++a) {
      if (weave::sync_wait(t.insert<weave::sequential_policy>(accounts, a, money(10'000))) != status::ok) return 1;
    }
    if (t.commit() != weave::txn::commit_status::committed) return 1;
  }

  // 200,000 random transfers, eight transactions in flight at a time.
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> from(200'000), to(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) {
    from[i] = rng() % accounts_count;
    to[i] = (from[i] + 1 + rng() % (accounts_count - 1)) % accounts_count;
  }
  // A worker joins the engine once and brackets each batch of transactions
  // with an epoch: old versions are then pruned and freed as it goes.
  weave::participant& worker = db.join();
  std::size_t committed = 0;
  constexpr std::size_t batch = 10'000;
  for (std::size_t first = 0; first < from.size(); first += batch) {
    const weave::epoch_guard epoch = db.enter(worker);
    weave::batched_scheduler{8}.run(
        first, std::min(first + batch, from.size()),
        [&](auto policy, std::size_t i) { return transfer<decltype(policy)>(db, accounts, from[i], to[i], 2'500); },
        [&](std::size_t, bool ok) { committed += ok ? 1 : 0; });
  }

  const std::int64_t total = weave::sync_wait(audit<weave::interleaved_policy>(db, accounts));
  std::printf("%zu of %zu transfers committed; total %lld cents (expected %lld)\n", committed, from.size(),
              static_cast<long long>(total), static_cast<long long>(accounts_count * 10'000));
  return total == static_cast<std::int64_t>(accounts_count * 10'000) ? 0 : 1;
}
