#pragma once
// Page faults taken ahead of a structure that grows, off the thread that
// grows it.
//
// The first write to an anonymous page costs a fault and the kernel's
// zeroing: a 2 MiB huge page takes a few hundred microseconds, and on a VM
// the host may fault too. A table that grows as transactions insert (record
// slots, versions, index nodes) pays that inside transactions: a sixth of
// naive TPC-C's time on some VMs (docs/results/tpcc.md). prefault_async()
// hands a range that will soon be written to a thread of the process, which
// faults its pages in with madvise(MADV_POPULATE_WRITE): that maps them
// writable without writing to them, so a range the grower has already
// started to fill keeps its contents, and a range unmapped meanwhile is
// only an error the thread ignores.
//
// It is a hint: requests beyond a small queue are dropped, and on a kernel
// without MADV_POPULATE_WRITE (before Linux 5.14) nothing happens. The
// thread starts with the first request, also in a child after fork().

#include <cstddef>

namespace weave {

// Asks for the pages of [address, address + bytes) to be faulted in soon.
void prefault_async(void* address, std::size_t bytes) noexcept;

// Waits until every range asked for so far has been faulted in (or
// dropped). For tests.
void prefault_drain() noexcept;

// Ranges faulted in so far in this process (a count, for tests).
std::size_t prefaulted_ranges() noexcept;

}  // namespace weave
