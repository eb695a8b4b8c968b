#include "weave/durability/log_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>

#include "checksum.hpp"
#include "weave/assert.hpp"

namespace weave::durability {

namespace {

// Little-endian fields, whatever the machine (x86 is one already).
template <class T>
void put(std::string& out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff));
}

template <class T>
T get(std::string_view in, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= std::uint64_t{static_cast<unsigned char>(in[at + i])} << (8 * i);
  return static_cast<T>(v);
}

constexpr std::size_t first_commit_at = 16, last_commit_at = 24, through_at = 32;
constexpr std::size_t payload_checksum_at = 40;
constexpr std::size_t header_checksum_at = 48;  // the header's last field
constexpr std::uint16_t restart_flag = 1, opening_flag = 2;
constexpr std::size_t opening_payload_bytes = 16;

// The payload's checksum is seeded with the header's fields before it.
std::uint64_t payload_checksum(std::string_view header, std::string_view payload) {
  const std::uint64_t seed = XXH3_64bits(header.data(), payload_checksum_at);
  return XXH3_64bits_withSeed(payload.data(), payload.size(), seed);
}
// The header's own: a candidate group is judged in O(1) before its payload
// is hashed (the reader looks for groups after a damaged one).
std::uint64_t header_checksum(std::string_view header) { return XXH3_64bits(header.data(), header_checksum_at); }

constexpr std::size_t padded(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

}  // namespace

namespace {

// Copies a key or value of up to 16 bytes with two overlapping fixed-size
// moves instead of a call to memcpy: logged keys and values are mostly that
// short, and a commit copies two per write.
inline void copy_bytes(char* out, const char* in, std::size_t n) noexcept {
  if (n >= 8 && n <= 16) {
    std::memcpy(out, in, 8);
    std::memcpy(out + n - 8, in + n - 8, 8);
  } else if (n >= 4 && n < 8) {
    std::memcpy(out, in, 4);
    std::memcpy(out + n - 4, in + n - 4, 4);
  } else if (n > 16) {
    std::memcpy(out, in, n);
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = in[i];
  }
}

}  // namespace

namespace detail {

void byte_run::grow(std::size_t n) {
  if (n > std::numeric_limits<std::size_t>::max() / 2 - size_) {
    throw std::length_error("a log buffer would pass half the address space");
  }
  const std::size_t capacity = std::max({capacity_ * 2, size_ + n, std::size_t{4096}});
  std::unique_ptr<char[]> bigger = std::make_unique_for_overwrite<char[]>(capacity);
  if (size_ != 0) std::memcpy(bigger.get(), data_.get(), size_);
  data_ = std::move(bigger);
  capacity_ = capacity;
}

void byte_run::append(std::string_view bytes) {
  if (bytes.empty()) return;
  std::memcpy(extend(bytes.size()), bytes.data(), bytes.size());
}

}  // namespace detail

void group_builder::add(std::uint64_t commit, std::span<const logged_write> writes) {
  WEAVE_ASSERT(commit < timestamp_limit);  // recovery leaves the clock 2^61 commits short of it
  std::size_t bytes = 12;
  for (const logged_write& w : writes) {
    if (w.key.size() > 0xffff) throw std::length_error("a logged key is longer than 65535 bytes");
    bytes += 11 + w.key.size() + w.value.size();
  }
  if (bytes > max_transaction_bytes) throw std::length_error("a transaction's log record would pass 1 GiB");
  if (transactions_ == 0xffffffffu) throw std::length_error("a log group holds at most 2^32-1 transactions");
  // Sized once and filled in place: this runs in every commit.
  char* out = payload_.extend(bytes);  // all or, if it throws, nothing
  const auto field = [&out](auto v) {
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(out, &v, sizeof v);  // one store
      out += sizeof v;
    } else {
      for (std::size_t i = 0; i < sizeof v; ++i) *out++ = static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff);
    }
  };
  field(commit);
  field(static_cast<std::uint32_t>(writes.size()));
  for (const logged_write& w : writes) {
    field(w.table);
    field(static_cast<std::uint8_t>(w.op));
    field(static_cast<std::uint16_t>(w.key.size()));
    field(static_cast<std::uint32_t>(w.value.size()));
    copy_bytes(out, w.key.data(), w.key.size());
    out += w.key.size();
    copy_bytes(out, w.value.data(), w.value.size());
    out += w.value.size();
  }
  first_ = transactions_ == 0 ? commit : std::min(first_, commit);
  last_ = std::max(last_, commit);
  ++transactions_;
}

