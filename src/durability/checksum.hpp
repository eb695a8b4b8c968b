#pragma once
// xxHash, as the durability files use it (the log's groups, the catalog).
// Inline: the library's users link no xxHash of their own. On x86-64, SSE2
// (which every x86-64 has): the AVX-512 path, inlined into our code, makes
// g++ 12 warn inside its own intrinsics headers, and SSE2 hashes faster than
// the disk writes.
#define XXH_INLINE_ALL
#if defined(__x86_64__)
#define XXH_VECTOR XXH_SSE2
#endif
#include <xxhash.h>
