#include "bench/tpcc/runner.hpp"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "bench/workload/prefetch_policy.hpp"
#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"

namespace weave::tpcc {

mode parse_mode(const std::string& name) {
  if (name == "naive") return mode::naive;
  if (name == "prefetch") return mode::prefetch;
  if (name == "multi-key") return mode::multi_key;
  if (name == "coro-nested") return mode::coro_nested;
  if (name == "coro") return mode::coro;
  if (name == "hybrid") return mode::hybrid;
  throw std::invalid_argument(
      fmt::format("unknown mode '{}' (naive, prefetch, multi-key, coro-nested, coro or hybrid)", name));
}

const char* mode_name(mode m) {
  switch (m) {
    case mode::naive: return "naive";
    case mode::prefetch: return "prefetch";
    case mode::multi_key: return "multi-key";
    case mode::coro_nested: return "coro-nested";
    case mode::coro: return "coro";
    case mode::hybrid: return "hybrid";
  }
  return "?";
}

bool interleaves(mode m) { return m == mode::coro_nested || m == mode::coro || m == mode::hybrid; }

std::size_t tally::done() const {
  std::size_t n = 0;
  for (std::size_t k = 0; k < kinds; ++k) n += commits[k] + rollbacks[k];
  return n;
}

void tally::add(const tally& o) {
  for (std::size_t k = 0; k < kinds; ++k) {
    commits[k] += o.commits[k];
    rollbacks[k] += o.rollbacks[k];
    write_conflicts[k] += o.write_conflicts[k];
    serialization_failures[k] += o.serialization_failures[k];
  }
  retries += o.retries;
  for (std::size_t k = 0; k < kinds; ++k) latency_us[k].insert(latency_us[k].end(), o.latency_us[k].begin(), o.latency_us[k].end());
}

namespace {

using clock_type = std::chrono::steady_clock;

template <bool Nested, bool MultiKey, class Scheduler>
void run_with(Scheduler&& scheduler, worker_state& ws, std::size_t retries, std::size_t count,
              const std::array<unsigned, kinds>& percent, tally& out) {
  // The kind and start of each transaction, by its index in the chunk.
  thread_local std::vector<kind> kind_of;
  thread_local std::vector<clock_type::time_point> started;
  kind_of.resize(count);
  started.resize(count);
  scheduler.run(
      count,
      [&](auto policy, std::size_t i) {
        if (!ws.unacknowledged.empty()) {
          ws.unacknowledged.acknowledge(ws.shared->db, [&](std::uint32_t k, float us) {
            ++out.commits[k];
            out.latency_us[k].push_back(us);
          });
        }
        kind_of[i] = draw(percent, ws.random);
        started[i] = clock_type::now();
        using P = decltype(policy);
        if (retries == 0) return run_one<P, Nested, MultiKey>(ws, kind_of[i], ws.random);
        return run_with_retries<P, Nested, MultiKey>(ws, kind_of[i], retries, out.retries);
      },
      [&](std::size_t i, outcome o) {
        const auto k = static_cast<std::size_t>(kind_of[i]);
        if (o == outcome::committed && ws.durable_at != 0) {  // counted once acknowledged
          ws.unacknowledged.add(ws.durable_at, started[i], static_cast<std::uint32_t>(k));
          ws.durable_at = 0;
          return;
        }
        switch (o) {
          case outcome::committed: ++out.commits[k]; break;
          case outcome::rolled_back: ++out.rollbacks[k]; break;
          case outcome::write_conflict: ++out.write_conflicts[k]; break;
          case outcome::serialization_failure: ++out.serialization_failures[k]; break;
        }
        out.latency_us[k].push_back(
            static_cast<float>(std::chrono::duration<double, std::micro>(clock_type::now() - started[i]).count()));
      });
}

template <bool Nested, bool MultiKey>
void run_interleaved(worker_state& ws, std::size_t batch, bool pipeline, std::size_t retries,
                     std::size_t count, const std::array<unsigned, kinds>& percent, tally& out,
                     latency_target_scheduler* tuned, txn::contention_scheduler* contended) {
  if (tuned != nullptr) {
    run_with<Nested, MultiKey>(*tuned, ws, retries, count, percent, out);
  } else if (contended != nullptr) {
    run_with<Nested, MultiKey>(*contended, ws, retries, count, percent, out);
  } else if (pipeline) {
    run_with<Nested, MultiKey>(interleaved_scheduler{batch}, ws, retries, count, percent, out);
  } else {
    run_with<Nested, MultiKey>(batched_scheduler{batch}, ws, retries, count, percent, out);
  }
}

}  // namespace

void run_chunk(mode m, worker_state& ws, std::size_t batch, bool pipeline, std::size_t retries,
               std::size_t count, const std::array<unsigned, kinds>& percent, tally& out,
               latency_target_scheduler* tuned, txn::contention_scheduler* contended) {
  switch (m) {
    case mode::naive: run_with<false, false>(sequential_scheduler{}, ws, retries, count, percent, out); break;
    case mode::prefetch:
      run_with<false, false>(basic_sequential_scheduler<bench::prefetch_policy>{}, ws, retries, count, percent, out);
      break;
    case mode::multi_key: run_with<false, true>(sequential_scheduler{}, ws, retries, count, percent, out); break;
    case mode::coro_nested:
      run_interleaved<true, false>(ws, batch, pipeline, retries, count, percent, out, tuned, contended);
      break;
    case mode::coro:
      run_interleaved<false, false>(ws, batch, pipeline, retries, count, percent, out, tuned, contended);
      break;
    case mode::hybrid:
      run_interleaved<false, true>(ws, batch, pipeline, retries, count, percent, out, tuned, contended);
      break;
  }
}

}  // namespace weave::tpcc
