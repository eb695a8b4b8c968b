#pragma once
// The serializable level: the serial safety net (SSN, Wang et al.) on top
// of snapshot isolation, extended to ranges.
//
// A transaction records the committed versions it read. At commit it
// computes the latest commit among the transactions that must precede it
// (predecessor, or pstamp: writers of what it read, readers of what it
// overwrote) and the earliest stamp among those that must follow it
// (successor, or sstamp: overwriters of what it read). If the first is not
// below the second, committing could close a dependency cycle, and it
// aborts.
//
// Ranges take part as versions do. A transaction also records the index
// leaves whose range it read (a scan, or a key it found absent) with their
// versions. A leaf keeps in its mark the latest commit that read its range:
// an inserter into the leaf must come after that reader, as an overwriter
// comes after the readers of a version. An insert into the range before the
// reader's commit changed the leaf's version: the inserter would have to
// come after the reader (its key is not in what was read) and perhaps
// before it, so the reader gives up.
//
// A key the index has but whose chain holds no version the reader sees
// (its insert is pending, or committed after the snapshot) is a read of the
// absence beneath the chain's oldest version, the inserter's: the reader
// leaves its stamp in that version's pstamp, which the inserter takes into
// its predecessor when it commits; if the inserter committed first, the
// reader gives up. An insert that aborts under SSN leaves its version in
// place as a committed tombstone of stamp 0 (older than any snapshot), so
// later inserters over the key are ordinary overwriters of what readers of
// the absence read.
//
// Commits run in parallel. A committer latches the versions it read and
// overwrote (in address order, so latching cannot deadlock) and only then
// draws its timestamp: two commits that share a version are ordered by
// their timestamps as by their latches, and the later one sees the stamps
// the earlier one left. Leaf marks need no latch: a reader marks its leaves
// before it checks their versions, and an inserter changes the leaf before
// it reads the mark, each with a read-modify-write on the mark, so one of
// the two sees the other.

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "weave/txn/commit_clock.hpp"
#include "weave/txn/detail/spare_vectors.hpp"
#include "weave/txn/detail/write_entry.hpp"
#include "weave/txn/version.hpp"

namespace weave::txn {

class serial_safety_net {
 public:
  serial_safety_net() = default;
  serial_safety_net(serial_safety_net&&) noexcept = default;
  serial_safety_net& operator=(serial_safety_net&&) = delete;

  // Takes the storage a finished transaction of the thread left: called by
  // serializable transactions only, so that others pay nothing for it.
  void start() noexcept {
    reads_ = detail::spare_vectors<const version*>::take();
    below_ = detail::spare_vectors<const version*>::take();
    ranges_ = detail::spare_vectors<range_read>::take();
    inserted_into_ = detail::spare_vectors<std::atomic<std::uint64_t>*>::take();
  }

  // Whether the transaction read anything that commit must check.
  bool empty() const noexcept { return reads_.empty() && ranges_.empty() && below_.empty(); }

  // A committed version the transaction read.
  void note_read(const version* v) {
    if (v != nullptr && !(v->stamp.load(std::memory_order_relaxed) & pending)) reads_.push_back(v);
  }

  // A chain none of whose versions the transaction sees: it read the absence
  // of the record beneath `bottom`, the chain's oldest version.
  void note_absent_below(const version* bottom) { below_.push_back(bottom); }

  // A leaf whose range the transaction read, validated at `seen`.
  template <class Node>
  void note_range(const Node& leaf, std::uint64_t seen) {
    ranges_.push_back({&leaf.version, seen, &leaf.mark});
  }

  // A split of a leaf by the transaction's own insert: a range read of it
  // is a read of both halves.
  template <class Node>
  void note_split(const Node& left, std::uint64_t before, std::uint64_t after, const Node& right,
                  std::uint64_t right_version) {
    bool read = false;
    for (range_read& r : ranges_) {
      if (r.version == &left.version && r.seen == before) {
        r.seen = after;
        read = true;
      }
    }
    if (read) ranges_.push_back({&right.version, right_version, &right.mark});
  }

  // An insert into a leaf (an index insert outcome): later readers of its
  // range come before us, and a range we read ourselves stays valid through
  // our own insert.
  template <class Outcome>
  void note_insert(const Outcome& o) {
    inserted_into_.push_back(&o.leaf->mark);
    for (range_read& r : ranges_) {
      if (r.version == &o.leaf->version && r.seen == o.version_before) r.seen = o.version_after;
    }
  }

  // Commits the transaction whose writes are `writes` if that keeps every
  // history serializable: stamps the writes and returns the commit
  // timestamp once it is visible, or returns 0 (nothing stamped; the caller
  // aborts). A durable engine's `log(context, ts)` writes the transaction to
  // the log once it may commit and before it is stamped; if it returns
  // false, commit returns 0 as well.
  std::uint64_t commit(commit_clock& clock, std::span<const detail::write_entry> writes,
                       bool (*log)(void*, std::uint64_t) = nullptr, void* context = nullptr);

  void clear() noexcept {
    detail::spare_vectors<const version*>::give(reads_);
    detail::spare_vectors<const version*>::give(below_);
    detail::spare_vectors<range_read>::give(ranges_);
    detail::spare_vectors<std::atomic<std::uint64_t>*>::give(inserted_into_);
  }

 private:
  struct range_read {
    const std::atomic<std::uint64_t>* version;
    std::uint64_t seen;
    std::atomic<std::uint64_t>* mark;
  };

  // Whether the exclusion test passes at `ts`, with the versions latched;
  // if so the stamps are left for the commits after it.
  bool check_and_publish(std::uint64_t ts, std::span<const detail::write_entry> writes);

  std::vector<const version*> reads_;
  std::vector<const version*> below_;  // bottoms of chains read as empty
  std::vector<range_read> ranges_;
  std::vector<std::atomic<std::uint64_t>*> inserted_into_;
};

}  // namespace weave::txn
