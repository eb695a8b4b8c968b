#include "weave/durability/log_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "file_io.hpp"
#include "weave/durability/log_writer.hpp"

namespace weave::durability {

namespace {

// Truncates a segment to `bytes`, durably: a tail that came back after a
// power loss would sit in the middle of the log once more groups follow.
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
      return true;  // a whole group of another version: not a torn write either
    }
  }
  return false;
}

}  // namespace

log_scan read_log(const std::filesystem::path& directory,
                  const std::function<void(const logged_transaction&)>& each, bool cut_torn_tail) {
  std::vector<std::pair<std::uint64_t, std::filesystem::path>> segments;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (const std::uint64_t n = segment_number(entry.path().filename().string())) segments.emplace_back(n, entry.path());
  }
  std::sort(segments.begin(), segments.end());
  log_scan scan;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const std::filesystem::path& path = segments[s].second;
    const std::string name = path.filename().string();
    const bool last = s + 1 == segments.size();
    const std::string bytes = detail::read_file(path);
    const std::string_view all(bytes);
    ++scan.segments;
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
        scan.torn_segment = name;
        scan.torn_offset = at;
        scan.torn_bytes = all.size() - at;
        if (cut_torn_tail) cut(path, at);
        break;
      }
      std::vector<logged_transaction> transactions;
      try {
        transactions = decode_transactions(g);
      } catch (const log_corruption& e) {
        throw log_corruption(fmt::format("{} at byte {}: {}", name, at, e.what()));
      }
      for (const logged_transaction& t : transactions) {
        if (each) each(t);
        scan.last_commit = std::max(scan.last_commit, t.commit);
      }
      ++scan.groups;
      scan.transactions += g.transactions;
      scan.bytes += g.bytes;
      at += g.bytes;
    }
  }
  return scan;
}

}  // namespace weave::durability
