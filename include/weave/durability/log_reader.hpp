#pragma once
// Reads a log directory back, segment by segment, group by group: every
// group as it is (read_log_groups, for `weave inspect` and the tests), or
// the transactions recovery must apply (replay_log).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "weave/durability/log_format.hpp"

namespace weave::durability {

struct log_scan {
  std::uint64_t segments = 0;
  std::uint64_t groups = 0;
  std::uint64_t transactions = 0;
  std::uint64_t last_commit = 0;  // of any logged transaction, counted or not
  std::uint64_t through = 0;      // the largest `through` of any group
  std::uint64_t bytes = 0;        // of complete groups
  // The log's identity, named by its segments' opening groups (0: no
  // segment names one, all written by older builds), and the first segment
  // that names it.
  std::uint64_t log = 0;
  std::uint64_t identified_from = 0;
  // Each segment's number and the last commit in it, in log order.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> segment_commits;
  // The torn tail of the last segment: where it starts and how long it is
  // (0: none). A crash in the middle of a write leaves one.
  std::string torn_segment;
  std::uint64_t torn_offset = 0;
  std::uint64_t torn_bytes = 0;
};

// Calls `each` for every complete group with its transactions, in log
// order. A torn tail (an incomplete or damaged group after which nothing
// valid follows, in the last segment) ends the log; with `cut_tail` it
// is truncated away, so that nothing is appended after garbage. Damage
// anywhere else throws log_corruption naming the segment and the byte
// offset, and so does a group that goes back in time (a commit an earlier
// group's `through` reached, or a lower `through`): a segment repeated or
// from another log. So does a segment whose opening group names another log
// or another segment number, or none after segments that name one (only
// the segments of older builds, which come first, name none). I/O errors
// throw std::system_error.
log_scan read_log_groups(
    const std::filesystem::path& directory,
    const std::function<void(const group_view&, const std::vector<logged_transaction>&)>& each,
    bool cut_tail = false);

// Truncates the torn tail a scan found (if any), durably: a tail that came
// back after a power loss would sit in the middle of the log once more
// groups follow.
void cut_torn_tail(const std::filesystem::path& directory, const log_scan& scan);

// Every logged transaction, counted or not.
log_scan read_log(const std::filesystem::path& directory,
                  const std::function<void(const logged_transaction&)>& each, bool cut_tail = false);

struct log_replay : log_scan {
  std::uint64_t applied = 0;    // transactions handed to `apply`
  std::uint64_t discarded = 0;  // logged, but no `through` reached them before a restart or the end
};

// The transactions recovery applies: those committed after `after` (a
// checkpoint's snapshot) that a group's `through` reached before the next
// restart (log_format.hpp). Each is handed to `apply` once, as soon as it
// counts, which is not commit order: the later commit of a key must win.
// Nothing is cut: the caller cuts the torn tail (cut_torn_tail) once the
// whole recovery has read soundly.
log_replay replay_log(const std::filesystem::path& directory, std::uint64_t after,
                      const std::function<void(const logged_transaction&)>& apply);

}  // namespace weave::durability
