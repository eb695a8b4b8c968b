#include "bench/tpcc/load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bench/tpcc/random.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/exec/thread_group.hpp"
#include "weave/memory/saturating.hpp"

namespace weave::tpcc {

std::string customer_name_key(std::uint32_t w, std::uint32_t d, std::string_view last, std::string_view first,
                              std::uint32_t c) {
  std::string k(customer_name_prefix + 16 + 2, '\0');
  k[0] = static_cast<char>(w >> 8);
  k[1] = static_cast<char>(w);
  k[2] = static_cast<char>(d);
  std::memcpy(k.data() + 3, last.data(), std::min<std::size_t>(last.size(), 16));
  std::memcpy(k.data() + customer_name_prefix, first.data(), std::min<std::size_t>(first.size(), 16));
  k[customer_name_prefix + 16] = static_cast<char>(c >> 8);
  k[customer_name_prefix + 17] = static_cast<char>(c);
  return k;
}

tables tables::create(txn::engine& db, std::uint32_t warehouses, bool inline_values) {
  const std::size_t w = warehouses, districts = w * districts_per_warehouse;
  const std::size_t customers = districts * customers_per_district;
  const std::size_t orders = districts * initial_orders_per_district;
  // Rows written once (or once and then deleted or delivered) are read from
  // their slots; a slot whose row is overwritten keeps the dead first
  // version's bytes, which would cost the often-updated tables memory.
  const auto in_slot = [inline_values](std::size_t row_bytes) { return inline_values ? row_bytes : 0; };
  return tables{
      db.create_table("warehouse", txn::key_kind::integer, w),
      db.create_table("district", txn::key_kind::integer, districts),
      db.create_table("customer", txn::key_kind::integer, customers),
      db.create_table("customer_name", txn::key_kind::bytes, customers, in_slot(sizeof(std::uint64_t))),
      db.create_table("history", txn::key_kind::integer, customers, in_slot(sizeof(history_row))),
      db.create_table("new_order", txn::key_kind::integer, orders, in_slot(sizeof(new_order_row))),
      db.create_table("order", txn::key_kind::integer, orders, in_slot(sizeof(order_row))),
      db.create_table("customer_order", txn::key_kind::integer, orders, in_slot(sizeof(std::uint32_t))),
      db.create_table("order_line", txn::key_kind::integer, orders * 15, in_slot(sizeof(order_line_row))),
      db.create_table("item", txn::key_kind::integer, items, in_slot(sizeof(item_row))),
      db.create_table("stock", txn::key_kind::integer, w * items),
      db.create_table("supplier", txn::key_kind::integer, suppliers, in_slot(sizeof(supplier_row))),
      db.create_table("nation", txn::key_kind::integer, nations, in_slot(sizeof(nation_row))),
      db.create_table("region", txn::key_kind::integer, regions, in_slot(sizeof(region_row))),
  };
}

std::size_t estimated_bytes(std::uint32_t warehouses, std::size_t new_orders) {
  // Rows with their version headers, slots and index entries; order lines
  // average 10 per order.
  constexpr std::size_t overhead = sizeof(txn::version) + 8 + 24;
  const std::size_t per_warehouse =
      items * (sizeof(stock_row) + overhead) +
      districts_per_warehouse * customers_per_district *
          (sizeof(customer_row) + sizeof(history_row) + 2 * overhead + 80) +
      districts_per_warehouse * initial_orders_per_district *
          (sizeof(order_row) + 16 + 2 * overhead + 10 * (sizeof(order_line_row) + overhead));
  const std::size_t per_new_order = sizeof(order_row) + sizeof(new_order_row) + 16 + sizeof(history_row) +
                                    3 * overhead + 10 * (sizeof(order_line_row) + overhead);
  return saturating_add(saturating_add(saturating_mul(warehouses, per_warehouse), items * (sizeof(item_row) + overhead)),
                        saturating_mul(new_orders, per_new_order));
}

namespace {

using txn::status;

// Inserts rows in transactions of a few thousand; flush() commits the last
// (a loader destroyed without it aborts what is pending). Under sync the
// commits do not wait for the disk one by one (each would wait out a group
// window): durable() waits once for all of them.
class loader {
 public:
  explicit loader(txn::engine& db) : db_(&db), t_(std::make_unique<txn::transaction>(db)) {}

