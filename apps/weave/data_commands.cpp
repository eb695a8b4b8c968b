// `weave recover --data DIR`: opens a durable engine's data directory as the
// engine does (the newest checkpoint, then the log after it; every checksum
// is verified and a torn tail is cut off), and prints what it holds.

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "cli_support.hpp"
#include "weave/durability/log_writer.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace weave::cli {

namespace {

// Records visible now, counted a slice at a time.
std::size_t count_rows(txn::engine& db, const txn::table& table) {
  constexpr std::size_t slice = std::size_t{1} << 20;
  std::size_t rows = 0;
  txn::transaction t = db.begin();
  if (table.keys() == txn::key_kind::integer) {
    std::vector<std::pair<std::uint64_t, std::string_view>> out;
    for (std::uint64_t from = 0;;) {
      out.clear();
      sync_wait(t.scan<sequential_policy>(table, from, slice, out));
      rows += out.size();
      if (out.size() < slice || out.back().first == ~std::uint64_t{0}) break;
      from = out.back().first + 1;
    }
  } else {
    std::vector<std::pair<byte_key, std::string_view>> out;
    for (byte_key from;;) {  // the empty key, the first of all
      const bool first = rows == 0;
      out.clear();
      sync_wait(t.scan<sequential_policy>(table, from, slice, out));
      rows += out.size();
      // A slice after the first starts with the key the one before ended with.
      if (!first && !out.empty() && out.front().first == from) --rows;
      if (out.size() < slice) break;
      from = out.back().first;
    }
  }
  t.abort();
  return rows;
}

int recover(const std::string& data) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Only a directory an engine wrote: recovering must not create one.
  if (!fs::is_directory(data, ec)) throw std::invalid_argument("--data " + data + " is not a directory");
  if (!fs::exists(fs::path(data) / "FORMAT", ec)) {
    throw std::invalid_argument("--data " + data + " is not a weave data directory (no FORMAT file)");
  }
  std::uint64_t segments = 0, log_bytes = 0;
  for (const auto& e : fs::directory_iterator(data)) {
    if (durability::segment_number(e.path().filename().string()) != 0) {
      ++segments;
      log_bytes += e.file_size();
    }
  }
  txn::engine_options options;
  options.read_only = true;  // a report: the directory stays as it is
  const std::unique_ptr<txn::engine> db = txn::engine::open(data, options);
  const txn::recovery_report& r = db->recovery();
  std::printf("data directory %s: every checksum verified\n", data.c_str());
  if (r.checkpoint == 0) {
    std::printf("checkpoint: none\n");
  } else {
    std::printf("checkpoint: at commit %llu, %llu records, %llu bytes\n", static_cast<unsigned long long>(r.checkpoint),
                static_cast<unsigned long long>(r.checkpoint_records),
                static_cast<unsigned long long>(r.checkpoint_bytes));
  }
  std::printf("log: %llu segments, %llu bytes; %llu bytes read after the checkpoint, %llu transactions replayed, "
              "%llu never acknowledged and discarded, %llu torn bytes at the end (left in place: an engine "
              "opening the directory cuts them)\n",
              static_cast<unsigned long long>(segments), static_cast<unsigned long long>(log_bytes),
              static_cast<unsigned long long>(r.log_bytes), static_cast<unsigned long long>(r.log_transactions),
              static_cast<unsigned long long>(r.log_discarded), static_cast<unsigned long long>(r.torn_bytes));
  const double bytes = static_cast<double>(r.checkpoint_bytes + r.log_bytes);
  std::printf("last commit: %llu; recovered in %.3f s (%.1f MB/s of checkpoint and log): checkpoint %.3f s, "
              "log read and decoded %.3f s, replayed %.3f s\n",
              static_cast<unsigned long long>(r.last_commit), r.seconds, r.seconds > 0 ? bytes / r.seconds / 1e6 : 0.0,
              r.checkpoint_seconds, r.log_read_seconds, r.replay_seconds);
  for (txn::table* t : db->tables()) {
    std::printf("table %s (%s keys): %zu rows\n", t->name().c_str(),
                t->keys() == txn::key_kind::integer ? "integer" : "byte-string", count_rows(*db, *t));
  }
  return 0;
}

}  // namespace

void add_data_commands(CLI::App& app, command_table& commands) {
  auto data = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("recover", "recover a data directory in memory and print what it holds (verifies every checksum; writes nothing)");
  cmd->add_option("--data", *data, "the data directory of a durable engine")->required();
  commands.add(cmd, [data] { return recover(*data); }, command_table::caches::unused);
}

}  // namespace weave::cli
