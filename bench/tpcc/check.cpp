#include "bench/tpcc/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"

namespace weave::tpcc {
namespace {

// Calls each(key, value) for the visible rows with keys in [from, to).
template <class Each>
void for_each_row(txn::transaction& t, const txn::table& table, std::uint64_t from, std::uint64_t to, Each&& each) {
  std::vector<std::pair<std::uint64_t, std::string_view>> rows;
  for (;;) {
    rows.clear();
    sync_wait(t.scan<sequential_policy>(table, from, 4096, rows));
    for (const auto& [k, v] : rows) {
      if (k >= to) return;
      each(k, v);
    }
    if (rows.size() < 4096) return;
    from = rows.back().first + 1;
  }
}

struct district_totals {
  std::uint32_t max_order = 0;
  std::uint64_t ol_cnt_sum = 0, order_lines = 0;
  std::uint32_t new_orders = 0, min_new_order = ~0u, max_new_order = 0;
};

}  // namespace

std::vector<std::string> check_consistency(txn::engine& db, const tables& tb, std::uint32_t warehouses) {
  std::vector<std::string> failed;
  txn::transaction t = db.begin();
  const auto fail = [&](std::string s) {
    if (failed.size() < 20) failed.push_back(std::move(s));
  };
  for (std::uint32_t w = 1; w <= warehouses; ++w) {
    const auto wv = sync_wait(t.get<sequential_policy>(tb.warehouse, warehouse_key(w)));
    if (!wv) {
      fail(fmt::format("warehouse {} is missing", w));
      continue;
    }
    std::int64_t district_ytd = 0;
    for (std::uint32_t d = 1; d <= districts_per_warehouse; ++d) {
      const auto dv = sync_wait(t.get<sequential_policy>(tb.district, district_key(w, d)));
      if (!dv) {
        fail(fmt::format("district {}/{} is missing", w, d));
        continue;
      }
      const district_row district = row_of<district_row>(*dv);
      district_ytd += district.ytd;

      district_totals sum;
      std::vector<std::uint32_t> undelivered;
      for_each_row(t, tb.new_order, order_key(w, d, 0), order_key(w, d + 1, 0), [&](std::uint64_t, std::string_view v) {
        const new_order_row no = row_of<new_order_row>(v);
        ++sum.new_orders;
        sum.min_new_order = std::min(sum.min_new_order, no.o_id);
        sum.max_new_order = std::max(sum.max_new_order, no.o_id);
        undelivered.push_back(no.o_id);
      });
      std::map<std::uint32_t, std::uint32_t> lines_expected;
      for_each_row(t, tb.order, order_key(w, d, 0), order_key(w, d + 1, 0), [&](std::uint64_t, std::string_view v) {
        const order_row o = row_of<order_row>(v);
        sum.max_order = std::max(sum.max_order, o.o_id);
        sum.ol_cnt_sum += o.ol_cnt;
        lines_expected[o.o_id] = o.ol_cnt;
        const bool has_new_order = std::binary_search(undelivered.begin(), undelivered.end(), o.o_id);
        if ((o.carrier_id == 0) != has_new_order) {
          fail(fmt::format("check 5: order {}/{}/{} has carrier {} and {} new-order row", w, d, o.o_id, o.carrier_id,
                           has_new_order ? "a" : "no"));
        }
      });
      std::map<std::uint32_t, std::uint32_t> lines_seen;
      for_each_row(t, tb.order_line, order_line_key(w, d, 0, 0), order_line_key(w, d + 1, 0, 0),
                   [&](std::uint64_t, std::string_view v) {
                     ++sum.order_lines;
                     ++lines_seen[row_of<order_line_row>(v).o_id];
                   });

      if (district.next_o_id - 1 != sum.max_order ||
          (sum.new_orders > 0 && sum.max_new_order != sum.max_order)) {
        fail(fmt::format("check 2: district {}/{}: D_NEXT_O_ID - 1 = {}, max O_ID = {}, max NO_O_ID = {}", w, d,
                         district.next_o_id - 1, sum.max_order, sum.max_new_order));
      }
      if (sum.new_orders > 0 && sum.max_new_order - sum.min_new_order + 1 != sum.new_orders) {
        fail(fmt::format("check 3: district {}/{}: new-order ids {}..{} but {} rows", w, d, sum.min_new_order,
                         sum.max_new_order, sum.new_orders));
      }
      if (sum.ol_cnt_sum != sum.order_lines) {
        fail(fmt::format("check 4: district {}/{}: sum of O_OL_CNT {} but {} order lines", w, d, sum.ol_cnt_sum,
                         sum.order_lines));
      }
      if (lines_seen != lines_expected) {
        for (const auto& [o, n] : lines_expected) {
          const auto it = lines_seen.find(o);
          const std::uint32_t seen = it == lines_seen.end() ? 0 : it->second;
          if (seen != n) {
            fail(fmt::format("check 6: order {}/{}/{}: O_OL_CNT {} but {} order lines", w, d, o, n, seen));
          }
        }
      }
    }
    const warehouse_row warehouse = row_of<warehouse_row>(*wv);
    if (warehouse.ytd != district_ytd) {
      fail(fmt::format("check 1: warehouse {}: W_YTD {} but the districts' D_YTD sum to {}", w, warehouse.ytd,
                       district_ytd));
    }
  }
  t.commit();
  return failed;
}

}  // namespace weave::tpcc
