#pragma once
// Runs the same requests under every scheduler, so that each data structure is
// checked against its oracle in every execution mode. `make` is either
// make(policy, i) -> task of request i, or streamed(operation, argument_of):
// then the operation also runs over one request at a time (one_request).

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "weave/exec/adaptive_scheduler.hpp"
#include "weave/exec/batched_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/request_stream.hpp"
#include "weave/exec/sequential_scheduler.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/contention_scheduler.hpp"

namespace weave::testing {

// Results of requests [0, count) as each mode computed them, with the mode's name.
template <class R, class Make>
std::vector<std::pair<std::string, std::vector<R>>> run_every_mode(std::size_t count, Make make) {
  std::vector<std::pair<std::string, std::vector<R>>> runs;
  auto collect = [&](std::string name, auto&& scheduler) {
    std::vector<R> out(count);
    std::vector<int> seen(count, 0);
    scheduler.run(count, make, [&](std::size_t i, R r) {
      out[i] = std::move(r);
      ++seen[i];
    });
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_EQ(seen[i], 1) << name << ": request " << i << " delivered " << seen[i] << " times";
    }
    runs.emplace_back(std::move(name), std::move(out));
  };
  collect("sequential", sequential_scheduler{});
  collect("sequential-interleaved-policy", basic_sequential_scheduler<interleaved_policy>{});
  for (std::size_t g : {1u, 3u, 16u}) {
    collect("interleaved-" + std::to_string(g), interleaved_scheduler{g});
    collect("batched-" + std::to_string(g), batched_scheduler{g});
  }
  adaptive_options small;
  small.window = 32;
  small.recheck_interval = 128;
  collect("adaptive", adaptive_scheduler{small});
  collect("contention", txn::contention_scheduler{{.max_group = 8, .window = 16}});
  collect("contention-pipeline", txn::contention_scheduler{{.max_group = 8, .window = 16}, true});
  {
    std::vector<R> out(count);
    for (std::size_t i = 0; i < count; ++i) {
      if constexpr (detail::is_streamed<Make>) {
        using argument = std::remove_cvref_t<decltype(make.argument_of(i))>;
        out[i] = sync_wait(make.operation(interleaved, one_request<argument, R>{make.argument_of(i)}));
      } else {
        out[i] = sync_wait(make(interleaved, i));
      }
    }
    runs.emplace_back("sync_wait", std::move(out));
  }
  return runs;
}

template <class R, class Make>
void expect_every_mode(std::size_t count, Make make, const std::vector<R>& expected) {
  for (const auto& [mode, results] : run_every_mode<R>(count, make)) {
    for (std::size_t i = 0; i < count; ++i) {
      ASSERT_EQ(results[i], expected[i]) << "mode " << mode << ", request " << i;
    }
  }
}

}  // namespace weave::testing
