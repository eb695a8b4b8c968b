#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace weave::bench {

// Writes a PNG of ns per lookup against group size with Debian's
// python3-matplotlib. Throws std::runtime_error with a one-line reason.
void plot_group_sweep(const std::vector<nlohmann::ordered_json>& rows, const std::string& png);
// Time per query against dictionary size, from the column benchmarks.
void plot_dictionary_sweep(const std::vector<nlohmann::ordered_json>& rows, const std::string& png);

}  // namespace weave::bench
