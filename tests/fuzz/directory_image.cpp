#include "fuzz/directory_image.hpp"

// Inline and SSE2, as src/durability/log_format.cpp uses it.
#define XXH_INLINE_ALL
#if defined(__x86_64__)
#define XXH_VECTOR XXH_SSE2
#endif
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "support/file_bytes.hpp"
#include "weave/durability/checkpoint.hpp"
#include "weave/durability/log_format.hpp"
#include "weave/durability/log_writer.hpp"

namespace weave::fuzz {

namespace fs = std::filesystem;

namespace {

// Little-endian fields, as log_format.hpp lays them out.
std::uint32_t get32(std::string_view b, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v |= std::uint32_t{static_cast<unsigned char>(b[at + i])} << (8 * i);
  return v;
}

void set64(std::string& b, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

void put32(std::string& out, std::uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool safe_name(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_';
  });
}

bool log_file(std::string_view name) {
  return (name.starts_with("wal-") && name.ends_with(".log")) ||
         (name.starts_with("checkpoint-") && name.ends_with(".wck"));
}

}  // namespace

std::string pack(const fs::path& dir, std::uint8_t flags) {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<image_file> files;
  for (const fs::path& f : paths) {
    std::ifstream in(f, std::ios::binary);
    files.push_back({f.filename().string(), std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>())});
  }
  return join(flags, files);
}

std::string join(std::uint8_t flags, const std::vector<image_file>& files) {
  std::string out(1, static_cast<char>(flags));
  for (const image_file& f : files) {
    if (f.name.size() > 255 || f.bytes.size() > 0xffffffffu) throw std::length_error("a file too large for an image");
    out.push_back(static_cast<char>(f.name.size()));
    out += f.name;
    put32(out, static_cast<std::uint32_t>(f.bytes.size()));
    out += f.bytes;
  }
  return out;
}

std::vector<image_file> split(std::string_view image) {
  std::vector<image_file> files;
  std::size_t at = 1;
  while (at < image.size()) {
    const std::size_t name_bytes = static_cast<unsigned char>(image[at++]);
    if (image.size() - at < name_bytes + 4) break;
    image_file f;
    f.name = image.substr(at, name_bytes);
    at += name_bytes;
    const std::uint32_t size = get32(image, at);
    at += 4;
    f.bytes = image.substr(at, std::min<std::size_t>(size, image.size() - at));
    at += f.bytes.size();
    files.push_back(std::move(f));
  }
  return files;
}

std::uint8_t unpack(std::string_view image, const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) fs::remove_all(entry.path());
  if (image.empty()) return 0;
  const auto flags = static_cast<std::uint8_t>(image[0]);
  for (image_file& f : split(image)) {
    if (!safe_name(f.name) || fs::exists(dir / f.name)) continue;
    if ((flags & reseal_flag) && log_file(f.name)) reseal_groups(f.bytes);
    std::ofstream(dir / f.name, std::ios::binary).write(f.bytes.data(), static_cast<std::streamsize>(f.bytes.size()));
  }
  return flags;
}

std::size_t name_no_log(const fs::path& dir, bool checkpoints) {
  std::size_t segments = 0;
  for (const auto& f : fs::directory_iterator(dir)) {
    const std::string name = f.path().filename().string();
    const bool segment = durability::segment_number(name) != 0;
    if (!segment && !(checkpoints && durability::checkpoint_snapshot(name))) continue;
    const std::string bytes = test_support::file_bytes(f.path());
    if (!durability::decode_group(bytes).opening) throw std::runtime_error(name + " has no opening group");
    std::ofstream(f.path(), std::ios::trunc | std::ios::binary)
        << (segment ? durability::group_builder{}.seal(0) : std::string())
        << std::string_view(bytes).substr(durability::opening_group_bytes);
    segments += segment;
  }
  return segments;
}

std::string sealed_catalog(std::string_view lines) {
  char sum[32];
  std::snprintf(sum, sizeof sum, "checksum %016llx\n",
                static_cast<unsigned long long>(XXH3_64bits(lines.data(), lines.size())));
  return std::string(lines) + sum;
}

void reseal_groups(std::string& bytes) {
  using durability::group_header_bytes;
  constexpr std::size_t payload_checksum_at = 40, header_checksum_at = 48;  // log_format.hpp's layout
  std::size_t at = 0;
  while (at < bytes.size() && bytes.size() - at >= group_header_bytes) {
    const std::string_view header(bytes.data() + at, group_header_bytes);
    const std::size_t payload = get32(header, 8);
    const std::size_t total = group_header_bytes + ((payload + 7) & ~std::size_t{7});
    if (get32(header, 0) != durability::group_magic || payload > bytes.size() - at - group_header_bytes) {
      at += 8;
      continue;
    }
    const std::uint64_t seed = XXH3_64bits(bytes.data() + at, payload_checksum_at);
    set64(bytes, at + payload_checksum_at, XXH3_64bits_withSeed(bytes.data() + at + group_header_bytes, payload, seed));
    set64(bytes, at + header_checksum_at, XXH3_64bits(bytes.data() + at, header_checksum_at));
    at += std::min(total, bytes.size() - at);
    at = (at + 7) & ~std::size_t{7};
  }
}

}  // namespace weave::fuzz
