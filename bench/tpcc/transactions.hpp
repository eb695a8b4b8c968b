#pragma once
// The five TPC-C transactions (clause 2.4-2.8) and CH-benCHmark's Q2*, as
// coroutines on the transaction engine. Each is written once:
//
//   Policy    whether reads prefetch and suspend (the scheduler's choice)
//   Nested    operations as nested tasks instead of flat coroutines
//   MultiKey  the long runs of independent lookups (NewOrder's items and
//             stock, StockLevel's and Q2*'s stock) go through multi_get
//
// Inputs are drawn inside the transaction from the worker's random source,
// per clause 2.4.1 etc.; every home warehouse is uniform over the
// warehouses.

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/tpcc/random.hpp"
#include "bench/tpcc/schema.hpp"
#include "bench/workload/acknowledgements.hpp"
#include "bench/workload/nested_ops.hpp"
#include "weave/exec/task.hpp"
#include "weave/txn/engine.hpp"

namespace weave::tpcc {

enum class kind { new_order, payment, order_status, delivery, stock_level, q2 };
inline constexpr std::size_t kinds = 6;
const char* kind_name(kind k);

// What happened to a transaction. A NewOrder with an unused item rolls
// back by the specification; that counts as done, not as an abort. The
// other two are aborts: an operation met another transaction's write, or
// (serializable) the commit could not be made safe.
enum class outcome { committed, rolled_back, write_conflict, serialization_failure };

// A log failure ends the run: the engine acknowledges no more commits.
inline outcome outcome_of(txn::commit_status s) {
  switch (s) {
    case txn::commit_status::committed: return outcome::committed;
    case txn::commit_status::serialization_failure: return outcome::serialization_failure;
    case txn::commit_status::log_failure: bench::pending_acknowledgements::refused();
    case txn::commit_status::write_conflict: break;
  }
  return outcome::write_conflict;
}

// State shared by the workers of one run.
struct shared_state {
  shared_state(txn::engine& e, const tables& tb, std::uint32_t w, std::uint32_t q2_suppliers)
      : db(e), t(tb), warehouses(w), suppliers_per_q2(q2_suppliers), undelivered((w + 1) * 16) {
    for (auto& u : undelivered) u.store(first_new_order, std::memory_order_relaxed);
  }
  txn::engine& db;
  const tables& t;
  std::uint32_t warehouses;
  std::uint32_t suppliers_per_q2;
  // The hot rows the running transactions of every worker update
  // (warehouse, district, a warehouse's deliveries): one that needs a row
  // held begins after its holder commits instead of colliding with it.
  txn::reservations hot;
  // Per district, an order id below which every new-order row is deleted
  // and committed: where Delivery starts its scan (deleted rows stay in the
  // index as tombstones).
  std::vector<std::atomic<std::uint32_t>> undelivered;
};

// One worker's private state, on cache lines of its own.
struct alignas(64) worker_state {
  worker_state(shared_state& s, std::uint32_t id, std::uint64_t seed)
      : shared(&s), worker(id), history_id(next_history_id()), random(seed) {}
  shared_state* shared;
  std::uint32_t worker;
  // History rows are keyed (history_id, sequence): unique across all the
  // worker states of a process, so that runs never insert a key twice.
  std::uint32_t history_id;
  random_source random;
  std::uint64_t history_sequence = 0;
  // What the read-only transactions found (what a terminal would show):
  // results are consumed, as a real client would.
  std::uint64_t checksum = 0;
  // --acks deferred: an interleaved transaction commits in memory and
  // leaves in durable_at what must be durable before it counts; the runner
  // moves it to `unacknowledged` when the transaction ends (nothing of this
  // worker runs in between).
  bool deferred_acks = false;
  std::uint64_t durable_at = 0;
  bench::pending_acknowledgements unacknowledged;