void group_builder::take(group_builder& other) {
  if (other.transactions_ == 0 || &other == this) return;
  payload_.append(other.payload_.view());
  first_ = transactions_ == 0 ? other.first_ : std::min(first_, other.first_);
  last_ = std::max(last_, other.last_);
  transactions_ += other.transactions_;
  other.payload_.clear();
  other.transactions_ = 0;
  other.first_ = other.last_ = 0;
}

std::string group_builder::seal(std::uint64_t through, bool restart) {
  std::string out;
  seal(through, out, restart);
  return out;
}

namespace {

// A whole group into `out` (replaced): header, payload, padding.
void write_group(std::string& out, std::uint16_t flags, std::uint32_t transactions, std::uint64_t first,
                 std::uint64_t last, std::uint64_t through, std::string_view payload) {
  out.clear();
  out.reserve(group_header_bytes + padded(payload.size()));
  put<std::uint32_t>(out, group_magic);
  put<std::uint16_t>(out, format_version);
  put<std::uint16_t>(out, flags);
  put<std::uint32_t>(out, static_cast<std::uint32_t>(payload.size()));
  put<std::uint32_t>(out, transactions);
  put<std::uint64_t>(out, first);
  put<std::uint64_t>(out, last);
  put<std::uint64_t>(out, through);
  put<std::uint64_t>(out, payload_checksum(out, payload));
  put<std::uint64_t>(out, header_checksum(out));
  out.append(payload);
  out.resize(group_header_bytes + padded(payload.size()), '\0');
}

}  // namespace

void group_builder::seal(std::uint64_t through, std::string& out, bool restart) {
  if (payload_.size() > max_group_bytes) throw std::length_error("a log group would pass 1 GiB");
  write_group(out, restart ? restart_flag : 0, transactions_, first_, last_, through, payload_.view());
  payload_.clear();
  transactions_ = 0;
  first_ = last_ = 0;
}

std::string seal_opening(const segment_identity& id) {
  if (id.log == 0) throw std::invalid_argument("a log's identity is never 0");
  std::string payload;
  put<std::uint64_t>(payload, id.log);
  put<std::uint64_t>(payload, id.segment);
  std::string out;
  write_group(out, opening_flag, 0, 0, 0, 0, payload);  // no transactions, commits or `through`
  return out;
}

std::uint64_t new_log_identity() {
  std::random_device source;  // getrandom(2) on Linux
  std::uint64_t id = 0;
  while (id == 0) id = (std::uint64_t{source()} << 32) ^ source();
  return id;
}

