#pragma once
// What the transaction engine promises and reports: the isolation levels,
// what an operation did, and what a commit did.

#include <cstdint>

namespace weave::txn {

enum class isolation {
  snapshot,      // SI: first updater wins; write skew possible
  serializable,  // SI with the serial safety net on top, phantoms included
};

// What an operation did.
enum class status {
  ok,
  not_found,  // no visible record under the key
  duplicate,  // insert of a key that has a visible record
  conflict,   // write-write conflict: the transaction must abort
};

// What a commit did. A failed commit has aborted the transaction; running it
// again from the start may succeed.
enum class commit_status {
  committed,
  write_conflict,         // an operation met another transaction's write (first updater wins)
  serialization_failure,  // serializable: committing could close a dependency cycle, or a
                          // range it read (a scan, or a key it found absent) has changed
  log_failure,            // durable engine: the log cannot be written (the disk is full, a write or
                          // sync failed); the commit is not acknowledged, and no later one will be
};

// A commit whose acknowledgement waits for the disk, left to its caller
// (transaction::commit_deferred): `status` as commit() would return it, but
// a committed one may be told to anyone only once the engine acknowledges
// `durable_at` (engine::acknowledgement); 0 when there is nothing to wait
// for (no log, `async`, or a failed commit).
struct deferred_commit {
  commit_status status;
  std::uint64_t durable_at;
};

constexpr const char* name_of(commit_status s) noexcept {
  switch (s) {
    case commit_status::committed: return "committed";
    case commit_status::write_conflict: return "write_conflict";
    case commit_status::serialization_failure: return "serialization_failure";
    case commit_status::log_failure: return "log_failure";
  }
  return "?";
}

}  // namespace weave::txn
