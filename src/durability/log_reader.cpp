#include "weave/durability/log_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <future>
#include <string>
#include <vector>

#include "file_io.hpp"
#include "weave/durability/log_writer.hpp"

namespace weave::durability {

namespace {

// Truncates a segment to `bytes`, durably.
void cut(const std::filesystem::path& path, std::size_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) detail::throw_errno("cannot open " + path.string() + " to cut its torn tail");
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0 || ::fdatasync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    errno = error;
    detail::throw_errno("cannot cut the torn tail of " + path.string());
  }
  ::close(fd);
}

// Whether a complete group starts at any 8-byte boundary after `from`: if
// one does, what lies before it is damage, not a torn tail.
bool valid_group_after(std::string_view bytes, std::size_t from) {
  for (std::size_t at = (from + 8) & ~std::size_t{7}; at + group_header_bytes <= bytes.size(); at += 8) {
    try {
      if (decode_group(bytes.substr(at)).state == group_state::complete) return true;
    } catch (const log_corruption&) {
      return true;  // a sound header (another version, an impossible timestamp): not a torn write either
    }
  }
  return false;
}

// Segments at least this large are read on another thread while the one
// before is decoded; a smaller one costs less to read than a thread.
constexpr std::uintmax_t read_ahead_bytes = std::uintmax_t{1} << 20;

// A segment names its log and its own number in its opening group
// (log_format.hpp); every segment after the first that does must name the
// same log. Segments of older builds name none, and come before any that do.
void check_identity(const group_view& g, std::size_t at, std::uint64_t number, const std::string& name,
                    log_scan& scan) {
  if (at > 0) {
    if (g.opening)
      throw log_corruption(fmt::format("{} at byte {}: a segment's opening group in its middle", name, at));
    return;
  }
  if (!g.opening) {
    if (scan.log != 0) {
      throw log_corruption(
          fmt::format("{} names no log, where {} and the segments after it name log {:016x} (a "
                      "segment from another log, or from an older build)",
                      name, segment_name(scan.identified_from), scan.log));
    }
    return;
  }
  if (g.identity.segment != number) {
    throw log_corruption(fmt::format("{} opens as {} (a segment renamed, or copied in)", name,
                                     segment_name(g.identity.segment)));
  }
  if (scan.log == 0) {
    scan.log = g.identity.log;
    scan.identified_from = number;
  } else if (g.identity.log != scan.log) {
    throw log_corruption(
        fmt::format("{} belongs to log {:016x}, not to this one ({:016x}, named from {} on): a "
                    "segment from another log",
                    name, g.identity.log, scan.log, segment_name(scan.identified_from)));
  }
}

}  // namespace

log_scan read_log_groups(
    const std::filesystem::path& directory,
    const std::function<void(const group_view&, const std::vector<logged_transaction>&)>& each,
    bool cut_tail) {
  std::vector<std::pair<std::uint64_t, std::filesystem::path>> segments;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (const std::uint64_t n = segment_number(entry.path().filename().string())) segments.emplace_back(n, entry.path());
  }
  std::sort(segments.begin(), segments.end());
  log_scan scan;
  std::vector<logged_transaction> transactions;  // of a group, reused
  // A segment, and the next one, read on another thread while this one is
  // decoded (the kernel's readahead takes far less than a segment ahead).
  std::string bytes, next_bytes;
  std::future<void> next_read;
  // The log only moves forward: a group's `through` never falls below an
  // earlier group's, and a commit an earlier `through` reached is in that
  // group or before it (log_format.hpp; a restarted engine's clock starts
  // past every timestamp in the files). A group that goes back is a segment
  // repeated, or one from another log, which checksums cannot tell.
  std::uint64_t reached = 0;
  std::string reached_in;  // the segment of the group that reached it
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const std::filesystem::path& path = segments[s].second;
    const std::string name = path.filename().string();
    const bool last = s + 1 == segments.size();
    if (next_read.valid()) {
      next_read.get();
      bytes.swap(next_bytes);
    } else {
      detail::read_file(path, bytes);
    }
    std::error_code ec;
    if (!last && std::filesystem::file_size(segments[s + 1].second, ec) >= read_ahead_bytes) {
      next_read = std::async(std::launch::async, [&next_bytes, next = segments[s + 1].second] {
        detail::read_file(next, next_bytes);
      });
    }
    const std::string_view all(bytes);
    ++scan.segments;
    scan.segment_commits.emplace_back(segments[s].first, 0);
    std::size_t at = 0;
    while (at < all.size()) {
      group_view g;
      try {
        g = decode_group(all.substr(at));
      } catch (const log_corruption& e) {
        throw log_corruption(fmt::format("{} at byte {}: {}", name, at, e.what()));
      }
      if (g.state != group_state::complete) {
        if (!last || valid_group_after(all, at)) {
          throw log_corruption(fmt::format("{} at byte {}: a damaged log group before the end of the log", name, at));
        }
        // A segment's opening group is written and synced alone
        // (log_writer.cpp): a crash tears it only while the file holds
        // nothing more. A longer segment whose first bytes are no sound
        // group was overwritten. (A sound header cut short at byte 0 is a
        // torn group of a segment written before segments had opening
        // groups, which began with their first group of commits.)
        if (at == 0 && g.state == group_state::damaged && all.size() > opening_group_bytes) {
          throw log_corruption(
              fmt::format("{}: it does not open with a sound log group, and is longer than one (the "
                          "segment is damaged, not torn: nothing after its first bytes can be "
                          "trusted)",
                          name));
        }
        scan.torn_segment = name;
        scan.torn_offset = at;
        scan.torn_bytes = all.size() - at;
        break;
      }
      check_identity(g, at, segments[s].first, name, scan);
      try {
        decode_transactions(g, transactions);
      } catch (const log_corruption& e) {
        throw log_corruption(fmt::format("{} at byte {}: {}", name, at, e.what()));
      }
      // A segment's opening group carries neither transactions nor a `through`.
      if (g.transactions > 0 && g.first_commit <= reached) {
        throw log_corruption(fmt::format("{} at byte {}: commit {} is at or before {}, which a group of {} already "
                                         "covered (a segment repeated or from another log)",
                                         name, at, g.first_commit, reached, reached_in));
      }
      if (g.through != 0 && g.through < reached) {
        throw log_corruption(fmt::format("{} at byte {}: the log goes back from {} (reached in {}) to {} (a "
                                         "segment repeated or from another log)",
                                         name, at, reached, reached_in, g.through));
      }
      if (g.through > reached) {
        reached = g.through;
        reached_in = name;
      }
      if (each) each(g, transactions);
      if (g.transactions > 0) {
        scan.last_commit = std::max(scan.last_commit, g.last_commit);
        scan.segment_commits.back().second = std::max(scan.segment_commits.back().second, g.last_commit);
      }
      scan.through = std::max(scan.through, g.through);
      ++scan.groups;
      scan.transactions += g.transactions;
      scan.bytes += g.bytes;
      at += g.bytes;
    }
  }
  if (cut_tail) cut_torn_tail(directory, scan);
  return scan;
}

