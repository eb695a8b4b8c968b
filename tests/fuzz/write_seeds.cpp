// Writes a target's seeds into a directory, one file each, as a first corpus
// for libFuzzer: fuzz_write_seeds recover_image|load_csv_bytes|cache_settings DIR.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "fuzz/targets.hpp"

int main(int argc, char** argv) {
  const std::string_view target = argc == 3 ? argv[1] : "";
  if (target != "recover_image" && target != "load_csv_bytes" && target != "cache_settings") {
    std::fprintf(stderr, "usage: fuzz_write_seeds recover_image|load_csv_bytes|cache_settings DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[2];
  std::filesystem::create_directories(dir);
  const auto seeds = target == "recover_image"    ? weave::fuzz::seed_images()
                     : target == "load_csv_bytes" ? weave::fuzz::csv_seeds()
                                                  : weave::fuzz::cache_settings_seeds();
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    std::ofstream(dir / ("seed-" + std::to_string(i)), std::ios::binary)
        .write(seeds[i].data(), static_cast<std::streamsize>(seeds[i].size()));
  }
  std::printf("%zu seeds in %s\n", seeds.size(), argv[2]);
  return 0;
}