  template <class K, class Row>
  void insert(txn::table& table, const K& key, const Row& row) {
    insert_value(table, key, as_value(row));
  }
  template <class K>
  void insert_value(txn::table& table, const K& key, std::string_view value) {
    if (sync_wait(t_->insert<sequential_policy>(table, key, value)) != status::ok) {
      throw std::runtime_error(fmt::format("loading table '{}' failed: a duplicate key", table.name()));
    }
    if (++pending_ == 4096) flush();
  }
  void flush() {
    if (pending_ == 0) return;
    const txn::deferred_commit c = t_->commit_deferred();
    if (c.status != txn::commit_status::committed) throw std::runtime_error("a loading transaction did not commit");
    durable_at_ = std::max(durable_at_, c.durable_at);
    t_ = std::make_unique<txn::transaction>(*db_);
    pending_ = 0;
  }
  // Every commit so far is durable (at once without a sync log).
  void durable() {
    if (durable_at_ != 0 && db_->wait_acknowledgement(durable_at_) != txn::commit_status::committed) {
      throw std::runtime_error("the log failed while loading");
    }
  }

 private:
  txn::engine* db_;
  std::unique_ptr<txn::transaction> t_;
  std::size_t pending_ = 0;
  std::uint64_t durable_at_ = 0;
};

void load_items(loader& l, const tables& t, random_source& r) {
  for (std::uint32_t i = 1; i <= items; ++i) {
    item_row row{};
    row.i_id = i;
    row.im_id = r.uniform(1, 10000);
    row.name.set(r.alphanumeric(14, 24));
    row.price = r.uniform(100, 10000);
    row.data.set(r.data(26, 50));
    l.insert(t.item, item_key(i), row);
  }
}

// Regions, nations (62, spread over the 5 regions) and suppliers (10000,
// supplier s in nation s mod 62). Stock (w, i) is supplied by supplier
// i mod 10000 (CH-benCHmark uses (w * i) mod 10000; this way Q2* finds a
// supplier's items without a search).
void load_ch_tables(loader& l, const tables& t, random_source& r) {
  static constexpr const char* region_names[] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
  for (std::uint32_t g = 0; g < regions; ++g) {
    region_row row{};
    row.r_regionkey = g;
    row.name.set(region_names[g]);
    l.insert(t.region, std::uint64_t{g}, row);
  }
  for (std::uint32_t n = 0; n < nations; ++n) {
    nation_row row{};
    row.n_nationkey = n;
    row.n_regionkey = n % regions;
    row.name.set(fmt::format("NATION{:02}", n));
    l.insert(t.nation, std::uint64_t{n}, row);
  }
  for (std::uint32_t s = 0; s < suppliers; ++s) {
    supplier_row row{};
    row.su_suppkey = s;
    row.su_nationkey = s % nations;
    row.name.set(fmt::format("Supplier#{:09}", s));
    row.address.set(r.alphanumeric(10, 40));
    row.phone.set(r.numeric(15));
    row.acctbal = static_cast<std::int64_t>(r.uniform(0, 2'000'000)) - 100'000;
    l.insert(t.supplier, std::uint64_t{s}, row);
  }
}

void load_warehouse(loader& l, const tables& t, std::uint32_t w, random_source& r) {
  const auto address = [&](auto& row) {
    row.street_1.set(r.alphanumeric(10, 20));
    row.street_2.set(r.alphanumeric(10, 20));
    row.city.set(r.alphanumeric(10, 20));
    row.state.set(r.alphanumeric(2, 2));
    row.zip.set(r.zip());
  };
  warehouse_row wr{};
  wr.w_id = w;
  wr.name.set(r.alphanumeric(6, 10));
  address(wr);
  wr.tax = static_cast<std::int32_t>(r.uniform(0, 2000));
  wr.ytd = 300'000'00;
  l.insert(t.warehouse, warehouse_key(w), wr);

  for (std::uint32_t i = 1; i <= items; ++i) {
    stock_row s{};
    s.i_id = i;
    s.w_id = w;
    s.quantity = static_cast<std::int32_t>(r.uniform(10, 100));
    for (auto& d : s.dist) d.set(r.alphanumeric(24, 24));
    s.data.set(r.data(26, 50));
    l.insert(t.stock, stock_key(w, i), s);
  }

  for (std::uint32_t d = 1; d <= districts_per_warehouse; ++d) {
    district_row dr{};
    dr.d_id = d;
    dr.w_id = w;
    dr.name.set(r.alphanumeric(6, 10));
    address(dr);
    dr.tax = static_cast<std::int32_t>(r.uniform(0, 2000));
    dr.ytd = 30'000'00;
    dr.next_o_id = initial_orders_per_district + 1;
    l.insert(t.district, district_key(w, d), dr);

    for (std::uint32_t c = 1; c <= customers_per_district; ++c) {
      customer_row cr{};
      cr.c_id = c;
      cr.d_id = d;
      cr.w_id = w;
      cr.first.set(r.alphanumeric(8, 16));
      cr.middle.set("OE");
      cr.last.set(random_source::last_name(c <= 1000 ? c - 1 : r.nurand(255, 0, 999)));
      address(cr);
      cr.phone.set(r.numeric(16));
      cr.since = 1;
      cr.credit.set(r.uniform(1, 10) == 1 ? "BC" : "GC");
      cr.credit_lim = 50'000'00;
      cr.discount = static_cast<std::int32_t>(r.uniform(0, 5000));
      cr.balance = -10'00;
      cr.ytd_payment = 10'00;
      cr.payment_cnt = 1;
      cr.data.set(r.alphanumeric(300, 500));
      l.insert(t.customer, customer_key(w, d, c), cr);
      const std::uint64_t ckey = customer_key(w, d, c);
      l.insert_value(t.customer_name, customer_name_key(w, d, cr.last.view(), cr.first.view(), c),
                     std::string_view(reinterpret_cast<const char*>(&ckey), sizeof ckey));

      history_row h{};
      h.c_id = c;
      h.c_d_id = h.d_id = d;
      h.c_w_id = h.w_id = w;
      h.date = 1;
      h.amount = 10'00;
      h.data.set(r.alphanumeric(12, 24));
      l.insert(t.history, history_key(0, customer_key(w, d, c)), h);
    }

    // Orders for a random permutation of the customers.
    std::vector<std::uint32_t> customer_of(initial_orders_per_district);
    std::iota(customer_of.begin(), customer_of.end(), 1u);
    std::shuffle(customer_of.begin(), customer_of.end(), r.engine());
    for (std::uint32_t o = 1; o <= initial_orders_per_district; ++o) {
      const bool delivered = o < first_new_order;
      order_row orow{};
      orow.o_id = o;
      orow.d_id = d;
      orow.w_id = w;
      orow.c_id = customer_of[o - 1];
      orow.entry_d = 1;
      orow.carrier_id = delivered ? r.uniform(1, 10) : 0;
      orow.ol_cnt = r.uniform(5, 15);
      orow.all_local = 1;
      l.insert(t.order, order_key(w, d, o), orow);
      l.insert(t.customer_order, customer_order_key(w, d, orow.c_id, o), o);
      for (std::uint32_t n = 1; n <= orow.ol_cnt; ++n) {
        order_line_row ol{};
        ol.o_id = o;
        ol.d_id = d;
        ol.w_id = w;
        ol.number = n;
        ol.i_id = r.uniform(1, items);
        ol.supply_w_id = w;
        ol.delivery_d = delivered ? 1 : 0;
        ol.quantity = 5;
        ol.amount = delivered ? 0 : r.uniform(1, 999'999);
        ol.dist_info.set(r.alphanumeric(24, 24));
        l.insert(t.order_line, order_line_key(w, d, o, n), ol);
      }
      if (!delivered) l.insert(t.new_order, order_key(w, d, o), new_order_row{o, d, w});
    }
  }
}

}  // namespace

void load(txn::engine& db, const tables& t, std::uint32_t warehouses, std::uint64_t seed, std::size_t threads,
          const std::function<void(std::uint32_t)>& progress) {
  if (warehouses < 1 || warehouses > max_warehouses) {
    throw std::invalid_argument(fmt::format("warehouses must be 1..{}", max_warehouses));
  }
  {
    loader l(db);
    random_source r(seed, random_source::phase::load);
    load_items(l, t, r);
    load_ch_tables(l, t, r);
    l.flush();
    l.durable();
  }
  std::atomic<std::uint32_t> next{1}, done{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  thread_group pool(std::max<std::size_t>(threads, 1), [&](std::size_t) {
    try {
      loader l(db);
      for (std::uint32_t w; (w = next.fetch_add(1)) <= warehouses;) {
        random_source r(seed + w, random_source::phase::load);
        load_warehouse(l, t, w, r);
        l.flush();
        l.durable();  // a warehouse counts as loaded once it is durable
        const std::uint32_t loaded = done.fetch_add(1) + 1;
        if (progress) progress(loaded);
      }
    } catch (...) {
      std::lock_guard g(failure_mutex);
      failure = std::current_exception();
    }
  });
  pool.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace weave::tpcc
