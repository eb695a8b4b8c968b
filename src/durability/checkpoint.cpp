#include "weave/durability/checkpoint.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <fstream>
#include <system_error>
#include <utility>

namespace weave::durability {

namespace {

namespace fs = std::filesystem;

// Records go out in groups of about this many bytes.
constexpr std::size_t group_target_bytes = std::size_t{1} << 20;

// Takes errno first: building the message may change it.
[[noreturn]] void fail(const std::string& what) {
  const int error = errno;
  throw std::system_error(error, std::generic_category(), what);
}

void write_all(int fd, std::string_view bytes, const fs::path& path) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      fail("cannot write checkpoint " + path.string());
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string checkpoint_name(std::uint64_t snapshot) { return fmt::format("checkpoint-{:020}.wck", snapshot); }

std::optional<std::uint64_t> checkpoint_snapshot(std::string_view name) {
  if (!name.starts_with("checkpoint-") || !name.ends_with(".wck")) return std::nullopt;
  const std::string_view digits = name.substr(11, name.size() - 15);
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc{} || end != digits.data() + digits.size() || checkpoint_name(n) != name) return std::nullopt;
  return n;
}

checkpoint_writer::checkpoint_writer(fs::path directory, std::uint64_t snapshot)
    : directory_(std::move(directory)), snapshot_(snapshot) {
  const fs::path tmp = directory_ / (checkpoint_name(snapshot_) + ".tmp");
  fd_ = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot create checkpoint " + tmp.string());
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
  write_all(fd_, group_.seal(), directory_ / (checkpoint_name(snapshot_) + ".tmp"));
}

void checkpoint_writer::finish() {
  write_group();
  const fs::path tmp = directory_ / (checkpoint_name(snapshot_) + ".tmp");
  if (::fsync(fd_) != 0) fail("cannot sync checkpoint " + tmp.string());
  ::close(fd_);
  fd_ = -1;
  const fs::path final_path = directory_ / checkpoint_name(snapshot_);
  if (::rename(tmp.c_str(), final_path.c_str()) != 0) fail("cannot rename checkpoint " + tmp.string());
  const int dir = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || ::fsync(dir) != 0) {
    const int error = errno;
    if (dir >= 0) ::close(dir);
    errno = error;
    fail("cannot sync directory " + directory_.string());
  }
  ::close(dir);
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
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open checkpoint " + path.string());
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail("cannot read checkpoint " + path.string());
  checkpoint_info info;
  info.snapshot = snapshot;
  const std::string_view all(bytes);
  std::size_t at = 0;
  try {
    while (at < all.size()) {
      const group_view g = decode_group(all.substr(at));
      if (g.state != group_state::complete) throw log_corruption("a damaged group");
      for (const logged_transaction& t : decode_transactions(g)) {
        if (t.commit != snapshot || t.writes.size() != 1 || t.writes[0].op != write_op::put) {
          throw log_corruption("a record that does not belong to this checkpoint");
        }
        if (each) each(t.writes[0].table, t.writes[0].key, t.writes[0].value);
        ++info.records;
      }
      at += g.bytes;
    }
  } catch (const log_corruption& e) {
    throw log_corruption(fmt::format("checkpoint {} at byte {}: {}", name, at, e.what()));
  }
  info.bytes = all.size();
  return info;
}

}  // namespace weave::durability
