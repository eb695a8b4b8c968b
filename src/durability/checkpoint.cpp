#include "weave/durability/checkpoint.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <utility>
#include <vector>

#include "file_io.hpp"

namespace weave::durability {

namespace {

namespace fs = std::filesystem;

// Records go out in groups of about this many bytes.
constexpr std::size_t group_target_bytes = std::size_t{1} << 20;

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
  if (fd_ < 0) detail::throw_errno("cannot create checkpoint " + tmp.string());
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
  detail::write_all(fd_, group_.seal(snapshot_), "cannot write checkpoint " + (directory_ / checkpoint_name(snapshot_)).string());
}

void checkpoint_writer::finish() {
  write_group();
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
  const std::string bytes = detail::read_file(path);
  checkpoint_info info;
  info.snapshot = snapshot;
  const std::string_view all(bytes);
  std::size_t at = 0;
  std::vector<logged_transaction> records;  // of a group, reused: no allocation per record
  try {
    while (at < all.size()) {
      const group_view g = decode_group(all.substr(at));
      if (g.state != group_state::complete) throw log_corruption("a damaged group");
      decode_transactions(g, records);
      for (const logged_transaction& t : records) {
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
