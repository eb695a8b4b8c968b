#pragma once
// Appends sealed groups to the log's segment files and makes them durable.
// One writer per log directory; its caller decides when to sync (group
// commit: by time and by size). A group is written only after the one before
// it is synced, so a crash can tear the last group alone.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weave/durability/log_reader.hpp"

namespace weave::durability {

// "wal-000001.log": segments sort by name in the order they were written.
std::string segment_name(std::uint64_t number);
// The segment number of a file name, or 0 if it names no segment.
std::uint64_t segment_number(std::string_view file_name);

class log_writer {
 public:
  // Cuts a torn tail off the directory's last segment (read_log), then
  // starts a new segment after it. Throws std::system_error if it cannot be
  // created, log_corruption if the log is damaged. `read` is the scan of a
  // caller that read the log and cut its tail already (recovery).
  explicit log_writer(std::filesystem::path directory, std::size_t segment_bytes = std::size_t{64} << 20,
                      const log_scan* read = nullptr);
  ~log_writer();
  log_writer(const log_writer&) = delete;
  log_writer& operator=(const log_writer&) = delete;

  // Writes a sealed group (not yet durable); a segment that would pass
  // segment_bytes is synced and closed first. Throws std::system_error when
  // the write fails or is short (the disk is full, the file too large; a
  // process that limits file sizes must ignore SIGXFSZ to see the error).
  // After a failure every later append and sync fails.
  // `last_commit` is the group's latest transaction (0 for none).
  void append(std::string_view group, std::uint64_t last_commit = 0);
  // Makes every appended group durable (fdatasync). Throws std::system_error.
  void sync();

  // Deletes the oldest segments while every transaction in them committed
  // at or before `snapshot` (a checkpoint holds them); never the one being
  // written. Returns how many went. Throws std::system_error.
  std::size_t remove_segments_through(std::uint64_t snapshot);

  std::uint64_t segment() const noexcept { return segment_; }
  // What every segment's opening group names: the log's segments', or a new
  // number for a log that has none that name one.
  std::uint64_t log() const noexcept { return log_; }
  std::uint64_t bytes_written() const noexcept { return total_bytes_; }

 private:
  void open_segment(std::uint64_t number);

  std::filesystem::path directory_;
  std::size_t segment_bytes_;
  int fd_ = -1;
  std::uint64_t segment_ = 0;
  std::uint64_t log_ = 0;
  // Segments not yet removed, with the last commit in each, in order.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> segments_;
  std::size_t segment_used_ = 0;
  std::uint64_t total_bytes_ = 0;
  bool synced_ = true;
  bool failed_ = false;  // a write or sync failed: every later call fails too
};

}  // namespace weave::durability
