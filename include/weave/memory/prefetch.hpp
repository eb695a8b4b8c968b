#pragma once
// Software prefetches of a range of memory, one per cache line: for reading
// (exec/load.hpp's awaitables, index descents) and for writing (blocks and
// slots about to be filled).

#include <cstddef>
#include <cstdint>

namespace weave::detail {

inline void prefetch_line(const void* p) noexcept { __builtin_prefetch(p, 0, 3); }

// Calls visit(address) for each cache line of [p, p + bytes), in no set
// order, in straight-line code: a loop would spend three instructions of
// its own on each line, and a record read prefetches a few dozen lines
// (each index node whole, then the version). Where p is known to be
// aligned and bytes constant, the line count folds to a constant.
template <class Visit>
inline void for_each_line(const void* p, std::size_t bytes, Visit visit) {
  constexpr std::uintptr_t line = 64;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  std::uintptr_t at = begin & ~(line - 1);
  std::size_t lines = (begin + bytes - at + line - 1) / line;
  const auto line_at = [&at](std::uintptr_t i) { return reinterpret_cast<const void*>(at + i * line); };
  for (; lines > 8; lines -= 8, at += 8 * line) {
    for (std::uintptr_t i = 0; i < 8; ++i) visit(line_at(i));
  }
  switch (lines) {
    case 8: visit(line_at(7)); [[fallthrough]];
    case 7: visit(line_at(6)); [[fallthrough]];
    case 6: visit(line_at(5)); [[fallthrough]];
    case 5: visit(line_at(4)); [[fallthrough]];
    case 4: visit(line_at(3)); [[fallthrough]];
    case 3: visit(line_at(2)); [[fallthrough]];
    case 2: visit(line_at(1)); [[fallthrough]];
    case 1: visit(line_at(0)); [[fallthrough]];
    default: break;
  }
}

inline void prefetch_lines(const void* p, std::size_t bytes) noexcept {
  for_each_line(p, bytes, [](const void* l) { prefetch_line(l); });
}

// The same for memory about to be written: each line arrives ready to be
// written, so the stores that fill it do not wait for it in the store
// buffer, holding up every store behind them.
inline void prefetch_lines_for_write(const void* p, std::size_t bytes) noexcept {
  for_each_line(p, bytes, [](const void* l) { __builtin_prefetch(l, 1, 3); });
}

}  // namespace weave::detail
