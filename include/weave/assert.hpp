#pragma once
// WEAVE_ASSERT: the one assertion of the project. It is on in debug builds and in
// every build configured with WEAVE_ASSERTIONS (tests and CI), and compiles to
// nothing in release builds so that hot loops carry no checks.

#include <cstdio>
#include <cstdlib>

#if !defined(NDEBUG) && !defined(WEAVE_ASSERTIONS)
#define WEAVE_ASSERTIONS 1
#endif

namespace weave::detail {
[[noreturn]] inline void assertion_failed(const char* expr, const char* file, int line) noexcept {
  std::fprintf(stderr, "weave: assertion failed: %s (%s:%d)\n", expr, file, line);
  std::abort();
}
}  // namespace weave::detail

#if defined(WEAVE_ASSERTIONS) && WEAVE_ASSERTIONS
#define WEAVE_ASSERT(expr) \
  ((expr) ? static_cast<void>(0) : ::weave::detail::assertion_failed(#expr, __FILE__, __LINE__))
#else
#define WEAVE_ASSERT(expr) static_cast<void>(0)
#endif
