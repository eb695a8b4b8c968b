// TPC-C on the engine: the population meets the consistency conditions,
// every execution mode keeps them through concurrent mixes on two threads,
// and the checks do catch a broken database.

#include <gtest/gtest.h>

#include <array>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/tpcc/check.hpp"
#include "bench/tpcc/load.hpp"
#include "bench/tpcc/runner.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"

namespace weave::tpcc {
namespace {

class tpcc : public ::testing::Test {
 protected:
  static constexpr std::uint32_t warehouses = 2;
  // Loaded once for the suite: loading takes a while under the sanitizers.
  // An exception here is kept and fails every test (GoogleTest would skip
  // them, and ctest count them as skipped, not failed).
  static void SetUpTestSuite() {
    try {
      db_ = std::make_unique<txn::engine>();
      tables_ = std::make_unique<tables>(tables::create(*db_, warehouses));
      load(*db_, *tables_, warehouses, 7, 2);
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() {
    tables_.reset();
    db_.reset();
  }
  void SetUp() override {
    ASSERT_TRUE(setup_error_.empty()) << "loading the database failed: " << setup_error_;
  }
  static inline std::unique_ptr<txn::engine> db_;
  static inline std::unique_ptr<tables> tables_;
  static inline std::string setup_error_;
};

std::string describe(const std::vector<std::string>& failures) {
  std::string s;
  for (const auto& f : failures) s += f + "\n";
  return s;
}

TEST_F(tpcc, loads_a_consistent_database) {
  const tables& t = *tables_;
  EXPECT_EQ(t.item.records(), items);
  EXPECT_EQ(t.stock.records(), warehouses * items);
  EXPECT_EQ(t.customer.records(), warehouses * districts_per_warehouse * customers_per_district);
  EXPECT_EQ(t.new_order.records(), warehouses * districts_per_warehouse * (initial_orders_per_district - first_new_order + 1));
  const auto failures = check_consistency(*db_, t, warehouses);
  EXPECT_TRUE(failures.empty()) << describe(failures);

  // Customers 1..1000 of each district have the thousand last names in turn.
  txn::transaction tx = db_->begin();
  std::vector<std::pair<byte_key, std::string_view>> found;
  sync_wait(tx.scan<sequential_policy>(t.customer_name, customer_name_key(2, 3, random_source::last_name(417), "", 0),
                                       1, found));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].first.str().compare(0, customer_name_prefix,
                                         customer_name_key(2, 3, random_source::last_name(417), "", 0), 0,
                                         customer_name_prefix),
            0);
  tx.commit();
}

TEST_F(tpcc, every_mode_keeps_the_database_consistent) {
  for (const mode m : {mode::naive, mode::prefetch, mode::multi_key, mode::coro_nested, mode::coro, mode::hybrid}) {
    const std::array<const char*, 3> mixes{"tpcc", "tpcch", "tpccr"};
    for (std::uint64_t i = 0; i < mixes.size(); ++i) {
      const mix x = parse_mix(mixes[i]);
      shared_state shared(*db_, *tables_, warehouses, 20);
      std::vector<tally> tallies(2);
      std::vector<std::thread> workers;
      for (std::uint32_t w = 0; w < 2; ++w) {
        workers.emplace_back([&, w] {
          participant& me = db_->join();
          worker_state ws(shared, w + 1, 100 * static_cast<std::uint64_t>(m) + 10 * i + w);
          for (int chunk = 0; chunk < 4; ++chunk) {
            const epoch_guard epoch = db_->enter(me);
            // Strict batches and the pipeline; aborted transactions run again in some chunks.
            run_chunk(m, ws, 4, chunk % 2 == 1, chunk >= 2 ? 3 : 0, 60, x.percent, tallies[w]);
          }
        });
      }
      for (auto& th : workers) th.join();
      tallies[0].add(tallies[1]);
      for (std::size_t k = 0; k < kinds; ++k) {
        if (x.percent[k] >= 10) {
          EXPECT_GT(tallies[0].commits[k], 0u) << mode_name(m) << " " << x.name << " " << kind_name(kind(k));
        }
      }
      const auto failures = check_consistency(*db_, *tables_, warehouses);
      ASSERT_TRUE(failures.empty()) << mode_name(m) << " " << x.name << "\n" << describe(failures);
    }
  }
}

TEST(tpcc_mix, named_and_custom_mixes_parse_and_bad_ones_are_refused) {
  EXPECT_EQ(parse_mix("tpcch").percent, (std::array<unsigned, kinds>{40, 38, 4, 4, 4, 10}));
  const mix only_q2 = parse_mix("q2=100");
  EXPECT_EQ(only_q2.name, "q2=100");
  EXPECT_EQ(only_q2.percent, (std::array<unsigned, kinds>{0, 0, 0, 0, 0, 100}));
  EXPECT_EQ(parse_mix("payment=50,new_order=50").percent, (std::array<unsigned, kinds>{50, 50, 0, 0, 0, 0}));
  for (const char* bad : {"tpc", "", "q2=99", "q2=50,q2=50", "q3=100", "q2=", "q2=x", "q2=100,", "q2=101",
                          "new_order=60,payment=60", "q2=-1", "q2=0,q2=100", "new_order=4294967295,payment=101"}) {
    EXPECT_THROW(parse_mix(bad), std::invalid_argument) << bad;
  }
  // Draws follow the percentages: a kind at 0% never comes up.
  random_source r(7);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(draw(only_q2.percent, r), kind::q2);
}

TEST_F(tpcc, the_checks_catch_a_broken_district) {
  const auto change_ytd = [&](std::int64_t by) {
    txn::transaction t = db_->begin();
    const auto v = sync_wait(t.get<sequential_policy>(tables_->district, district_key(1, 4)));
    ASSERT_TRUE(v);
    district_row d = row_of<district_row>(*v);
    d.ytd += by;
    ASSERT_EQ(sync_wait(t.put<sequential_policy>(tables_->district, district_key(1, 4), as_value(d))),
              txn::status::ok);
    ASSERT_EQ(t.commit(), txn::commit_status::committed);
  };
  change_ytd(1);
  const auto failures = check_consistency(*db_, *tables_, warehouses);
  ASSERT_EQ(failures.size(), 1u) << describe(failures);
  EXPECT_NE(failures[0].find("check 1: warehouse 1"), std::string::npos) << failures[0];
  change_ytd(-1);
  EXPECT_TRUE(check_consistency(*db_, *tables_, warehouses).empty());
}

}  // namespace
}  // namespace weave::tpcc
