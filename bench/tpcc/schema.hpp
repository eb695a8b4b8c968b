#pragma once
// The TPC-C schema (and the three CH-benCHmark tables Q2* reads) on the
// transaction engine.
//
// Rows are plain structs stored as the bytes of a version; strings are
// fixed-size char arrays and money is in cents. Composite primary keys are
// packed into one 64-bit integer, most significant part first, so that key
// order is the order of (warehouse, district, ...) and a range of keys is a
// range scan. The customer-by-last-name index is a table of its own with
// byte-string keys (warehouse, district, last name, first name, id) whose
// value is the customer's key; the latest order of a customer is found
// through another, keyed (warehouse, district, customer, inverted order id).

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "weave/txn/engine.hpp"

namespace weave::tpcc {

inline constexpr std::uint32_t districts_per_warehouse = 10;
inline constexpr std::uint32_t customers_per_district = 3000;
inline constexpr std::uint32_t items = 100'000;
inline constexpr std::uint32_t initial_orders_per_district = 3000;
inline constexpr std::uint32_t first_new_order = 2101;  // orders 2101..3000 are undelivered at load
inline constexpr std::uint32_t suppliers = 10'000;
inline constexpr std::uint32_t nations = 62;
inline constexpr std::uint32_t regions = 5;
inline constexpr std::uint32_t max_warehouses = 1000;

template <std::size_t N>
struct text {  // a fixed-size string field, zero-padded
  char bytes[N];
  void set(std::string_view s) {
    std::memset(bytes, 0, N);
    std::memcpy(bytes, s.data(), std::min(s.size(), N));
  }
  std::string_view view() const { return {bytes, strnlen(bytes, N)}; }
};

struct warehouse_row {
  std::uint32_t w_id;
  text<10> name;
  text<20> street_1, street_2, city;
  text<2> state;
  text<9> zip;
  std::int32_t tax;  // basis points (1/10000)
  std::int64_t ytd;  // cents
};

struct district_row {
  std::uint32_t d_id, w_id;
  text<10> name;
  text<20> street_1, street_2, city;
  text<2> state;
  text<9> zip;
  std::int32_t tax;
  std::int64_t ytd;
  std::uint32_t next_o_id;
};

struct customer_row {
  std::uint32_t c_id, d_id, w_id;
  text<16> first;
  text<2> middle;
  text<16> last;
  text<20> street_1, street_2, city;
  text<2> state;
  text<9> zip;
  text<16> phone;
  std::uint64_t since;
  text<2> credit;  // "GC" or "BC"
  std::int64_t credit_lim;
  std::int32_t discount;  // basis points
  std::int64_t balance, ytd_payment;
  std::uint32_t payment_cnt, delivery_cnt;
  text<500> data;
};

struct history_row {
  std::uint32_t c_id, c_d_id, c_w_id, d_id, w_id;
  std::uint64_t date;
  std::int64_t amount;
  text<24> data;
};

struct new_order_row {
  std::uint32_t o_id, d_id, w_id;
};

struct order_row {
  std::uint32_t o_id, d_id, w_id, c_id;
  std::uint64_t entry_d;
  std::uint32_t carrier_id;  // 0: not delivered
  std::uint32_t ol_cnt;
  std::uint32_t all_local;
};

struct order_line_row {
  std::uint32_t o_id, d_id, w_id, number;
  std::uint32_t i_id, supply_w_id;
  std::uint64_t delivery_d;  // 0: not delivered
  std::uint32_t quantity;
  std::int64_t amount;
  text<24> dist_info;
};

struct item_row {
  std::uint32_t i_id, im_id;
  text<24> name;
  std::int64_t price;
  text<50> data;
};

struct stock_row {
  std::uint32_t i_id, w_id;
  std::int32_t quantity;
  text<24> dist[10];
  std::uint64_t ytd;
  std::uint32_t order_cnt, remote_cnt;
  text<50> data;
};

struct supplier_row {
  std::uint32_t su_suppkey, su_nationkey;
  text<25> name;
  text<40> address;
  text<15> phone;
  std::int64_t acctbal;
};

struct nation_row {
  std::uint32_t n_nationkey, n_regionkey;
  text<25> name;
};

struct region_row {
  std::uint32_t r_regionkey;
  text<25> name;
};

// A row as the bytes of a value, and back.
template <class Row>
std::string_view as_value(const Row& r) {
  static_assert(std::is_trivially_copyable_v<Row>);
  return {reinterpret_cast<const char*>(&r), sizeof r};
}
template <class Row>
Row row_of(std::string_view v) {
  static_assert(std::is_trivially_copyable_v<Row>);
  if (v.size() != sizeof(Row)) throw std::logic_error("a row of the wrong size");
  Row r;
  std::memcpy(&r, v.data(), sizeof r);
  return r;
}

// Primary keys.
inline std::uint64_t warehouse_key(std::uint32_t w) { return w; }
inline std::uint64_t district_key(std::uint32_t w, std::uint32_t d) { return std::uint64_t{w} << 4 | d; }
inline std::uint64_t customer_key(std::uint32_t w, std::uint32_t d, std::uint32_t c) {
  return district_key(w, d) << 12 | c;
}
inline constexpr std::uint32_t order_id_bits = 28;
inline std::uint64_t order_key(std::uint32_t w, std::uint32_t d, std::uint32_t o) {
  return district_key(w, d) << order_id_bits | o;
}
inline std::uint64_t order_line_key(std::uint32_t w, std::uint32_t d, std::uint32_t o, std::uint32_t number) {
  return order_key(w, d, o) << 4 | number;
}
// Newest order first: the first entry at or after (w, d, c, 0) is the latest.
inline std::uint64_t customer_order_key(std::uint32_t w, std::uint32_t d, std::uint32_t c, std::uint32_t o) {
  return customer_key(w, d, c) << order_id_bits | ((std::uint32_t{1} << order_id_bits) - 1 - o);
}
inline std::uint64_t item_key(std::uint32_t i) { return i; }
inline std::uint64_t stock_key(std::uint32_t w, std::uint32_t i) { return std::uint64_t{w} << 17 | i; }
inline std::uint64_t history_key(std::uint32_t worker, std::uint64_t sequence) {
  return std::uint64_t{worker} << 48 | sequence;
}

// The customer-by-name key: warehouse, district, last name and first name
// zero-padded to 16 bytes, customer id. The first 19 bytes are the prefix
// every customer of one last name in one district shares.
inline constexpr std::size_t customer_name_prefix = 19;
std::string customer_name_key(std::uint32_t w, std::uint32_t d, std::string_view last, std::string_view first,
                              std::uint32_t c);

struct tables {
  txn::table& warehouse;
  txn::table& district;
  txn::table& customer;
  txn::table& customer_name;   // name key -> customer_key
  txn::table& history;
  txn::table& new_order;
  txn::table& order;
  txn::table& customer_order;  // customer_order_key -> o_id
  txn::table& order_line;
  txn::table& item;
  txn::table& stock;
  txn::table& supplier;
  txn::table& nation;
  txn::table& region;

  // Creates the tables, ready for the rows `warehouses` load (they grow as
  // transactions add more). With inline_values, the tables whose rows are
  // rarely overwritten (all but warehouse, district, customer and stock)
  // keep each row's first version in its slot (txn/table.hpp).
  static tables create(txn::engine& db, std::uint32_t warehouses, bool inline_values = true);
};

}  // namespace weave::tpcc
