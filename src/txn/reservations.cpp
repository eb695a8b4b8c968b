#include "weave/txn/reservations.hpp"

#include <utility>

#include "weave/txn/detail/spare_vectors.hpp"

namespace weave::txn {

namespace {

// 0 marks an empty slot: the one token that would store as 0 shares a slot
// name with 1 (a needless wait at worst, never a missed one).
std::uint64_t stored(std::uint64_t token) noexcept { return token == 0 ? 1 : token; }

std::size_t home(std::uint64_t stored, std::size_t mask) noexcept {
  // Fibonacci hashing: tokens made of a table address and a small key
  // differ in their low bits only.
  return static_cast<std::size_t>((stored * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

}  // namespace

reservation::reservation(reservation&& o) noexcept : owner_(o.owner_), tokens_(std::move(o.tokens_)) {
  o.owner_ = nullptr;
  o.tokens_.clear();
}

reservation& reservation::operator=(reservation&& o) noexcept {
  if (this != &o) {
    release();
    owner_ = std::exchange(o.owner_, nullptr);
    tokens_ = std::move(o.tokens_);
    o.tokens_.clear();
  }
  return *this;
}

void reservation::release() noexcept {
  if (owner_ != nullptr) {
    owner_->give_back(tokens_);
    owner_ = nullptr;
  }
  detail::spare_vectors<std::uint64_t>::give(tokens_);
}

reservations::reservations() : slots_(64, 0) {}

std::uint64_t reservations::token(const table& t, std::uint64_t key) noexcept {
  const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&t));
  return (address * 0xff51afd7ed558ccdULL) ^ key;
}

std::size_t reservations::find(std::uint64_t s) const noexcept {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = home(s, mask);
  while (slots_[i] != 0 && slots_[i] != s) i = (i + 1) & mask;
  return i;
}

reservation reservations::wanting(std::span<const std::uint64_t> tokens) {
  reservation r;
  r.tokens_ = detail::spare_vectors<std::uint64_t>::take();
  r.tokens_.clear();
  for (const std::uint64_t t : tokens) r.tokens_.push_back(stored(t));
  return r;
}

bool reservations::take(reservation& r) {
  for (const std::uint64_t s : r.tokens_) {
    if (slots_[find(s)] != 0) return false;
  }
  // At most half full, so that probes stay short.
  while (2 * (held_ + r.tokens_.size()) > slots_.size()) grow();
  std::size_t kept = 0;
  for (const std::uint64_t s : r.tokens_) {
    const std::size_t i = find(s);
    if (slots_[i] == s) continue;  // named twice
    slots_[i] = s;
    ++held_;
    r.tokens_[kept++] = s;
  }
  r.tokens_.resize(kept);
  r.owner_ = this;
  return true;
}

void reservations::give_back(std::span<const std::uint64_t> tokens) noexcept {
  const std::size_t mask = slots_.size() - 1;
  for (const std::uint64_t s : tokens) {
    std::size_t hole = find(s);
    if (slots_[hole] != s) continue;
    slots_[hole] = 0;
    --held_;
    // Backward shift: moves later entries of the probe run into the hole,
    // so that a lookup's run never has a gap before its token.
    for (std::size_t j = (hole + 1) & mask; slots_[j] != 0; j = (j + 1) & mask) {
      const std::size_t want = home(slots_[j], mask);
      // Whether `want` lies cyclically in (hole, j]: then the entry stays.
      const bool stays = hole <= j ? (hole < want && want <= j) : (hole < want || want <= j);
      if (stays) continue;
      slots_[hole] = std::exchange(slots_[j], 0);
      hole = j;
    }
  }
}

void reservations::grow() {
  std::vector<std::uint64_t> old(slots_.size() * 2, 0);
  old.swap(slots_);
  for (const std::uint64_t s : old) {
    if (s != 0) slots_[find(s)] = s;
  }
}

}  // namespace weave::txn