group_view decode_group(std::string_view bytes) {
  group_view g{};
  g.state = group_state::incomplete;
  if (bytes.size() < group_header_bytes) {
    // A header cut short is a torn write only if what is there could begin one.
    const std::size_t n = std::min<std::size_t>(bytes.size(), 4);
    std::string magic;
    put<std::uint32_t>(magic, group_magic);
    if (std::memcmp(bytes.data(), magic.data(), n) != 0) g.state = group_state::damaged;
    return g;
  }
  const std::string_view header = bytes.substr(0, group_header_bytes);
  if (get<std::uint32_t>(header, 0) != group_magic || header_checksum(header) != get<std::uint64_t>(header, header_checksum_at)) {
    g.state = group_state::damaged;
    return g;
  }
  // A sound header of another format is not damage: it must never be cut off as a torn tail.
  if (get<std::uint16_t>(header, 4) != format_version) {
    throw log_corruption(fmt::format("a log group of format version {}; this build reads version {}",
                                     get<std::uint16_t>(header, 4), format_version));
  }
  for (const std::size_t at : {first_commit_at, last_commit_at, through_at}) {
    if (get<std::uint64_t>(header, at) >= timestamp_limit) {
      throw log_corruption(fmt::format("a log group's timestamp {} is at or past 2^62, which no clock reaches",
                                       get<std::uint64_t>(header, at)));
    }
  }
  const std::size_t payload_bytes = get<std::uint32_t>(header, 8);
  const std::uint32_t transactions = get<std::uint32_t>(header, 12);
  const std::uint16_t flags = get<std::uint16_t>(header, 6);
  const bool opening = (flags & opening_flag) != 0;
  // An opening group is nothing else: no restart, no transactions, no
  // timestamps, and a payload of exactly its identity.
  if (payload_bytes > max_group_bytes || transactions > payload_bytes / 12 ||
      (flags & ~(restart_flag | opening_flag)) != 0 ||
      (opening &&
       (flags != opening_flag || transactions != 0 || payload_bytes != opening_payload_bytes ||
        get<std::uint64_t>(header, first_commit_at) != 0 || get<std::uint64_t>(header, last_commit_at) != 0 ||
        get<std::uint64_t>(header, through_at) != 0))) {
    g.state = group_state::damaged;
    return g;
  }
  const std::size_t total = group_header_bytes + padded(payload_bytes);
  if (bytes.size() < total) return g;  // incomplete
  const std::string_view payload = bytes.substr(group_header_bytes, payload_bytes);
  for (std::size_t i = group_header_bytes + payload_bytes; i < total; ++i) {
    if (bytes[i] != '\0') {  // the padding is not checksummed, but it is known
      g.state = group_state::damaged;
      return g;
    }
  }
  if (payload_checksum(header, payload) != get<std::uint64_t>(header, payload_checksum_at) ||
      (opening && get<std::uint64_t>(payload, 0) == 0)) {  // no writer names a log 0
    g.state = group_state::damaged;
    return g;
  }
  g.state = group_state::complete;
  g.bytes = total;
  g.transactions = transactions;
  g.first_commit = get<std::uint64_t>(header, first_commit_at);
  g.last_commit = get<std::uint64_t>(header, last_commit_at);
  g.through = get<std::uint64_t>(header, through_at);
  g.restart = (flags & restart_flag) != 0;
  g.payload = payload;
  if (opening) {
    g.opening = true;
    g.identity = {get<std::uint64_t>(payload, 0), get<std::uint64_t>(payload, 8)};
  }
  return g;
}

void decode_transactions(const group_view& group, std::vector<logged_transaction>& out) {
  if (group.opening) {  // its payload is the segment's identity
    out.clear();
    return;
  }
  const std::string_view p = group.payload;
  std::size_t at = 0;
  const auto need = [&](std::size_t n) {
    if (p.size() - at < n) throw log_corruption("a log group's payload ends inside a transaction");
  };
  if (out.size() > group.transactions) out.resize(group.transactions);
  for (std::uint32_t t = 0; t < group.transactions; ++t) {
    need(12);
    if (t == out.size()) out.emplace_back();
    logged_transaction& txn = out[t];
    txn.commit = get<std::uint64_t>(p, at);
    if (txn.commit < group.first_commit || txn.commit > group.last_commit) {
      throw log_corruption(fmt::format("a logged commit {} outside its group's {}..{}", txn.commit,
                                       group.first_commit, group.last_commit));
    }
    txn.writes.clear();
    const std::uint32_t writes = get<std::uint32_t>(p, at + 8);
    at += 12;
    // Each write takes at least 11 bytes: a count the payload cannot hold is
    // damage, and must not size the vector.
    if (writes > (p.size() - at) / 11) throw log_corruption("a log group's payload ends inside a transaction");
    txn.writes.reserve(writes);
    for (std::uint32_t i = 0; i < writes; ++i) {
      need(11);
      logged_write w{get<std::uint32_t>(p, at), static_cast<write_op>(get<std::uint8_t>(p, at + 4)), {}, {}};
      if (w.op != write_op::put && w.op != write_op::remove) throw log_corruption("a logged write of unknown kind");
      const std::size_t key_bytes = get<std::uint16_t>(p, at + 5);
      const std::size_t value_bytes = get<std::uint32_t>(p, at + 7);
      at += 11;
      need(key_bytes);
      w.key = p.substr(at, key_bytes);
      at += key_bytes;
      need(value_bytes);
      w.value = p.substr(at, value_bytes);
      at += value_bytes;
      txn.writes.push_back(w);
    }
  }
  if (at != p.size()) throw log_corruption("a log group's payload has bytes after its last transaction");
}

std::vector<logged_transaction> decode_transactions(const group_view& group) {
  std::vector<logged_transaction> out;
  decode_transactions(group, out);
  return out;
}

}  // namespace weave::durability
