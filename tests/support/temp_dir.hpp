#pragma once
// A fresh directory under the system's temporary directory, removed with
// everything in it when the test is done.

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace weave::test_support {

struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "weave-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

}  // namespace weave::test_support
