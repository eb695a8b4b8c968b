// A program that uses weave as a library: a transaction inserts two records,
// another reads them back through interleaved coroutines, and a column type is
// parsed and named. Prints what it found; exits 0 only if it is right.

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "weave/column/types.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"
#include "weave/version.hpp"

namespace {

template <class Policy>
weave::task<std::string> read_both(weave::txn::engine& db, const weave::txn::table& users) {
  weave::txn::transaction t = db.begin();
  const std::optional<std::string_view> alice = co_await t.get<Policy>(users, "alice");
  const std::optional<std::string_view> bob = co_await t.get<Policy>(users, "bob");
  std::string both = std::string(alice.value_or("?")) + "," + std::string(bob.value_or("?"));
  t.commit();
  co_return both;
}

}  // namespace

int main() {
  weave::txn::engine db;
  weave::txn::table& users = db.create_table("users", weave::txn::key_kind::bytes);
  {
    weave::txn::transaction t = db.begin();
    if (weave::sync_wait(t.insert<weave::sequential_policy>(users, "alice", "1")) != weave::txn::status::ok) return 1;
    if (weave::sync_wait(t.insert<weave::sequential_policy>(users, "bob", "2")) != weave::txn::status::ok) return 1;
    if (t.commit() != weave::txn::commit_status::committed) return 1;
  }
  const std::string both = weave::sync_wait(read_both<weave::interleaved_policy>(db, users));
  const std::string type = weave::column::column_type::parse("decimal(12,2)").name();
  std::printf("weave %s: alice,bob = %s; type %s\n", weave::version, both.c_str(), type.c_str());
  return both == "1,2" && type == "DECIMAL(12,2)" && std::strlen(weave::version) > 0 ? 0 : 1;
}
