#pragma once
// Fuzz targets: each takes any bytes and must neither crash, hang, nor leak,
// and may refuse them only with the errors its API documents. A target
// aborts, with a message, on anything else; libFuzzer (WEAVE_FUZZ) and the
// mutations of fuzz_test.cpp drive them.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace weave::fuzz {

// How a target reports a fault: one line on stderr, then abort (which
// libFuzzer keeps the input of, and which fails fuzz_tests).
[[noreturn]] inline void finding(std::string_view what) {
  std::fprintf(stderr, "fuzz finding: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

// The bytes are a directory image (directory_image.hpp). Opens an engine on
// it, read-only or, with writable_flag, for writing; then it commits one
// transaction (and takes a checkpoint, with checkpoint_flag), closes, and
// opens the directory again, which must hold what the first opening held
// and that transaction.
void recover_image(const std::uint8_t* data, std::size_t size);

// The bytes are a CSV file; if the first byte is odd, the line after it
// names the columns' types (separated by ';') instead of inference.
void load_csv_bytes(const std::uint8_t* data, std::size_t size);

// The bytes are the text of WEAVE_CACHE_SIZES if the first byte is odd, else
// a machine's file of cache probe results; the sizes either gives must be
// ones the engine can plan with, and an accepted file must read back the
// same once written again.
void cache_settings(const std::uint8_t* data, std::size_t size);

// Directory images of real data directories, made by engines: with and
// without a checkpoint, over several log segments, and a new one.
std::vector<std::string> seed_images();
// Inputs of load_csv_bytes: quoting, CRLF, a byte-order mark, each type.
std::vector<std::string> csv_seeds();
// Inputs of cache_settings: a file as the probe writes it, and overrides.
std::vector<std::string> cache_settings_seeds();

}  // namespace weave::fuzz
