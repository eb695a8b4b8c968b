#include "weave/durability/checkpoint.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <utility>
#include <vector>

#include "file_io.hpp"

namespace weave::durability {

namespace {

namespace fs = std::filesystem;

// Records go out in groups of about this many bytes.
constexpr std::size_t group_target_bytes = std::size_t{1} << 20;
// And are read back this many bytes at a time.
constexpr std::size_t read_piece_bytes = std::size_t{1} << 24;

}  // namespace

std::string checkpoint_name(std::uint64_t snapshot) { return fmt::format("checkpoint-{:020}.wck", snapshot); }

std::optional<std::uint64_t> checkpoint_snapshot(std::string_view name) {
  if (!name.starts_with("checkpoint-") || !name.ends_with(".wck")) return std::nullopt;
  const std::string_view digits = name.substr(11, name.size() - 15);
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc{} || end != digits.data() + digits.size() || checkpoint_name(n) != name ||
      n >= timestamp_limit) {
    return std::nullopt;
  }
  return n;
}

checkpoint_writer::checkpoint_writer(fs::path directory, std::uint64_t snapshot, std::uint64_t log)
    : directory_(std::move(directory)), snapshot_(snapshot) {
  const fs::path tmp = directory_ / (checkpoint_name(snapshot_) + ".tmp");
  fd_ = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) detail::throw_errno("cannot create checkpoint " + tmp.string());
  if (log == 0) return;
  try {
    write(seal_opening({log, 0}));
  } catch (...) {  // no destructor runs for a constructor that throws
    ::close(fd_);
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
}

checkpoint_writer::~checkpoint_writer() {
  if (fd_ >= 0) ::close(fd_);
  if (!finished_) {
    std::error_code ec;
    fs::remove(directory_ / (checkpoint_name(snapshot_) + ".tmp"), ec);
  }
}

void checkpoint_writer::add(std::uint32_t table, std::string_view key, std::string_view value) {
  const logged_write w{table, write_op::put, key, value};
  group_.add(snapshot_, {&w, 1});
  ++records_;
  if (group_.payload_bytes() >= group_target_bytes) write_group();
}

void checkpoint_writer::write_group() {
  if (group_.empty()) return;
  write(group_.seal(snapshot_));
}

void checkpoint_writer::write(std::string_view bytes) {
  detail::write_all(fd_, bytes,
                    "cannot write checkpoint " + (directory_ / checkpoint_name(snapshot_)).string());
}

void checkpoint_writer::finish() {
  write_group();
  // The end: a checkpoint cut at a group boundary would otherwise read as a
  // smaller, sound one. An empty group marked as a restart, carrying the
  // record count.
  write(group_builder{}.seal(records_, true));
  const int fd = std::exchange(fd_, -1);
  detail::publish(fd, directory_ / (checkpoint_name(snapshot_) + ".tmp"), directory_ / checkpoint_name(snapshot_));
  finished_ = true;
}

std::optional<std::uint64_t> newest_checkpoint(const fs::path& directory) {
  std::optional<std::uint64_t> newest;
  for (const auto& entry : fs::directory_iterator(directory)) {
    if (const auto s = checkpoint_snapshot(entry.path().filename().string()); s && (!newest || *s > *newest)) newest = s;
  }
  return newest;
}

checkpoint_info read_checkpoint(const fs::path& directory, std::uint64_t snapshot,
                                const std::function<void(std::uint32_t, std::string_view, std::string_view)>& each) {
  const fs::path path = directory / checkpoint_name(snapshot);
  const std::string name = path.filename().string();
  const int fd = detail::open_to_read(path);
  static_cast<void>(::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL));
  checkpoint_info info;
  info.snapshot = snapshot;
  // Read a piece at a time into one buffer (a checkpoint is as large as the
  // tables, and fresh memory costs), which grows only for a larger group.
  std::string buffer(read_piece_bytes, '\0');
  std::size_t begin = 0, end = 0;  // the bytes of buffer not yet decoded
  bool at_end = false;
  bool ended = false;                       // the end marker was read
  std::vector<logged_transaction> records;  // of a group, reused: no allocation per record
  try {
    for (;;) {
      const std::string_view rest(buffer.data() + begin, end - begin);
      group_view g{};
      g.state = group_state::incomplete;
      if (!rest.empty()) g = decode_group(rest);
      if (g.state == group_state::damaged ||
          (g.state == group_state::incomplete && at_end && !rest.empty())) {
        throw log_corruption("a damaged group");
      }
      if (ended && !rest.empty()) throw log_corruption("bytes after the end of the checkpoint");
      if (g.state == group_state::incomplete) {
        if (at_end) {
          if (!ended) {
            throw log_corruption(
                fmt::format("it ends without its end marker, after {} records: cut short", info.records));
          }
          break;
        }
        // Keep the group begun, make room after it, read on.
        std::memmove(buffer.data(), buffer.data() + begin, end - begin);
        end -= begin;
        info.bytes += begin;
        begin = 0;
        if (end == buffer.size()) buffer.resize(2 * buffer.size());
        const std::size_t n =
            detail::read_some(fd, buffer.data() + end, buffer.size() - end, "cannot read " + path.string());
        at_end = n == 0;
        end += n;
        continue;
      }
      if (g.opening) {  // the log it belongs to, first or not at all
        if (info.bytes + begin != 0 || g.identity.segment != 0)
          throw log_corruption("a misplaced opening group");
        info.log = g.identity.log;
        begin += g.bytes;
        continue;
      }
      if (g.restart) {  // the end marker
        if (g.transactions != 0 || g.through != info.records) {
          throw log_corruption(
              fmt::format("its end marker counts {} records where {} were read", g.through, info.records));
        }
        ended = true;
        begin += g.bytes;
        continue;
      }
      decode_transactions(g, records);
      for (const logged_transaction& t : records) {
        if (t.commit != snapshot || t.writes.size() != 1 || t.writes[0].op != write_op::put) {
          throw log_corruption("a record that does not belong to this checkpoint");
        }
        if (each) each(t.writes[0].table, t.writes[0].key, t.writes[0].value);
        ++info.records;
      }
      begin += g.bytes;
    }
  } catch (const log_corruption& e) {
    ::close(fd);
    throw log_corruption(fmt::format("checkpoint {} at byte {}: {}", name, info.bytes + begin, e.what()));
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  info.bytes += begin;
  return info;
}

}  // namespace weave::durability
