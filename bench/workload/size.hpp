#pragma once
// Sizes on the command line: plain numbers or with a suffix, decimal (K, M, G,
// T: powers of 1000) or binary (Ki, Mi, Gi, Ti: powers of 1024).

#include <cstddef>
#include <string>
#include <string_view>

namespace weave::bench {

// Throws std::invalid_argument with a one-line message on bad input.
std::size_t parse_size(std::string_view text);

// "2.0 GiB", "512.0 MiB": for people, not for JSON.
std::string format_bytes(std::size_t bytes);

}  // namespace weave::bench
