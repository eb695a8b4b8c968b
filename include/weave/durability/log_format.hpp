#pragma once
// The redo log's bytes. A log is a directory of segment files
// (wal-000001.log, wal-000002.log, ...), each a run of groups; a group is
// what one write and one fdatasync make durable together (group commit):
//
//   header (56 bytes, little-endian)
//     magic "WVLG", format version, flags (bit 0: a restart; bit 1: a
//     segment's opening group, below),
//     payload bytes, transactions, first and last commit timestamp,
//     through: every commit at or before it is in this group or an earlier one,
//     payload checksum: XXH3-64 of the payload seeded with the fields before,
//     header checksum: XXH3-64 of the 48 bytes before it
//   payload: the transactions, one after the other
//     commit timestamp (8), writes (4), then per write
//       table id (4), operation (1: put or remove), key bytes (2),
//       value bytes (4), the key, the value
//   padding to a multiple of 8 bytes (zeros)
//
// Every segment opens with a group of no transactions, synced alone, whose
// flags (bit 1) mark it the opening group and whose payload (16 bytes) names
// the log (a random number its first writer drew) and the segment's own
// number. A segment copied in from another log, or renamed, is then damage,
// however sound its groups and however late its timestamps. Segments of
// older builds open with an empty group, or with none.
//
// Which logged transactions count. Workers append a transaction to the log
// before its commit completes, but buffers are gathered one after another,
// so a group may hold a transaction whose commit is not yet complete while a
// transaction it depends on (it read its writes) goes out with the next
// group. `through` settles it: the flusher reads it (the commit clock's
// now()) before it gathers, so every commit at or before it is in the group
// or before. Recovery keeps a transaction only once some group's `through`
// reaches it; the rest are the tail of commits no one was told of, and the
// next run's restart group (after its segment's opening group) discards
// them for good.
//
// A group whose checksum does not match is either the torn tail of the last
// segment (a crash in the middle of its write: only the group being written
// can be torn, because the next one is written after it is synced) or
// damage, which recovery reports rather than skips. Every segment opens
// with its opening group synced alone (log_writer.cpp), so a segment longer
// than that group (opening_group_bytes) without it is damage too.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weave::durability {

inline constexpr std::uint32_t group_magic = 0x474c5657;  // "WVLG" read as little-endian bytes
inline constexpr std::uint16_t format_version = 1;
inline constexpr std::size_t group_header_bytes = 56;
// The largest payload of a group; a larger length field is damage. A flush
// writes several groups, each synced before the next, rather than a larger one.
inline constexpr std::size_t max_group_bytes = std::size_t{1} << 30;
// The largest record of one transaction (it must fit in a group).
inline constexpr std::size_t max_transaction_bytes = max_group_bytes;
// Commit timestamps, a group's `through` (a checkpoint's end marker's record
// count) and a checkpoint's snapshot stay below this: a stamp's top bit
// means "pending" in memory (txn/version.hpp). A larger one in a file is
// damage. An engine opened for writing refuses files past half of it, so
// that its clock stays below it (2^61 commits: 73 years at 10^9 a second).
inline constexpr std::uint64_t timestamp_limit = std::uint64_t{1} << 62;

enum class write_op : std::uint8_t { put = 0, remove = 1 };

// One write of a committed transaction, as logged: the value is empty for a
// removal.
struct logged_write {
  std::uint32_t table;
  write_op op;
  std::string_view key;
  std::string_view value;
};

// A transaction read back from the log; its views point into the segment
// being read.
struct logged_transaction {
  std::uint64_t commit;
  std::vector<logged_write> writes;
};

// A log that cannot be trusted: damage before the tail, a group from another
// format version, a payload that does not parse.
class log_corruption : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
// A growing run of bytes that does not zero what it adds: a commit writes
// every byte it reserves, and zeroing them first cost as much as the writing.
class byte_run {
 public:
  byte_run() = default;
  byte_run(byte_run&& o) noexcept
      : data_(std::move(o.data_)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  byte_run& operator=(byte_run&& o) noexcept {
    data_ = std::move(o.data_);
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
    return *this;
  }
  const char* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }
  std::string_view view() const noexcept { return {data_.get(), size_}; }
  // Adds `n` bytes, not yet written, and returns where they begin; on an
  // exception (no memory, or a size past half the address space) the run is
  // as it was.
  char* extend(std::size_t n) {
    if (capacity_ - size_ < n) grow(n);
    char* at = data_.get() + size_;
    size_ += n;
    return at;
  }
  void append(std::string_view bytes);
  void clear() noexcept { size_ = 0; }

 private:
  void grow(std::size_t n);

  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
};
}  // namespace detail

// Collects committed transactions into the next group.
class group_builder {
 public:
  // Appends a transaction (all of it or, on an exception, none). Throws
  // std::length_error for a key longer than 65535 bytes or a record that
  // would not fit in a group.
  void add(std::uint64_t commit, std::span<const logged_write> writes);
  bool empty() const noexcept { return transactions_ == 0; }
  std::size_t transactions() const noexcept { return transactions_; }
  std::uint64_t last_commit() const noexcept { return last_; }
  // The payload so far, without header.
  std::size_t payload_bytes() const noexcept { return payload_.size(); }
  // Moves `other`'s transactions after this one's (one group per flush: only
  // the last group of a log can then be torn).
  void take(group_builder& other);
  // The group's bytes (header, payload, padding), ready to write; the
  // builder is empty afterwards. `through`: see above; `restart` marks the
  // first group of a run. Throws std::length_error past max_group_bytes.
  std::string seal(std::uint64_t through, bool restart = false);
  // The same into `out` (replaced), whose capacity a flusher reuses.
  void seal(std::uint64_t through, std::string& out, bool restart = false);

 private:
  detail::byte_run payload_;
  std::uint32_t transactions_ = 0;
  std::uint64_t first_ = 0, last_ = 0;
};

// What a segment's opening group names (log_format.hpp, above).
struct segment_identity {
  std::uint64_t log = 0;      // never 0
  std::uint64_t segment = 0;  // the number in the segment's file name
  bool operator==(const segment_identity&) const = default;
};
// The opening group of a segment, and its size.
std::string seal_opening(const segment_identity& id);
inline constexpr std::size_t opening_group_bytes = group_header_bytes + 16;
// A log's identity for its first segment: random, not 0.
std::uint64_t new_log_identity();

// What decode_group() finds at an offset of a segment.
enum class group_state { complete, incomplete, damaged };

struct group_view {
  group_state state;
  std::size_t bytes = 0;  // the whole group with its padding (complete groups)
  std::uint32_t transactions = 0;
  std::uint64_t first_commit = 0, last_commit = 0;
  std::uint64_t through = 0;
  bool restart = false;
  bool opening = false;  // a segment's opening group: `identity` is set, `payload` holds no transactions
  segment_identity identity;
  std::string_view payload;
};

// Reads the group at the start of `bytes`: complete (both checksums match),
// incomplete (a sound header whose group the bytes end before) or damaged
// (anything else). Throws log_corruption for a sound header of another
// format version or with a timestamp at or past timestamp_limit, which must
// not be mistaken for a torn tail and cut off.
group_view decode_group(std::string_view bytes);

// The transactions of a complete group's payload; throws log_corruption if
// it does not parse or a commit timestamp lies outside the group's first and
// last (a checksum collision or a bug, never a torn write).
std::vector<logged_transaction> decode_transactions(const group_view& group);
// The same into `out` (replaced), whose elements and their writes keep their
// capacity from group to group: a reader decodes without allocating.
void decode_transactions(const group_view& group, std::vector<logged_transaction>& out);

}  // namespace weave::durability
