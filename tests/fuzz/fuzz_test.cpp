// The fuzz targets (targets.hpp) in every build: real data directories and
// CSV files and cache settings, then seeded random mutations of them, then
// the inputs that once found a fault (regressions/recovery/, regressions/csv/,
// regressions/cache/). A target aborts on
// a fault, which fails the test binary. WEAVE_FUZZ_ROUNDS scales the
// mutations (default 1).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "fuzz/directory_image.hpp"
#include "fuzz/targets.hpp"

namespace weave::fuzz {
namespace {

namespace fs = std::filesystem;

std::size_t rounds() {
  const char* r = std::getenv("WEAVE_FUZZ_ROUNDS");
  if (r == nullptr) return 1;
  char* end = nullptr;
  const unsigned long n = std::strtoul(r, &end, 10);
  if (*r < '1' || *r > '9' || *end != '\0' || n > 100000) {
    ADD_FAILURE() << "WEAVE_FUZZ_ROUNDS=" << r << " is not 1..100000";
    return 1;
  }
  return n;
}

// With WEAVE_FUZZ_LAST=FILE, each input is written there first: after a
// failure it holds the input to keep in regressions/.
void run(void (*target)(const std::uint8_t*, std::size_t), const std::string& input) {
  if (const char* last = std::getenv("WEAVE_FUZZ_LAST")) {
    std::ofstream(last, std::ios::binary | std::ios::trunc).write(input.data(), static_cast<std::streamsize>(input.size()));
  }
  target(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

// One to four edits of `bytes`: bits flipped, bytes set, a range cut out or
// repeated, the end cut off.
void mutate(std::string& bytes, std::mt19937_64& rng) {
  for (int edits = 1 + static_cast<int>(rng() % 4); edits > 0; --edits) {
    if (bytes.empty()) {
      bytes.push_back(static_cast<char>(rng()));
      continue;
    }
    const std::size_t at = rng() % bytes.size();
    const std::size_t span = 1 + rng() % std::min<std::size_t>(64, bytes.size() - at);
    switch (rng() % 6) {
      case 0: bytes[at] = static_cast<char>(bytes[at] ^ (1 << (rng() % 8))); break;
      case 1: bytes[at] = static_cast<char>(rng() % 3 == 0 ? 0 : rng() % 3 == 1 ? 0xff : rng()); break;
      case 2: bytes.erase(at, span); break;
      case 3: bytes.insert(at, bytes.substr(at, span)); break;
      case 4: bytes.resize(at); break;
      default:  // a little-endian field set to a boundary value
        for (std::size_t i = 0; i < std::min<std::size_t>(4, bytes.size() - at); ++i) {
          bytes[at + i] = static_cast<char>(rng() % 2 ? 0xff : 0);
        }
    }
  }
}

TEST(fuzz, recovery_of_damaged_directories) {
  const std::vector<std::string> seeds = seed_images();
  for (const std::string& s : seeds) run(recover_image, s);
  std::mt19937_64 rng(20261130);
  const std::size_t n = 60 * rounds();
  for (const std::string& seed : seeds) {
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<image_file> files = split(seed);
      if (files.empty()) continue;
      std::uint8_t flags = static_cast<std::uint8_t>(seed[0]);
      switch (rng() % 8) {
        case 0: files.erase(files.begin() + static_cast<std::ptrdiff_t>(rng() % files.size())); break;
        case 1: mutate(files[rng() % files.size()].name, rng); break;
        case 2: flags = static_cast<std::uint8_t>(rng() % 8); [[fallthrough]];
        default: mutate(files[rng() % files.size()].bytes, rng);
      }
      run(recover_image, join(flags, files));
    }
  }
}

// The seeds as they are, then `per_round` mutations of them in turn.
void run_mutations(void (*target)(const std::uint8_t*, std::size_t), const std::vector<std::string>& seeds,
                   std::size_t per_round, std::uint64_t seed) {
  for (const std::string& s : seeds) run(target, s);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < per_round * rounds(); ++i) {
    std::string input = seeds[i % seeds.size()];
    mutate(input, rng);
    run(target, input);
  }
}

TEST(fuzz, csv_files) { run_mutations(load_csv_bytes, csv_seeds(), 4000, 42); }

TEST(fuzz, cache_settings) { run_mutations(cache_settings, cache_settings_seeds(), 4000, 48); }

TEST(fuzz, inputs_that_once_failed) {
  const fs::path dir = fs::path(WEAVE_FUZZ_REGRESSIONS);
  std::size_t count = 0;
  using target_fn = void (*)(const std::uint8_t*, std::size_t);
  const std::pair<const char*, target_fn> targets[] = {
      {"recovery", recover_image}, {"csv", load_csv_bytes}, {"cache", cache_settings}};
  for (const auto& [name, target] : targets) {
    if (!fs::is_directory(dir / name)) continue;
    for (const auto& entry : fs::directory_iterator(dir / name)) {
      std::ifstream in(entry.path(), std::ios::binary);
      run(target, std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
      ++count;
    }
  }
  EXPECT_GT(count, 0u) << "no inputs in " << dir;
}

}  // namespace
}  // namespace weave::fuzz
