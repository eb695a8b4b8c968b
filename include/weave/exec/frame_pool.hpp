#pragma once
// Recycles coroutine frames so that starting an operation costs a few
// instructions instead of a malloc: a block pool of their own.

#include "weave/memory/block_pool.hpp"

namespace weave::detail {

struct frame_blocks;
using frame_pool = block_pool<frame_blocks>;

}  // namespace weave::detail
