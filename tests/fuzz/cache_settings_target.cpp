// The two texts that set the cache sizes the engine plans with: the
// WEAVE_CACHE_SIZES variable and the file of a machine's probe results.

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include "fuzz/targets.hpp"
#include "support/temp_dir.hpp"
#include "weave/memory/cache_probe.hpp"

namespace weave::fuzz {

namespace {

using namespace weave::machine;

constexpr std::size_t KiB = std::size_t{1} << 10;
constexpr std::size_t TiB = std::size_t{1} << 40;

// A size the engine may plan with: none (0), or 1 KiB to 1 TiB, as
// WEAVE_CACHE_SIZES takes them.
bool plausible(std::size_t bytes) { return bytes == 0 || (bytes >= KiB && bytes <= TiB); }

void check_sizes(const char* where, std::size_t l1d, std::size_t llc) {
  if (!plausible(l1d) || !plausible(llc) || (l1d != 0 && llc != 0 && l1d > llc)) {
    finding(std::string(where) + " gave l1d " + std::to_string(l1d) + " and llc " + std::to_string(llc));
  }
}

void cache_override_text(std::string_view text) {
  cache_override given;
  try {
    given = parse_cache_override(text);
  } catch (const std::invalid_argument& e) {  // documented, with a one-line message
    for (const char c : std::string_view(e.what())) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) finding("an override's message holds a control byte");
    }
    return;
  } catch (const std::exception& e) {
    finding(std::string("parse_cache_override threw ") + typeid(e).name() + ": " + e.what());
  }
  check_sizes("parse_cache_override", given.l1d_bytes, given.llc_bytes);
}

constexpr std::string_view file_key = "probe=2;cpu=fuzz;os_l1d=49152;os_llc=33554432";

const std::filesystem::path& scratch() {
  static const test_support::temp_dir d;
  return d.path;
}

void cache_file_text(std::string_view text) {
  const std::filesystem::path file = scratch() / "cache-sizes";
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(text.data(), static_cast<std::streamsize>(text.size()));
  const std::optional<probe_result> kept = read_cache_file(file, file_key);  // noexcept
  if (!kept) return;
  check_sizes("read_cache_file", kept->found.l1d_bytes, kept->found.llc_bytes);
  for (std::size_t i = 0; i < kept->curve.size(); ++i) {
    const latency_point& p = kept->curve[i];
    if (!(p.ns >= 0 && p.ns < 1e9) || (i > 0 && p.bytes <= kept->curve[i - 1].bytes)) {
      finding("read_cache_file accepted a curve out of order or with a bad time");
    }
  }
  if (!(kept->seconds >= 0 && kept->seconds < 1e9)) finding("read_cache_file accepted a bad run time");

  // What the engine then plans with, whatever the OS says.
  for (const os_cache_sizes os : {os_cache_sizes{}, os_cache_sizes{49152, 33554432}}) {
    const cache_sizes s = decide_caches(os, &kept->found, {}, cache_sizes::probe_state::cached);
    if (s.l1d_bytes < KiB || s.l1d_bytes > TiB || s.llc_bytes < KiB || s.llc_bytes > TiB ||
        s.l1d_bytes > s.llc_bytes) {
      finding("decide_caches chose l1d " + std::to_string(s.l1d_bytes) + " and llc " + std::to_string(s.llc_bytes));
    }
  }

  // Written again, it reads back the same (times to the written digits: half
  // a unit of the last one, and a little for binary fractions).
  const std::filesystem::path again = scratch() / "again";
  if (!write_cache_file(again, file_key, *kept)) finding("write_cache_file failed in a scratch directory");
  const std::optional<probe_result> back = read_cache_file(again, file_key);
  if (!back) finding("a file written from an accepted one is refused");
  bool same = back->found.l1d_bytes == kept->found.l1d_bytes && back->found.llc_bytes == kept->found.llc_bytes &&
              back->found.memory_reached == kept->found.memory_reached &&
              back->curve.size() == kept->curve.size() && std::abs(back->seconds - kept->seconds) <= 6e-5;
  for (std::size_t i = 0; same && i < back->curve.size(); ++i) {
    same = back->curve[i].bytes == kept->curve[i].bytes && std::abs(back->curve[i].ns - kept->curve[i].ns) <= 6e-4;
  }
  if (!same) finding("a file written from an accepted one reads back different");
}

}  // namespace

void cache_settings(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.empty()) return;
  const bool override_text = (in[0] & 1) != 0;
  in.remove_prefix(1);
  if (override_text) {
    cache_override_text(in);
  } else {
    cache_file_text(in);
  }
}

std::vector<std::string> cache_settings_seeds() {
  probe_result sample;
  sample.curve = {{4096, 1.25}, {65536, 4.5}, {1 << 20, 12.75}, {8 << 20, 40.125}, {64 << 20, 98.5}, {128 << 20, 101}};
  sample.found = {49152, 8 << 20, true};
  sample.seconds = 0.2357;
  const std::filesystem::path file = scratch() / "seed";
  std::string written;
  if (write_cache_file(file, file_key, sample)) {
    std::ifstream in(file, std::ios::binary);
    written.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return {
      std::string(1, '\0') + written,
      std::string(1, '\1') + "l1d=48K,llc=32M",
      std::string(1, '\1') + "llc=1GiB",
      std::string(1, '\1') + " L1D = 32ki , LLC=1099511627776 ",
  };
}

}  // namespace weave::fuzz
