#pragma once
// A checkpoint: every record of every table as of one snapshot timestamp,
// in the log's group format (each group's "transactions" carry records as
// puts stamped with the snapshot), so one reader checks both. It is written
// to a temporary name, synced, renamed to checkpoint-<snapshot>.wck and the
// directory synced: a checkpoint under its final name is whole, and any
// damage in it is an error, never a tail to cut. Its last group is an end
// marker with the record count, so that one cut short at a group boundary
// (or emptied) is damage too.
//
// Recovery loads the newest checkpoint and replays the log's transactions
// committed after its snapshot; older checkpoints and the log segments
// before it can then be deleted.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "weave/durability/log_format.hpp"

namespace weave::durability {

// "checkpoint-00000000000000000042.wck": names sort by snapshot.
std::string checkpoint_name(std::uint64_t snapshot);
// The snapshot a file name stands for, or nothing (also for a snapshot at or
// past timestamp_limit: no engine writes one).
std::optional<std::uint64_t> checkpoint_snapshot(std::string_view file_name);

class checkpoint_writer {
 public:
  // Starts checkpoint-<snapshot>.wck.tmp in `directory`; a checkpoint of a
  // log (its identity, not 0) opens with a group that names it, as a log
  // segment does (segment number 0). Throws std::system_error.
  checkpoint_writer(std::filesystem::path directory, std::uint64_t snapshot, std::uint64_t log = 0);
  // A checkpoint not finished is removed.
  ~checkpoint_writer();
  checkpoint_writer(const checkpoint_writer&) = delete;
  checkpoint_writer& operator=(const checkpoint_writer&) = delete;

  void add(std::uint32_t table, std::string_view key, std::string_view value);
  // Writes what is left, syncs, renames into place. Throws std::system_error.
  void finish();
  std::uint64_t records() const noexcept { return records_; }

 private:
  void write_group();
  void write(std::string_view bytes);

  std::filesystem::path directory_;
  std::uint64_t snapshot_;
  int fd_ = -1;
  group_builder group_;
  std::uint64_t records_ = 0;
  bool finished_ = false;
};

struct checkpoint_info {
  std::uint64_t snapshot = 0;
  std::uint64_t records = 0;
  std::uint64_t bytes = 0;
  std::uint64_t log = 0;  // the log its opening group names (0: none, an older build's)
};

// The newest checkpoint in `directory`, if any.
std::optional<std::uint64_t> newest_checkpoint(const std::filesystem::path& directory);

// Calls each(table, key, value) for every record of checkpoint-<snapshot>.
// Any damage (a group that is not complete, a snapshot that does not match
// the name, a missing end marker, an opening group past the first byte or
// naming a segment) throws log_corruption naming the file and byte.
checkpoint_info read_checkpoint(const std::filesystem::path& directory, std::uint64_t snapshot,
                                const std::function<void(std::uint32_t, std::string_view, std::string_view)>& each);

}  // namespace weave::durability
