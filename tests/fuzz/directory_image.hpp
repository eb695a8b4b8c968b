#pragma once
// A data directory as one byte string, so that a fuzzer can mutate all of
// its files, and their names, as one input:
//
//   flags (1 byte), then per file: name length (1), name, size (4, LE), bytes
//
// Flag bit 0 asks unpack() to reseal the log groups it finds in segments and
// checkpoints (recompute both checksums), so that mutations reach the
// decoding and replay behind the checksums instead of stopping at them.
// Bit 1 asks the recovery target to open the directory for writing, and
// bit 2 then to take a checkpoint after its commit.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace weave::fuzz {

inline constexpr std::uint8_t reseal_flag = 1;
inline constexpr std::uint8_t writable_flag = 2;
inline constexpr std::uint8_t checkpoint_flag = 4;

struct image_file {
  std::string name, bytes;
};

// The regular files of `dir` (not its subdirectories), sorted by name.
std::string pack(const std::filesystem::path& dir, std::uint8_t flags);
// An image of these files, and the files of an image: a file whose bytes
// the image cuts short keeps those it has (a torn file); a name or size
// field cut short ends the image.
std::string join(std::uint8_t flags, const std::vector<image_file>& files);
std::vector<image_file> split(std::string_view image);

// Empties `dir` and writes the files of `image` into it. A name that is
// empty, ".", "..", or holds anything but letters, digits, '.', '-' and '_'
// is skipped (a name must not leave the directory), and so is a name
// given twice. Returns the flags.
std::uint8_t unpack(std::string_view image, const std::filesystem::path& dir);

// Recomputes the checksums of every group that `bytes` (a segment or a
// checkpoint) seems to hold: a magic number at a multiple of 8 bytes and a
// length that fits. Leaves everything else alone.
void reseal_groups(std::string& bytes);

// Rewrites the log segments of `dir` as builds of format 3 wrote them, each
// opening with an empty group that names no log; with `checkpoints`, the
// checkpoints lose their opening group too. FORMAT is left alone. Throws
// std::runtime_error for a file that does not open with an opening group.
// Returns how many segments it rewrote.
std::size_t name_no_log(const std::filesystem::path& dir, bool checkpoints);

// A CATALOG's text from its table lines: the lines, then the checksum line
// a catalog of format 3 must end with (data_directory.cpp's layout).
std::string sealed_catalog(std::string_view lines);

}  // namespace weave::fuzz
