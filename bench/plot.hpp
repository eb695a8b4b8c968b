#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace weave::bench {

// Refuses (std::invalid_argument, one line) a PNG path the plotter could not
// write, or a machine without python3-matplotlib: checked while the command
// line is parsed, so that a long run never ends in a failed plot.
void check_plot_path(const std::string& png);
// Writes a PNG of ns per lookup against group size with Debian's
// python3-matplotlib, run without a shell. Throws std::runtime_error with a one-line reason.
void plot_group_sweep(const std::vector<nlohmann::ordered_json>& rows, const std::string& png);
// Time per query against dictionary size, from the column benchmarks.
void plot_dictionary_sweep(const std::vector<nlohmann::ordered_json>& rows, const std::string& png);
// Throughput against p99 latency, fixed batches and latency targets, from
// the transaction benchmarks.
void plot_latency_sweep(const std::vector<nlohmann::ordered_json>& rows, const std::string& png);

}  // namespace weave::bench