 private:
  static std::uint32_t next_history_id() {
    static std::atomic<std::uint32_t> next{1};  // 0 is the load's
    return next.fetch_add(1, std::memory_order_relaxed) & 0xffff;
  }
};

namespace detail {

// The engine's operations in flat or nested form. Plain functions that
// return the operation's task: no frame of their own.
template <class Policy, bool Nested>
struct ops {
  static task<std::optional<std::string_view>> get(txn::transaction& t, const txn::table& tab, std::uint64_t key) {
    if constexpr (Nested) {
      return bench::get_nested<Policy>(t, tab, key);
    } else {
      return t.get<Policy>(tab, key);
    }
  }
  // A read whose record is then written: the put takes what find found.
  static task<std::optional<txn::found_record>> find(txn::transaction& t, const txn::table& tab,
                                                     std::uint64_t key) {
    if constexpr (Nested) {
      return bench::find_nested<Policy>(t, tab, key);
    } else {
      return t.find<Policy>(tab, key);
    }
  }
  static task<txn::status> put(txn::transaction& t, txn::table& tab, std::uint64_t key, std::string_view value) {
    if constexpr (Nested) {
      return bench::put_nested<Policy>(t, tab, key, value);
    } else {
      return t.put<Policy>(tab, key, value);
    }
  }
};

// Under deferred acknowledgements, commits t in memory (worker_state);
// else nothing, and the caller commits as usual.
template <class Policy>
std::optional<outcome> commit_deferred(worker_state& ws, txn::transaction& t) {
  if constexpr (Policy::suspends) {
    if (ws.deferred_acks) {
      const txn::deferred_commit d = t.commit_deferred();
      ws.durable_at = d.durable_at;
      return outcome_of(d.status);
    }
  }
  return std::nullopt;
}

inline std::uint32_t other_warehouse(random_source& r, std::uint32_t w, std::uint32_t warehouses) {
  if (warehouses == 1) return w;
  const std::uint32_t o = r.uniform(1, warehouses - 1);
  return o >= w ? o + 1 : o;
}

inline std::uint64_t key_of(std::string_view v) {
  std::uint64_t k = 0;
  std::memcpy(&k, v.data(), std::min(v.size(), sizeof k));
  return k;
}

// The customer a Payment or OrderStatus names: 60% by last name (the
// middle one of those with the name, by first name), else by id. Nothing if
// no customer has the name.
template <class Policy>
task<std::optional<std::uint64_t>> choose_customer(txn::transaction& t, const tables& tb, random_source& r,
                                                   std::uint32_t w, std::uint32_t d) {
  if (r.uniform(1, 100) > 60) co_return customer_key(w, d, r.nurand(1023, 1, customers_per_district));
  const byte_key from(customer_name_key(w, d, r.random_last_name(), "", 0));
  std::vector<std::pair<byte_key, std::string_view>> found;
  found.reserve(16);  // one scan's worth (a small block: larger ones take malloc's slow path)
  std::size_t matching = 0;
  for (;;) {
    const std::size_t before = found.size();
    co_await t.scan<Policy>(tb.customer_name, before == 0 ? from : found.back().first, 16, found);
    if (before > 0 && found.size() > before) found.erase(found.begin() + static_cast<std::ptrdiff_t>(before));
    matching = 0;
    while (matching < found.size() && found[matching].first.same_prefix(from, customer_name_prefix))
      ++matching;
    if (matching < found.size() || found.size() == before) break;  // past the name, or the end
  }
  if (matching == 0) co_return std::nullopt;
  co_return key_of(found[(matching - 1) / 2].second);
}

}  // namespace detail

template <class Policy, bool Nested, bool MultiKey>
task<outcome> new_order(worker_state& ws, random_source& r) {
  using op = detail::ops<Policy, Nested>;
  shared_state& s = *ws.shared;
  const tables& tb = s.t;
  const std::uint32_t w = r.uniform(1, s.warehouses), d = r.uniform(1, districts_per_warehouse);
  const std::uint32_t c = r.nurand(1023, 1, customers_per_district);
  const std::uint32_t lines = r.uniform(5, 15);
  const bool rollback = r.uniform(1, 100) == 1;
  std::array<std::uint32_t, 15> item{}, supply{}, quantity{};
  bool all_local = true;
  for (std::uint32_t n = 0; n < lines; ++n) {
    item[n] = rollback && n == lines - 1 ? items + 1 : r.nurand(8191, 1, items);
    supply[n] = r.uniform(1, 100) == 1 ? detail::other_warehouse(r, w, s.warehouses) : w;
    all_local = all_local && supply[n] == w;
    quantity[n] = r.uniform(1, 10);
  }

  // The district row, and the stock rows: two New-Orders of one batch on
  // different districts still share items (NURand makes some of them hot).
  std::array<std::uint64_t, 16> rows{txn::reservations::token(tb.district, district_key(w, d))};
  for (std::uint32_t n = 0; n < lines; ++n) {
    rows[n + 1] = txn::reservations::token(tb.stock, stock_key(supply[n], item[n]));
  }
  txn::transaction t =
      s.db.begin(co_await s.hot.reserve<Policy>(std::span<const std::uint64_t>(rows.data(), lines + 1)));
  const auto wv = co_await op::get(t, tb.warehouse, warehouse_key(w));
  const auto dv = co_await op::find(t, tb.district, district_key(w, d));
  const auto cv = co_await op::get(t, tb.customer, customer_key(w, d, c));
  if (!wv || !dv || !cv) co_return outcome::write_conflict;
  district_row district = row_of<district_row>(dv->value);
  const std::uint32_t o = district.next_o_id++;
  if (t.put(tb.district, *dv, as_value(district)) != txn::status::ok) co_return outcome::write_conflict;
  const order_row order{o, d, w, c, 2, 0, lines, all_local ? 1u : 0u};
  if (co_await t.insert<Policy>(tb.order, order_key(w, d, o), as_value(order)) != txn::status::ok ||
      co_await t.insert<Policy>(tb.new_order, order_key(w, d, o), as_value(new_order_row{o, d, w})) !=
          txn::status::ok ||
      co_await t.insert<Policy>(tb.customer_order, customer_order_key(w, d, c, o), as_value(o)) != txn::status::ok) {
    co_return outcome::write_conflict;
  }

  std::array<std::optional<std::string_view>, 15> item_value, stock_value;
  std::array<std::optional<txn::found_record>, 15> stock_found;  // one at a time: found for the put
  if constexpr (MultiKey) {
    std::array<std::uint64_t, 15> keys;
    for (std::uint32_t n = 0; n < lines; ++n) keys[n] = item_key(item[n]);
    t.multi_get(tb.item, std::span<const std::uint64_t>(keys.data(), lines),
                [&](std::size_t n, std::optional<std::string_view> v) { item_value[n] = v; });
    for (std::uint32_t n = 0; n < lines; ++n) keys[n] = stock_key(supply[n], item[n]);
    t.multi_get(tb.stock, std::span<const std::uint64_t>(keys.data(), lines),
                [&](std::size_t n, std::optional<std::string_view> v) { stock_value[n] = v; });
  }
  for (std::uint32_t n = 0; n < lines; ++n) {
    if constexpr (!MultiKey) item_value[n] = co_await op::get(t, tb.item, item_key(item[n]));
    if (!item_value[n]) {  // the unused item: roll back (clause 2.4.2.3)
      t.abort();
      co_return outcome::rolled_back;
    }
    if constexpr (!MultiKey) {
      stock_found[n] = co_await op::find(t, tb.stock, stock_key(supply[n], item[n]));
      if (stock_found[n]) stock_value[n] = stock_found[n]->value;
    }
    if (!stock_value[n]) co_return outcome::write_conflict;
    const item_row it = row_of<item_row>(*item_value[n]);
    stock_row stock = row_of<stock_row>(*stock_value[n]);
    stock.quantity = stock.quantity >= static_cast<std::int32_t>(quantity[n]) + 10
                         ? stock.quantity - static_cast<std::int32_t>(quantity[n])
                         : stock.quantity - static_cast<std::int32_t>(quantity[n]) + 91;
    stock.ytd += quantity[n];
    ++stock.order_cnt;
    if (supply[n] != w) ++stock.remote_cnt;
    txn::status stocked;
    if constexpr (MultiKey) {
      stocked = co_await op::put(t, tb.stock, stock_key(supply[n], item[n]), as_value(stock));
    } else {
      stocked = t.put(tb.stock, *stock_found[n], as_value(stock));
    }
    if (stocked != txn::status::ok) co_return outcome::write_conflict;
    order_line_row line{};
    line.o_id = o;
    line.d_id = d;
    line.w_id = w;
    line.number = n + 1;
    line.i_id = item[n];
    line.supply_w_id = supply[n];
    line.quantity = quantity[n];
    line.amount = static_cast<std::int64_t>(quantity[n]) * it.price;
    line.dist_info = stock.dist[d - 1];
    if (co_await t.insert<Policy>(tb.order_line, order_line_key(w, d, o, n + 1), as_value(line)) != txn::status::ok) {
      co_return outcome::write_conflict;
    }
  }
  if (const auto done = detail::commit_deferred<Policy>(ws, t)) co_return *done;
  co_return outcome_of(co_await t.commit<Policy>());
}

template <class Policy, bool Nested>
task<outcome> payment(worker_state& ws, random_source& r) {
  using op = detail::ops<Policy, Nested>;
  shared_state& s = *ws.shared;
  const tables& tb = s.t;
  const std::uint32_t w = r.uniform(1, s.warehouses), d = r.uniform(1, districts_per_warehouse);
  const bool remote = s.warehouses > 1 && r.uniform(1, 100) <= 15;
  const std::uint32_t cw = remote ? detail::other_warehouse(r, w, s.warehouses) : w;
  const std::uint32_t cd = remote ? r.uniform(1, districts_per_warehouse) : d;
  const std::int64_t amount = r.uniform(100, 500'000);

  const std::array<std::uint64_t, 2> rows{txn::reservations::token(tb.warehouse, warehouse_key(w)),
                                          txn::reservations::token(tb.district, district_key(w, d))};
  txn::transaction t = s.db.begin(co_await s.hot.reserve<Policy>(rows));
  const auto wv = co_await op::find(t, tb.warehouse, warehouse_key(w));
  if (!wv) co_return outcome::write_conflict;
  warehouse_row warehouse = row_of<warehouse_row>(wv->value);
  warehouse.ytd += amount;
  if (t.put(tb.warehouse, *wv, as_value(warehouse)) != txn::status::ok) co_return outcome::write_conflict;
  const auto dv = co_await op::find(t, tb.district, district_key(w, d));
  if (!dv) co_return outcome::write_conflict;
  district_row district = row_of<district_row>(dv->value);
  district.ytd += amount;
  if (t.put(tb.district, *dv, as_value(district)) != txn::status::ok) co_return outcome::write_conflict;
  const std::optional<std::uint64_t> ckey = co_await detail::choose_customer<Policy>(t, tb, r, cw, cd);
  if (!ckey) {  // nobody has the name: nothing to pay
    t.abort();
    co_return outcome::rolled_back;
  }
  const auto cv = co_await op::find(t, tb.customer, *ckey);
  if (!cv) co_return outcome::write_conflict;
  customer_row customer = row_of<customer_row>(cv->value);
  customer.balance -= amount;
  customer.ytd_payment += amount;
  ++customer.payment_cnt;
  if (customer.credit.view() == "BC") {
    std::string data = std::to_string(customer.c_id) + " " + std::to_string(cd) + " " + std::to_string(cw) + " " +
                       std::to_string(d) + " " + std::to_string(w) + " " + std::to_string(amount) + "|";
    data += customer.data.view();
    customer.data.set(data);
  }
  if (t.put(tb.customer, *cv, as_value(customer)) != txn::status::ok) co_return outcome::write_conflict;
  history_row h{};
  h.c_id = customer.c_id;
  h.c_d_id = cd;
  h.c_w_id = cw;
  h.d_id = d;
  h.w_id = w;
  h.date = 2;
  h.amount = amount;
  h.data.set(std::string(warehouse.name.view()) + "    " + std::string(district.name.view()));
  if (co_await t.insert<Policy>(tb.history, history_key(ws.history_id, ++ws.history_sequence), as_value(h)) !=
      txn::status::ok) {
    co_return outcome::write_conflict;
  }
  if (const auto done = detail::commit_deferred<Policy>(ws, t)) co_return *done;
  co_return outcome_of(co_await t.commit<Policy>());
}

template <class Policy, bool Nested>
task<outcome> order_status(worker_state& ws, random_source& r) {
  using op = detail::ops<Policy, Nested>;
  shared_state& s = *ws.shared;
  const tables& tb = s.t;
  const std::uint32_t w = r.uniform(1, s.warehouses), d = r.uniform(1, districts_per_warehouse);

  txn::transaction t = s.db.begin();
  const std::optional<std::uint64_t> ckey = co_await detail::choose_customer<Policy>(t, tb, r, w, d);
  if (!ckey) {
    t.abort();
    co_return outcome::rolled_back;
  }
  const auto cv = co_await op::get(t, tb.customer, *ckey);
  if (!cv) co_return outcome::write_conflict;
  const customer_row customer = row_of<customer_row>(*cv);
  std::vector<std::pair<std::uint64_t, std::string_view>> latest;
  co_await t.scan<Policy>(tb.customer_order, customer_order_key(w, d, customer.c_id, (1u << order_id_bits) - 1), 1,
                          latest);
  std::uint64_t seen = static_cast<std::uint64_t>(customer.balance);
  if (!latest.empty() && latest[0].first >> order_id_bits == *ckey) {
    const std::uint32_t o = row_of<std::uint32_t>(latest[0].second);
    const auto ov = co_await op::get(t, tb.order, order_key(w, d, o));
    if (!ov) co_return outcome::write_conflict;
    const order_row order = row_of<order_row>(*ov);
    std::vector<std::pair<std::uint64_t, std::string_view>> lines;
    co_await t.scan<Policy>(tb.order_line, order_line_key(w, d, o, 1), order.ol_cnt, lines);
    for (const auto& [k, v] : lines) seen += static_cast<std::uint64_t>(row_of<order_line_row>(v).amount);
  }
  ws.checksum += seen;
  if (const auto done = detail::commit_deferred<Policy>(ws, t)) co_return *done;
  co_return outcome_of(co_await t.commit<Policy>());
}

template <class Policy, bool Nested>
task<outcome> delivery(worker_state& ws, random_source& r) {
  using op = detail::ops<Policy, Nested>;
  shared_state& s = *ws.shared;
  const tables& tb = s.t;
  const std::uint32_t w = r.uniform(1, s.warehouses), carrier = r.uniform(1, 10);

  // Two deliveries of one warehouse would delete the same oldest orders.
  const std::array<std::uint64_t, 1> rows{txn::reservations::token(tb.new_order, warehouse_key(w))};
  txn::transaction t = s.db.begin(co_await s.hot.reserve<Policy>(rows));
  std::array<std::uint32_t, districts_per_warehouse + 1> delivered{};
  std::vector<std::pair<std::uint64_t, std::string_view>> found;
  for (std::uint32_t d = 1; d <= districts_per_warehouse; ++d) {
    found.clear();
    const std::uint32_t from = s.undelivered[district_key(w, d)].load(std::memory_order_acquire);
    // Bounded by the district: past its last order lie other districts'
    // delivered ones, deleted but still in the index, which an open scan of
    // an emptied district would walk one by one.
    co_await t.scan<Policy>(tb.new_order, order_key(w, d, from), order_key(w, d, (1u << order_id_bits) - 1),
                            1, found);
    if (found.empty()) continue;  // none undelivered
    const std::uint32_t o = static_cast<std::uint32_t>(found[0].first & ((1u << order_id_bits) - 1));
    if (co_await t.remove<Policy>(tb.new_order, order_key(w, d, o)) != txn::status::ok) co_return outcome::write_conflict;
    const auto ov = co_await op::find(t, tb.order, order_key(w, d, o));
    if (!ov) co_return outcome::write_conflict;
    order_row order = row_of<order_row>(ov->value);
    order.carrier_id = carrier;
    if (t.put(tb.order, *ov, as_value(order)) != txn::status::ok) co_return outcome::write_conflict;
    std::int64_t total = 0;
    for (std::uint32_t n = 1; n <= order.ol_cnt; ++n) {
      const auto lv = co_await op::find(t, tb.order_line, order_line_key(w, d, o, n));
      if (!lv) co_return outcome::write_conflict;
      order_line_row line = row_of<order_line_row>(lv->value);
      total += line.amount;
      line.delivery_d = 2;
      if (t.put(tb.order_line, *lv, as_value(line)) != txn::status::ok) co_return outcome::write_conflict;
    }
    const auto cv = co_await op::find(t, tb.customer, customer_key(w, d, order.c_id));
    if (!cv) co_return outcome::write_conflict;
    customer_row customer = row_of<customer_row>(cv->value);
    customer.balance += total;
    ++customer.delivery_cnt;
    if (t.put(tb.customer, *cv, as_value(customer)) != txn::status::ok) co_return outcome::write_conflict;
    delivered[d] = o;
  }
  const std::optional<outcome> deferred = detail::commit_deferred<Policy>(ws, t);
  if (const outcome o = deferred ? *deferred : outcome_of(co_await t.commit<Policy>()); o != outcome::committed) {
    co_return o;
  }
  for (std::uint32_t d = 1; d <= districts_per_warehouse; ++d) {
    if (delivered[d] == 0) continue;
    auto& hint = s.undelivered[district_key(w, d)];
    std::uint32_t h = hint.load(std::memory_order_relaxed);
    while (h <= delivered[d] && !hint.compare_exchange_weak(h, delivered[d] + 1, std::memory_order_acq_rel)) {
    }
  }
  co_return outcome::committed;
}

namespace detail {
// How many of `keys`' stock rows have a quantity under `threshold`, reading
// them one by one or all through multi_get.
template <class Policy, bool Nested, bool MultiKey>
task<std::uint64_t> count_low_stock(txn::transaction& t, const tables& tb, std::span<const std::uint64_t> keys,
                                    std::int32_t threshold, bool& missing) {
  std::uint64_t low = 0;
  const auto count = [&](std::optional<std::string_view> v) {
    if (!v) {
      missing = true;
    } else if (row_of<stock_row>(*v).quantity < threshold) {
      ++low;
    }
  };
  if constexpr (MultiKey) {
    t.multi_get(tb.stock, keys, [&](std::size_t, std::optional<std::string_view> v) { count(v); });
  } else {
    for (const std::uint64_t k : keys) count(co_await ops<Policy, Nested>::get(t, tb.stock, k));
  }
  co_return low;
}
}  // namespace detail

template <class Policy, bool Nested, bool MultiKey>
task<outcome> stock_level(worker_state& ws, random_source& r) {
  using op = detail::ops<Policy, Nested>;
  shared_state& s = *ws.shared;
  const tables& tb = s.t;
  const std::uint32_t w = r.uniform(1, s.warehouses), d = r.uniform(1, districts_per_warehouse);
  const auto threshold = static_cast<std::int32_t>(r.uniform(10, 20));

  txn::transaction t = s.db.begin();
  const auto dv = co_await op::get(t, tb.district, district_key(w, d));
  if (!dv) co_return outcome::write_conflict;
  const std::uint32_t next = row_of<district_row>(*dv).next_o_id;
  std::vector<std::pair<std::uint64_t, std::string_view>> lines;
  co_await t.scan<Policy>(tb.order_line, order_line_key(w, d, next - 20, 0), 20 * 15, lines);
  std::vector<std::uint64_t> stock_keys;
  for (const auto& [k, v] : lines) {
    if (k >= order_line_key(w, d, next, 0)) break;
    stock_keys.push_back(stock_key(w, row_of<order_line_row>(v).i_id));
  }
  std::sort(stock_keys.begin(), stock_keys.end());
  stock_keys.erase(std::unique(stock_keys.begin(), stock_keys.end()), stock_keys.end());
  bool missing = false;
  ws.checksum += co_await detail::count_low_stock<Policy, Nested, MultiKey>(t, tb, stock_keys, threshold, missing);
  if (missing) co_return outcome::write_conflict;
  if (const auto done = detail::commit_deferred<Policy>(ws, t)) co_return *done;
  co_return outcome_of(co_await t.commit<Policy>());
}

// Q2* after CoroBase's TPC-CH: in one region, for `suppliers_per_q2` of its
// suppliers, the stock of the home warehouse they supply (supplier s
// supplies items s, s + 10000, ...) that runs low; a long read-only
// transaction of independent lookups.
template <class Policy, bool Nested, bool MultiKey>
task<outcome> q2(worker_state& ws, random_source& r) {
  using op = detail::ops<Policy, Nested>;
  shared_state& s = *ws.shared;
  const tables& tb = s.t;
  const std::uint32_t w = r.uniform(1, s.warehouses), region = r.uniform(0, regions - 1);
  const auto threshold = static_cast<std::int32_t>(r.uniform(10, 20));
  std::uint32_t supplier = r.uniform(0, suppliers - 1);

  txn::transaction t = s.db.begin();
  const auto rv = co_await op::get(t, tb.region, region);
  if (!rv) co_return outcome::write_conflict;
  std::vector<std::uint64_t> stock_keys;
  for (std::uint32_t taken = 0; taken < s.suppliers_per_q2; supplier = (supplier + 1) % suppliers) {
    if (supplier % nations % regions != region) continue;
    const auto sv = co_await op::get(t, tb.supplier, supplier);
    if (!sv) co_return outcome::write_conflict;
    ws.checksum += static_cast<std::uint64_t>(row_of<supplier_row>(*sv).acctbal);
    for (std::uint32_t i = supplier == 0 ? suppliers : supplier; i <= items; i += suppliers) {
      stock_keys.push_back(stock_key(w, i));
    }
    ++taken;
  }
  bool missing = false;
  ws.checksum += co_await detail::count_low_stock<Policy, Nested, MultiKey>(t, tb, stock_keys, threshold, missing);
  if (missing) co_return outcome::write_conflict;
  if (const auto done = detail::commit_deferred<Policy>(ws, t)) co_return *done;
  co_return outcome_of(co_await t.commit<Policy>());
}

// The transaction of kind k, its inputs drawn from r.
template <class Policy, bool Nested, bool MultiKey>
task<outcome> run_one(worker_state& ws, kind k, random_source& r) {
  switch (k) {
    case kind::new_order: return new_order<Policy, Nested, MultiKey>(ws, r);
    case kind::payment: return payment<Policy, Nested>(ws, r);
    case kind::order_status: return order_status<Policy, Nested>(ws, r);
    case kind::delivery: return delivery<Policy, Nested>(ws, r);
    case kind::stock_level: return stock_level<Policy, Nested, MultiKey>(ws, r);
    case kind::q2: return q2<Policy, Nested, MultiKey>(ws, r);
  }
  return new_order<Policy, Nested, MultiKey>(ws, r);
}

// The same, run again with the same inputs after an abort, up to `retries`
// times, as an application would; counts the runs again in `retried`.
template <class Policy, bool Nested, bool MultiKey>
task<outcome> run_with_retries(worker_state& ws, kind k, std::size_t retries, std::size_t& retried) {
  const random_source inputs = ws.random.split();
  for (std::size_t attempt = 0;; ++attempt) {
    random_source r = inputs;
    const outcome o = co_await run_one<Policy, Nested, MultiKey>(ws, k, r);
    if (o == outcome::committed || o == outcome::rolled_back || attempt == retries) co_return o;
    ++retried;
  }
}

}  // namespace weave::tpcc
