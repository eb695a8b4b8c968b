#pragma once
// The coro-nested baseline of the transaction benchmarks: get and put as
// nested tasks (the index lookup, then the chain walk and install by record
// id) instead of the engine's flat single-level operations. A key the index
// lacks takes the flat operation, so that a serializable transaction still
// notes the range it found empty. Coroutines: they take the key by value.

#include <optional>
#include <string_view>

#include "weave/exec/task.hpp"
#include "weave/index/olc_btree.hpp"
#include "weave/txn/engine.hpp"

namespace weave::bench {

template <execution_policy Policy, txn::record_key K>
task<std::optional<std::string_view>> get_nested(txn::transaction& t, const txn::table& tab, K key) {
  using traits = txn::detail::record_key_traits<K>;
  const auto oid = co_await lookup<Policy>(tab.index_of<typename traits::index_key>(), traits::to_index(key));
  if (!oid) co_return co_await t.get<Policy>(tab, key);
  co_return co_await t.get_record<Policy>(tab, *oid);
}

template <execution_policy Policy, txn::record_key K>
task<std::optional<txn::found_record>> find_nested(txn::transaction& t, const txn::table& tab, K key) {
  using traits = txn::detail::record_key_traits<K>;
  const auto oid = co_await lookup<Policy>(tab.index_of<typename traits::index_key>(), traits::to_index(key));
  if (!oid) co_return co_await t.find<Policy>(tab, key);
  const auto value = co_await t.get_record<Policy>(tab, *oid);
  if (!value) co_return std::nullopt;
  co_return txn::found_record{&tab, *oid, *value};
}

template <execution_policy Policy, txn::record_key K>
task<txn::status> put_nested(txn::transaction& t, txn::table& tab, K key, std::string_view value) {
  using traits = txn::detail::record_key_traits<K>;
  const auto oid = co_await lookup<Policy>(tab.index_of<typename traits::index_key>(), traits::to_index(key));
  if (!oid) co_return co_await t.put<Policy>(tab, key, value);
  co_return co_await t.put_record<Policy>(tab, *oid, value);
}

}  // namespace weave::bench
