#include "weave/exec/switch_cost.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>

#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/task.hpp"

namespace weave {
namespace {

constexpr std::size_t steps = 64;
constexpr std::size_t requests = 512;

// Walks a small cached array; every step is a suspension point.
template <class Policy>
task<std::uint32_t> walk(const std::array<std::uint32_t, 1024>& data, std::uint32_t at) {
  for (std::size_t s = 0; s < steps; ++s) at = co_await load<Policy>(data[at & 1023u]);
  co_return at;
}

template <class Scheduler>
double time_ns(const Scheduler& scheduler, const std::array<std::uint32_t, 1024>& data,
               std::uint64_t& sink_total) {
  auto make = [&](auto policy, std::size_t i) {
    return walk<decltype(policy)>(data, static_cast<std::uint32_t>(i));
  };
  auto sink = [&](std::size_t, std::uint32_t v) { sink_total += v; };
  const auto start = std::chrono::steady_clock::now();
  scheduler.run(requests, make, sink);
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(stop - start).count();
}

double measure() {
  std::array<std::uint32_t, 1024> data{};
  for (std::uint32_t i = 0; i < data.size(); ++i) data[i] = (i * 7919u + 13u) & 1023u;
  std::uint64_t sink_total = 0;
  double best_seq = 1e300;
  double best_int = 1e300;
  for (int repeat = 0; repeat < 7; ++repeat) {
    best_seq = std::min(best_seq, time_ns(sequential_scheduler{}, data, sink_total));
    best_int = std::min(best_int, time_ns(interleaved_scheduler{8}, data, sink_total));
  }
  // Keeps the work observable so that it is not optimized away.
  if (sink_total == 1) best_int += 1e-9;
  return std::max(best_int - best_seq, 0.0) / (requests * steps);
}

}  // namespace

double switch_cost_ns() {
  static const double cost = measure();
  return cost;
}

}  // namespace weave
