#pragma once
// Keeps `group` operations in flight and resumes them round-robin; each
// prefetches before it suspends, so its line arrives while the others run.
// A finished operation's slot takes the next request at once.

#include "weave/exec/detail/ring.hpp"

namespace weave {

using interleaved_scheduler = detail::ring_scheduler<true>;

}  // namespace weave