void cut_torn_tail(const std::filesystem::path& directory, const log_scan& scan) {
  if (scan.torn_bytes > 0) cut(directory / scan.torn_segment, scan.torn_offset);
}

log_scan read_log(const std::filesystem::path& directory,
                  const std::function<void(const logged_transaction&)>& each, bool cut_tail) {
  return read_log_groups(
      directory,
      [&](const group_view&, const std::vector<logged_transaction>& transactions) {
        if (each) {
          for (const logged_transaction& t : transactions) each(t);
        }
      },
      cut_tail);
}

namespace {

// A logged transaction kept until a `through` reaches it: its views point
// into a segment that is gone by then.
struct held_transaction {
  std::uint64_t commit;
  std::vector<std::uint32_t> tables;
  std::vector<write_op> ops;
  std::vector<std::string> keys, values;
};

}  // namespace

log_replay replay_log(const std::filesystem::path& directory, std::uint64_t after,
                      const std::function<void(const logged_transaction&)>& apply) {
  log_replay out;
  std::uint64_t through = 0;
  // Few: the commits in flight when a group was gathered.
  std::vector<held_transaction> held;
  const auto release = [&](const held_transaction& h) {
    logged_transaction t{h.commit, {}};
    for (std::size_t i = 0; i < h.keys.size(); ++i) t.writes.push_back({h.tables[i], h.ops[i], h.keys[i], h.values[i]});
    apply(t);
    ++out.applied;
  };
  static_cast<log_scan&>(out) = read_log_groups(
      directory, [&](const group_view& g, const std::vector<logged_transaction>& transactions) {
        if (g.restart) {
          out.discarded += held.size();
          held.clear();
        }
        through = std::max(through, g.through);
        for (const logged_transaction& t : transactions) {
          if (t.commit <= after) continue;  // in the checkpoint
          if (t.commit <= through) {
            apply(t);
            ++out.applied;
            continue;
          }
          held_transaction h{t.commit, {}, {}, {}, {}};
          for (const logged_write& w : t.writes) {
            h.tables.push_back(w.table);
            h.ops.push_back(w.op);
            h.keys.emplace_back(w.key);
            h.values.emplace_back(w.value);
          }
          held.push_back(std::move(h));
        }
        std::erase_if(held, [&](const held_transaction& h) {
          if (h.commit > through) return false;
          release(h);
          return true;
        });
      });
  out.discarded += held.size();
  // A checkpoint removes the oldest segments, in order, and stops at the
  // first that holds a commit after it; a crash may keep any of those
  // names. So a gap is sound only after a segment the checkpoint covers:
  // after one with a later commit, a segment holding later ones is gone.
  const auto& segments = out.segment_commits;
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    if (segments[i + 1].first != segments[i].first + 1 && segments[i].second > after) {
      throw log_corruption(fmt::format(
          "{} is missing: {} before it holds commits up to {}, after the checkpoint's {}",
          segment_name(segments[i].first + 1), segment_name(segments[i].first), segments[i].second, after));
    }
  }
  return out;
}

}  // namespace weave::durability
