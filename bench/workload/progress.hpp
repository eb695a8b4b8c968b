#pragma once
// Progress lines ("\r" updates of a percentage) are for a person watching a
// terminal: a log file or a pipe gets none, and --quiet turns them off.

#include <unistd.h>

namespace weave::bench {

inline bool progress_wanted(bool quiet = false) noexcept { return !quiet && ::isatty(STDERR_FILENO) == 1; }

}  // namespace weave::bench
