#pragma once
// Reads a log directory back, segment by segment, group by group, for
// recovery and for `weave inspect`.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "weave/durability/log_format.hpp"

namespace weave::durability {

struct log_scan {
  std::uint64_t segments = 0;
  std::uint64_t groups = 0;
  std::uint64_t transactions = 0;
  std::uint64_t last_commit = 0;
  std::uint64_t bytes = 0;  // of complete groups
  // The torn tail of the last segment: where it starts and how long it is
  // (0: none). A crash in the middle of a write leaves one.
  std::string torn_segment;
  std::uint64_t torn_offset = 0;
  std::uint64_t torn_bytes = 0;
};

// Calls `each` for every transaction of every complete group, in log order.
// A torn tail (an incomplete or damaged group after which nothing valid
// follows, in the last segment) ends the log; with `cut_torn_tail` it is
// truncated away, so that nothing is appended after garbage. Damage anywhere
// else throws log_corruption naming
// the segment and the byte offset; I/O errors throw std::system_error.
log_scan read_log(const std::filesystem::path& directory,
                  const std::function<void(const logged_transaction&)>& each, bool cut_torn_tail = false);

}  // namespace weave::durability
