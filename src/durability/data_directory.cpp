#include "weave/durability/data_directory.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>
#include <string_view>
#include <system_error>

#include "checksum.hpp"
#include "file_io.hpp"

namespace weave::durability {

namespace {

namespace fs = std::filesystem;

constexpr const char* format_file = "FORMAT";
constexpr const char* lock_file = "LOCK";
constexpr const char* catalog_file = "CATALOG";

std::string format_line(std::uint32_t version = data_format_version) {
  return fmt::format("weave data directory, format {}", version);
}
// The oldest format still read: its catalog may end without a checksum.
constexpr std::uint32_t oldest_format_read = 2, unchecked_catalog_format = 2;

[[noreturn]] void refuse(const fs::path& dir, const std::string& why) {
  throw data_directory_error(fmt::format("data directory '{}': {}", dir.string(), why));
}

// Writes `text` to dir/name through a temporary file (detail::publish): the
// file is the old or the new one, whenever a crash comes.
void replace_file(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path tmp = dir / (name + ".tmp");
  try {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) detail::throw_errno("cannot write " + name);
    try {
      detail::write_all(fd, text, "cannot write " + name);
    } catch (...) {
      ::close(fd);
      throw;
    }
    detail::publish(fd, tmp, dir / name);
  } catch (const std::system_error& e) {
    refuse(dir, e.what());
  }
}

std::string read_whole(const fs::path& dir, const fs::path& file) {
  try {
    return detail::read_file(file);
  } catch (const std::system_error& e) {
    refuse(dir, e.what());
  }
}

// A file's text for a one-line message: its first line, at most 60 bytes.
std::string excerpt(const std::string& text) {
  std::string line = text.substr(0, std::min(text.find('\n'), std::size_t{60}));
  for (char& c : line)
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  return line;
}

// The catalog's last line: the XXH3 of every line before it. A flipped bit
// in a table's key kind would otherwise read one kind's records as the
// other's (an 8-byte key is a valid byte key), and nothing else could tell.
constexpr std::string_view checksum_prefix = "checksum ";

std::string checksum_line(std::string_view entries) {
  return fmt::format("{}{:016x}\n", checksum_prefix, XXH3_64bits(entries.data(), entries.size()));
}

// "<id> <keys> <name>" per line, the keys "integer" or "bytes", followed by
// "/<inline value bytes>" where those are not 0; the name runs to the end of
// the line. Then the checksum line, which only catalogs of format 2 may lack:
// one cut short by a line, or whose last line was lost, is refused.
std::string catalog_text(const std::vector<catalog_entry>& entries) {
  std::string text;
  for (const catalog_entry& e : entries) {
    text += fmt::format("{} {}{} {}\n", e.id, e.byte_keys ? "bytes" : "integer",
                        e.inline_value_bytes == 0 ? std::string() : fmt::format("/{}", e.inline_value_bytes),
                        e.name);
  }
  return text + checksum_line(text);
}

std::vector<catalog_entry> parse_catalog(const fs::path& dir, std::string text, bool checksum_required) {
  std::vector<catalog_entry> out;
  if (!text.empty() && text.back() != '\n') refuse(dir, fmt::format("{} ends in the middle of a line", catalog_file));
  // The checksum line has a fixed length, so it is found by that, not by
  // the line break before it: a damaged break must not turn the checksum
  // into the end of a table's name. A last line that starts as one is one.
  const std::string_view view(text);
  const std::size_t sum_bytes = checksum_line("").size();
  const std::size_t last_line = text.empty() ? 0 : text.rfind('\n', text.size() - 2) + 1;  // npos + 1 is 0
  if (view.substr(last_line).starts_with(checksum_prefix) ||
      (text.size() >= sum_bytes && view.substr(text.size() - sum_bytes).starts_with(checksum_prefix))) {
    const std::size_t last = text.size() >= sum_bytes ? text.size() - sum_bytes : 0;
    if ((last > 0 && text[last - 1] != '\n') ||
        text.substr(last) != checksum_line(std::string_view(text).substr(0, last))) {
      refuse(dir, fmt::format("{} does not match its checksum (damaged, or edited by hand)", catalog_file));
    }
    text.resize(last);
  } else if (checksum_required) {
    refuse(dir, fmt::format("{} has no checksum line (damaged, or cut short)", catalog_file));
  }
  std::istringstream lines(text);
  std::string line;
  for (std::size_t n = 1; std::getline(lines, line); ++n) {
    std::istringstream fields(line);
    catalog_entry e{};
    std::string kind;
    if (!(fields >> e.id >> kind) || fields.get() != ' ')
      refuse(dir, fmt::format("{} line {} is damaged", catalog_file, n));
    if (const auto slash = kind.find('/'); slash != std::string::npos) {
      const std::string bytes = kind.substr(slash + 1);
      kind.resize(slash);
      const auto [end, ec] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), e.inline_value_bytes);
      // The table checks the upper bound.
      if (ec != std::errc{} || end != bytes.data() + bytes.size() || e.inline_value_bytes == 0) {
        refuse(dir, fmt::format("{} line {} is damaged", catalog_file, n));
      }
    }
    if (kind != "integer" && kind != "bytes")
      refuse(dir, fmt::format("{} line {} is damaged", catalog_file, n));
    e.byte_keys = kind == "bytes";
    std::getline(fields, e.name);
    if (e.name.empty() || e.id != out.size()) refuse(dir, fmt::format("{} line {} is damaged", catalog_file, n));
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

data_directory::data_directory(std::filesystem::path path, bool read_only)
    : path_(std::move(path)), read_only_(read_only) {
  std::error_code ec;
  if (fs::exists(path_, ec) && !fs::is_directory(path_, ec)) refuse(path_, "is not a directory");
  if (!fs::exists(path_, ec)) {
    if (read_only_) refuse(path_, "does not exist");
    fs::create_directories(path_, ec);
    if (ec) refuse(path_, fmt::format("cannot be created: {}", ec.message()));
    // The new directory's name lives in its parent: sync that too.
    const int parent = ::open(fs::absolute(path_).parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent >= 0) {
      ::fsync(parent);
      ::close(parent);
    }
  }
  if (!read_only_ && ::access(path_.c_str(), W_OK | X_OK) != 0) {
    refuse(path_, fmt::format("cannot be written: {}", std::strerror(errno)));
  }
  // The format first, so that another version's directory is left untouched (no lock file either).
  const fs::path format = path_ / format_file;
  const bool fresh = !fs::exists(format, ec);
  if (!fresh) {
    const std::string text = read_whole(path_, format);
    version_ = 0;
    for (std::uint32_t v = oldest_format_read; v <= data_format_version; ++v) {
      if (text == format_line(v) + "\n") version_ = v;
    }
    if (version_ == 0) {
      refuse(path_, fmt::format("its FORMAT says '{}', not '{}' (or formats {} to {})", excerpt(text),
                                format_line(), oldest_format_read, data_format_version - 1));
    }
  } else if (read_only_) {
    refuse(path_, "is not a weave data directory (no FORMAT file)");
  } else {
    // A crash while a directory was being set up leaves at most these.
    fs::directory_iterator entries(path_, ec);
    if (ec) refuse(path_, fmt::format("cannot be listed: {}", ec.message()));
    for (const auto& entry : entries) {
      const std::string name = entry.path().filename().string();
      if (name != lock_file && name != std::string(format_file) + ".tmp") {
        refuse(path_, "is not empty and is not a weave data directory");
      }
    }
  }
  if (read_only_) {
    // A shared lock on the lock file if there is one (writers are kept out
    // meanwhile, readers are not); none is made.
    lock_fd_ = ::open((path_ / lock_file).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (lock_fd_ >= 0) lock(LOCK_SH);
  } else {
    lock_fd_ = ::open((path_ / lock_file).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0) refuse(path_, fmt::format("cannot create its lock file: {}", std::strerror(errno)));
    lock(LOCK_EX);
  }
  try {
    if (fresh) replace_file(path_, format_file, format_line() + "\n");  // never read-only: refused above
    has_catalog_ = fs::exists(path_ / catalog_file);
    if (has_catalog_) {
      const bool checksum_required = version_ > unchecked_catalog_format;
      catalog_ = parse_catalog(path_, read_whole(path_, path_ / catalog_file), checksum_required);
    }
  } catch (...) {
    if (lock_fd_ >= 0) ::close(lock_fd_);  // no destructor runs for a constructor that throws
    lock_fd_ = -1;
    throw;
  }
}

void data_directory::lock(int how) {
  if (::flock(lock_fd_, how | LOCK_NB) != 0) {
    const int saved = errno;
    ::close(lock_fd_);
    lock_fd_ = -1;
    refuse(path_, saved == EWOULDBLOCK ? "is in use by another engine (its LOCK is held)"
                                       : fmt::format("cannot lock: {}", std::strerror(saved)));
  }
}

data_directory::~data_directory() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // closing releases the lock
}

void data_directory::upgrade() {
  if (read_only_) throw std::logic_error("a data directory opened read-only is not upgraded");
  if (version_ == data_format_version) return;
  // The catalog with its checksum first, so that a crash between the two
  // files leaves a format-2 directory that reads as before.
  if (has_catalog_ && version_ == unchecked_catalog_format)
    replace_file(path_, catalog_file, catalog_text(catalog_));
  replace_file(path_, format_file, format_line() + "\n");
  version_ = data_format_version;
}

void data_directory::add_table(const catalog_entry& entry) {
  if (read_only_) throw std::logic_error("a data directory opened read-only records no table");
  if (entry.id != catalog_.size() || entry.name.empty() || entry.name.find('\n') != std::string::npos) {
    throw std::invalid_argument("a catalog entry takes the next id and a one-line name");
  }
  std::vector<catalog_entry> next = catalog_;
  next.push_back(entry);
  replace_file(path_, catalog_file, catalog_text(next));
  catalog_ = std::move(next);
  has_catalog_ = true;
}

}  // namespace weave::durability
