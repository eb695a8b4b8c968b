// Directory images of what engines write, for the recovery target to start from.

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "fuzz/directory_image.hpp"
#include "fuzz/targets.hpp"
#include "support/temp_dir.hpp"
#include "support/upsert.hpp"
#include "weave/durability/log_format.hpp"
#include "weave/durability/log_reader.hpp"
#include "weave/exec/policy.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace weave::fuzz {

namespace fs = std::filesystem;

namespace {

// Transactions `from` .. `to` - 1: puts, inserts and removes over a small
// key range of both tables, so that records are overwritten and deleted.
void write_some(txn::engine& e, int from, int to) {
  txn::table& ints = *e.find_table("ints");
  txn::table& strings = *e.find_table("strings");
  for (int i = from; i < to; ++i) {
    txn::transaction t = e.begin();
    const auto k = static_cast<std::uint64_t>(i % 13);
    const std::string value(static_cast<std::size_t>(i % 5) * 9 + 1, static_cast<char>('a' + i % 26));
    const std::string key = "key-" + std::to_string(i % 7);
    static_cast<void>(test_support::upsert(t, strings, key, value));
    if (i % 4 == 3) {
      static_cast<void>(sync_wait(t.remove<sequential_policy>(ints, k)));  // not_found if absent
    } else {
      static_cast<void>(test_support::upsert(t, ints, k, value));
    }
    if (t.commit() != txn::commit_status::committed) throw std::runtime_error("a seed's commit failed");
  }
}

}  // namespace

std::vector<std::string> seed_images() {
  std::vector<std::string> out;
  // 4: shape 1 as a build of format 3 left it; 5: the same, then opened
  // and written by this build (segments that name the log after some that
  // do not).
  for (int shape = 0; shape < 6; ++shape) {
    const test_support::temp_dir temp;
    const fs::path& dir = temp.path;
    txn::engine_options o;
    o.log.group_window = std::chrono::microseconds(50);
    o.log.segment_bytes = 1 << 10;  // several segments
    {
      auto e = txn::engine::open(dir, o);
      if (shape != 3) {  // 3: a new directory, no tables
        e->create_table("ints", txn::key_kind::integer);
        e->create_table("strings", txn::key_kind::bytes, 0, shape == 2 ? 24 : 0);
        write_some(*e, 0, 20);
        if (shape != 0) e->checkpoint();
        if (shape == 1 || shape >= 4) write_some(*e, 20, 30);
      }
    }
    if (shape >= 4) {
      name_no_log(dir, true);
      std::ofstream(dir / "FORMAT", std::ios::trunc) << "weave data directory, format 3\n";
    }
    if (shape == 5) write_some(*txn::engine::open(dir, o), 30, 40);
    if (shape >= 4) {  // the seeds are what they say
      const durability::log_scan scan = durability::read_log_groups(dir, {});
      if ((scan.log != 0) != (shape == 5) || (shape == 5 && scan.identified_from <= 1)) {
        throw std::runtime_error("a format-3 seed's segments are not as meant");
      }
    }
    out.push_back(pack(dir, 0));
    out.push_back(pack(dir, reseal_flag | writable_flag | (shape % 2 ? checkpoint_flag : 0)));
  }
  return out;
}

std::vector<std::string> csv_seeds() {
  return {
      std::string(1, '\0') + "id,name,price\n1,apple,0.50\n2,\"pear, green\",1.25\n3,\"a \"\"quoted\"\" fig\",12\n",
      std::string(1, '\1') + "INTEGER;VARCHAR(10);DECIMAL(5,2)\nid,name,price\r\n-7,x,99.99\r\n2147483647,,-0.01\r\n",
      std::string(1, '\0') + "\xef\xbb\xbf" "a,b\n9223372036854775807,-9223372036854775808\n\n1,2\n",
      std::string(1, '\1') + "BIGINT;DECIMAL(18,18)\nx,y\n1,0.123456789012345678\n",
  };
}

}  // namespace weave::fuzz
