#pragma once
// The directory a durable engine keeps its files in: a format file that says
// what wrote it, a lock file that keeps a second process out, the catalog of
// tables, the log's segments (and, later, checkpoints).
//
// Opening refuses, with one line and nothing written: a path that is a
// file, a directory that cannot be created or written, one that belongs to
// another format version (formats 2 and 3 are read), and one another process has
// open. A missing directory is created.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace weave::durability {

// 2: checkpoints end with a marker; 3: the catalog ends with its checksum;
// 4: log segments open with their log's identity (log_format.hpp), which
// builds of format 3 would take for damage. Directories of format 2 (whose
// catalog may lack the checksum) and 3 are still read; upgrade() makes them
// format 4. Their segments name no log, and only segments after them must.
inline constexpr std::uint32_t data_format_version = 4;

// Bad or unusable data directory: the message is one line for a user.
class data_directory_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A table as the catalog records it, so that recovery needs no application code.
struct catalog_entry {
  std::uint32_t id;
  std::string name;
  bool byte_keys;  // else 8-byte integer keys
  std::uint32_t inline_value_bytes = 0;  // table::inline_value_bytes()
  bool operator==(const catalog_entry&) const = default;
};

class data_directory {
 public:
  // Creates or opens `path` and takes its lock for the object's life.
  // Read-only: opens an existing directory only, writes nothing (no lock
  // file either: it takes a shared lock on one that exists, which keeps a
  // writer out meanwhile), and records no table.
  explicit data_directory(std::filesystem::path path, bool read_only = false);
  ~data_directory();
  data_directory(const data_directory&) = delete;
  data_directory& operator=(const data_directory&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }
  // The tables recorded so far (empty for a new directory).
  const std::vector<catalog_entry>& catalog() const noexcept { return catalog_; }
  // Records one more table: the catalog is rewritten to a new file, synced
  // and renamed over the old one, so a crash leaves the old or the new one.
  void add_table(const catalog_entry& entry);
  // The format read: data_format_version, or 2 or 3 for a directory
  // upgrade() has yet to bring up to it.
  std::uint32_t format() const noexcept { return version_; }
  // Rewrites a directory of an older format as the current one: a format-2
  // catalog with its checksum, then FORMAT. Its owner calls it once every
  // file of the directory has been checked, so that a directory it refuses
  // is left as it was. Throws std::logic_error if opened read-only.
  void upgrade();

 private:
  // Takes the lock on lock_fd_ (LOCK_SH or LOCK_EX), or closes it and refuses.
  void lock(int how);

  std::filesystem::path path_;
  bool read_only_ = false;
  int lock_fd_ = -1;
  std::uint32_t version_ = data_format_version;
  bool has_catalog_ = false;
  std::vector<catalog_entry> catalog_;
};

}  // namespace weave::durability
