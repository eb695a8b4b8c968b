#pragma once
// The dictionary of a VARCHAR column's Main fragment: sorted distinct
// strings, front coded in blocks of 16.
//
//   block:   [len][bytes of the first string]
//            then per string: [shared][rest len][rest bytes]
//
// `shared` is how many leading bytes a string has in common with the one
// before it. A block starts with a whole string, so a code is decoded by
// walking at most 15 strings of its block, and locate is a binary search
// over the blocks' first strings followed by one block walk. `offsets_` holds
// where each block starts (one more entry marks the end).
//
// locate suspends on each block offset and first string it probes below the
// cached levels, then on the block; extract on the offset and the block.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "weave/column/bit_packed.hpp"
#include "weave/exec/load.hpp"
#include "weave/exec/task.hpp"
#include "weave/memory/huge_buffer.hpp"
#include "weave/memory/machine.hpp"

namespace weave::column {

class front_coded_dictionary {
 public:
  using value_type = std::string;
  static constexpr std::size_t block_size = 16;
  static constexpr std::size_t max_length = 255;

  front_coded_dictionary() = default;
  // Takes distinct strings in ascending order, each at most 255 bytes.
  template <class Strings>
  explicit front_coded_dictionary(const Strings& sorted) {
    const std::size_t n = std::size(sorted);
    if (n > (std::size_t{1} << 32)) throw std::length_error("dictionary too large");
    std::vector<char> out;
    std::vector<std::uint64_t> offsets;
    std::string previous;  // a copy: `sorted` may make its strings on the fly
    std::size_t i = 0;
    for (const auto& s : sorted) {
      const std::string_view v(s);
      if (v.size() > max_length) throw std::invalid_argument("dictionary strings are at most 255 bytes");
      if (i > 0 && !(std::string_view(previous) < v)) throw std::invalid_argument("dictionary values must be sorted and distinct");
      if (i % block_size == 0) {
        offsets.push_back(out.size());
        out.push_back(static_cast<char>(v.size()));
        out.insert(out.end(), v.begin(), v.end());
      } else {
        const std::size_t shared = static_cast<std::size_t>(
            std::mismatch(previous.begin(), previous.end(), v.begin(), v.end()).first - previous.begin());
        out.push_back(static_cast<char>(shared));
        out.push_back(static_cast<char>(v.size() - shared));
        out.insert(out.end(), v.begin() + static_cast<std::ptrdiff_t>(shared), v.end());
      }
      max_stored_ = std::max(max_stored_, v.size());
      previous.assign(v);
      ++i;
    }
    offsets.push_back(out.size());
    size_ = n;
    bytes_ = huge_buffer<char>(out.size() + 1);
    std::copy(out.begin(), out.end(), bytes_.data());
    offsets_ = huge_buffer<std::uint64_t>(offsets.size());
    std::copy(offsets.begin(), offsets.end(), offsets_.data());
  }

  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return bytes_.bytes() + offsets_.bytes(); }
  std::size_t block_count() const noexcept { return offsets_.size() == 0 ? 0 : offsets_.size() - 1; }
  const std::uint64_t& block_offset(std::size_t block) const noexcept { return offsets_[block]; }
  const char* data() const noexcept { return bytes_.data(); }
  // The longest string stored: bounds what a probe of a first string touches.
  std::size_t longest() const noexcept { return max_stored_; }

  // Probes at depth < hot_levels() of the block search stay cached.
  unsigned hot_levels() const noexcept { return hot_levels_; }

  // The first string of the block starting at `at`.
  static std::string_view first_of(const char* at) noexcept {
    return {at + 1, static_cast<unsigned char>(at[0])};
  }

  // Walks a block from its start: calls visit(j, string) for its strings
  // in order until visit returns false.
  template <class Visit>
  static void walk(const char* at, std::size_t count, Visit&& visit) {
    char s[max_length];  // the current string, rebuilt from its predecessor
    std::size_t length = static_cast<unsigned char>(at[0]);
    std::copy_n(at + 1, length, s);
    at += 1 + length;
    if (!visit(std::size_t{0}, std::string_view(s, length))) return;
    for (std::size_t j = 1; j < count; ++j) {
      const auto shared = static_cast<unsigned char>(at[0]);
      const auto rest = static_cast<unsigned char>(at[1]);
      std::copy_n(at + 2, rest, s + shared);
      length = shared + rest;
      at += 2 + rest;
      if (!visit(j, std::string_view(s, length))) return;
    }
  }

  std::size_t strings_in(std::size_t block) const noexcept {
    return std::min(block_size, size_ - block * block_size);
  }

  // The string of `code`, whose block starts at byte `offset`: a walk of
  // the block up to it, once its lines are cached (or not: the plain decode
  // below passes the offset it reads).
  std::string string_at(std::uint64_t offset, code_t code) const {
    std::string out;
    const std::size_t target = code % block_size;
    walk(bytes_.data() + offset, target + 1, [&](std::size_t j, std::string_view s) {
      if (j == target) out = s;
      return true;
    });
    return out;
  }

  // Plain decode, for merges and tests.
  std::string at(code_t code) const { return string_at(offsets_[code / block_size], code); }

 private:
  huge_buffer<char> bytes_;
  huge_buffer<std::uint64_t> offsets_;
  std::size_t size_ = 0;
  std::size_t max_stored_ = 0;
  unsigned hot_levels_ = machine::hot_levels(2, machine::cache_line);
};

template <execution_policy Policy>
task<std::optional<code_t>> locate(const front_coded_dictionary& dict, std::string_view key) {
  std::size_t n = dict.block_count();
  if (n == 0) co_return std::nullopt;
  // The last block whose first string is <= key (block 0 if none is).
  std::size_t lo = 0;
  for (unsigned depth = 0; n > 1; ++depth) {
    const std::size_t half = n / 2;
    const bool cold = depth >= dict.hot_levels();
    const std::uint64_t offset = co_await load<Policy>(dict.block_offset(lo + half), cold);
    const char* at = dict.data() + offset;
    co_await prefetch<Policy>(at, 1 + dict.longest(), cold);
    if (front_coded_dictionary::first_of(at) <= key) lo += half;
    n -= half;
  }
  const std::uint64_t offset = co_await load<Policy>(dict.block_offset(lo));
  const std::uint64_t end = dict.block_offset(lo + 1);
  co_await prefetch<Policy>(dict.data() + offset, end - offset);
  std::optional<code_t> code;
  front_coded_dictionary::walk(dict.data() + offset, dict.strings_in(lo), [&](std::size_t j, std::string_view s) {
    if (s == key) code = static_cast<code_t>(lo * front_coded_dictionary::block_size + j);
    return s < key;
  });
  co_return code;
}

// The string of a code: its block's offset, then the block. A loop that
// reads many columns in one frame (column/query.hpp) awaits the same two
// loads inline rather than run this task.
template <execution_policy Policy>
task<std::string> extract(const front_coded_dictionary& dict, code_t code) {
  const std::size_t block = code / front_coded_dictionary::block_size;
  const std::uint64_t offset = co_await load<Policy>(dict.block_offset(block));
  co_await prefetch<Policy>(dict.data() + offset, dict.block_offset(block + 1) - offset);
  co_return dict.string_at(offset, code);
}

}  // namespace weave::column
