#pragma once
#include <cstddef>

namespace weave::bench {

struct demo_options {
  double scale = 1.0;  // multiplies every structure size (the default builds about 2 GiB in all)
  std::size_t lookups = 500'000;
  std::size_t repeat = 3;
};

// Every size of the tour is --scale times a factor from the machine: its
// last-level cache over 32 MiB (the cache the default sizes were chosen on),
// at least 1/4, so that each structure is about sixteen times the cache and
// the tour tells the same story on a laptop and a server.
double size_factor(const demo_options& options);
// n times size_factor(options), at least `least`.
std::size_t scaled_size(const demo_options& options, std::size_t n, std::size_t least = 1024);

// `weave demo`: a tour of the lookup layer and the column store on DRAM-sized structures. Tables on
// stdout, progress on stderr. Returns the process exit code.
int run_demo(const demo_options& options);
// The most memory any part of the tour takes at once, roughly (the parts
// run one after the other), so that a --scale that cannot fit is refused first.
std::size_t demo_bytes(const demo_options& options);
std::size_t column_demo_bytes(const demo_options& options);
std::size_t txn_demo_bytes(const demo_options& options);
std::size_t tasks_demo_bytes(const demo_options& options);

// The column store's part of the tour.
void run_column_demo(const demo_options& options);
// The transaction engine's part.
void run_txn_demo(const demo_options& options);
// The task runtime's part.
void run_tasks_demo(const demo_options& options);
// A durable engine killed and recovered.
void run_durability_demo(const demo_options& options);

}  // namespace weave::bench
