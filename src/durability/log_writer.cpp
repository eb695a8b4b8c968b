#include "weave/durability/log_writer.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <utility>

#include "file_io.hpp"
#include "weave/durability/log_reader.hpp"

namespace weave::durability {

std::string segment_name(std::uint64_t number) { return fmt::format("wal-{:06}.log", number); }

std::uint64_t segment_number(std::string_view name) {
  if (!name.starts_with("wal-") || !name.ends_with(".log") || name.size() < 4 + 6 + 4) return 0;
  const std::string_view digits = name.substr(4, name.size() - 8);
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return 0;
  return segment_name(n) == name ? n : 0;  // one name per segment
}

log_writer::log_writer(std::filesystem::path directory, std::size_t segment_bytes, const log_scan* read)
    : directory_(std::move(directory)), segment_bytes_(segment_bytes) {
  // A torn tail left by a crash must go before anything follows it, or it
  // would be damage in the middle of the log.
  const log_scan scan = read != nullptr ? *read : read_log(directory_, {}, true);
  segments_ = scan.segment_commits;
  log_ = scan.log != 0 ? scan.log : new_log_identity();
  std::uint64_t last = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory_)) {
    last = std::max(last, segment_number(entry.path().filename().string()));
  }
  try {
    open_segment(last + 1);
  } catch (...) {
    if (fd_ >= 0) ::close(fd_);  // no destructor runs for a constructor that throws
    throw;
  }
}

std::size_t log_writer::remove_segments_through(std::uint64_t snapshot) {
  // After a failure the newest segment's name may not be durable: the
  // older ones stay, so that a crash cannot leave a checkpoint and no log.
  if (failed_) return 0;
  std::size_t removed = 0;
  while (removed < segments_.size() && segments_[removed].first != segment_ && segments_[removed].second <= snapshot) {
    std::filesystem::remove(directory_ / segment_name(segments_[removed].first));
    ++removed;
  }
  segments_.erase(segments_.begin(), segments_.begin() + static_cast<std::ptrdiff_t>(removed));
  // Order does not matter: a crash that keeps some of the names leaves
  // segments whose transactions the checkpoint holds, which recovery skips.
  if (removed > 0) detail::sync_directory(directory_);
  return removed;
}

log_writer::~log_writer() {
  if (fd_ >= 0) ::close(fd_);
}

void log_writer::open_segment(std::uint64_t number) {
  const std::filesystem::path path = directory_ / segment_name(number);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    failed_ = true;
    detail::throw_errno("cannot create log segment " + path.string());
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  segment_ = number;
  segment_used_ = 0;
  try {
    segments_.emplace_back(number, 0);
    detail::sync_directory(directory_);
    // The opening group names the log and the segment, and is synced
    // before anything follows it: a crash can then tear a segment's first
    // bytes only while the file holds no more than that group, and a reader
    // that finds a longer segment without it knows the segment was damaged,
    // not torn (log_reader.cpp).
    const std::string opening = seal_opening({log_, number});
    detail::write_all(fd_, opening, "cannot write to log segment " + segment_name(number));
    if (::fdatasync(fd_) != 0) detail::throw_errno("cannot sync log segment " + segment_name(number));
    segment_used_ = opening.size();
    total_bytes_ += opening.size();
  } catch (...) {
    failed_ = true;  // the segment's name may not survive a crash, or its opening group is not durable
    throw;
  }
}

void log_writer::append(std::string_view group, std::uint64_t last_commit) {
  if (failed_) throw std::system_error(EIO, std::generic_category(), "the log failed earlier");
  // A segment that holds only its opening group takes any group, however large.
  if (segment_used_ > opening_group_bytes && segment_used_ + group.size() > segment_bytes_) {
    sync();
    open_segment(segment_ + 1);  // marks the writer failed if it fails
  }
  try {
    detail::write_all(fd_, group, fmt::format("cannot write {} bytes to log segment {}", group.size(),
                                              segment_name(segment_)));
  } catch (...) {
    // A part of the group may be in the file: the next sync must not make
    // it durable as if whole, and the writer is done for (the engine stops
    // acknowledging commits).
    failed_ = true;
    throw;
  }
  segment_used_ += group.size();
  total_bytes_ += group.size();
  segments_.back().second = std::max(segments_.back().second, last_commit);
  synced_ = false;
}

void log_writer::sync() {
  if (failed_) throw std::system_error(EIO, std::generic_category(), "the log failed earlier");
  if (synced_) return;
  // After a failed fdatasync the kernel may have dropped the dirty pages:
  // nothing written since the last good sync can be trusted.
  if (::fdatasync(fd_) != 0) failed_ = true;
  if (failed_) detail::throw_errno("cannot sync log segment " + segment_name(segment_));
  synced_ = true;
}

}  // namespace weave::durability
