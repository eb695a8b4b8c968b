#pragma once
// Strict batches: `group` operations start together and the next batch starts
// only when every one of them has finished. Slower than refilling when
// operations differ in length, but it gives batch boundaries at which a worker
// may do per-batch work (the transaction engine enters and leaves its epoch
// there).

#include "weave/exec/detail/ring.hpp"

namespace weave {

using batched_scheduler = detail::ring_scheduler<false>;

}  // namespace weave
