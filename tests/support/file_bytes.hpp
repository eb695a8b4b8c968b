#pragma once
// A whole file's bytes, for tests that damage the files they wrote and
// compare what is on disk afterwards. Empty if the file cannot be read.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace weave::test_support {

inline std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace weave::test_support
