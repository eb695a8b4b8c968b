#pragma once
// The first line of every `weave bench` run: what the figures below it were
// measured on and with, in the spirit of Google Benchmark's context object.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace weave::cli {

// {"context":{date, host, cpu, CPUs online, allowed and used by `threads`
// threads, cache sizes and where they came from, huge-page mode, load
// average, weave's version and commit, compiler, build type}}.
nlohmann::ordered_json bench_context(std::size_t threads);
// The same facts in a line for people (weave demo's first line).
std::string describe_context(const nlohmann::ordered_json& context);

}  // namespace weave::cli
