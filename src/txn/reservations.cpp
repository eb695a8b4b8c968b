#include "weave/txn/reservations.hpp"

#include <algorithm>
#include <utility>

#include "weave/txn/detail/spare_vectors.hpp"

namespace weave::txn {

reservation::reservation(reservation&& o) noexcept : owner_(o.owner_), slots_(std::move(o.slots_)) {
  o.owner_ = nullptr;
  o.slots_.clear();
}

reservation& reservation::operator=(reservation&& o) noexcept {
  if (this != &o) {
    release();
    owner_ = std::exchange(o.owner_, nullptr);
    slots_ = std::move(o.slots_);
    o.slots_.clear();
  }
  return *this;
}

void reservation::release() noexcept {
  if (owner_ != nullptr) {
    owner_->give_back(slots_);
    owner_ = nullptr;
  }
  detail::spare_vectors<std::uint64_t>::give(slots_);
}

reservations::reservations(std::chrono::microseconds patience)
    : state_(std::make_unique<state>()), patience_(patience) {}

std::uint64_t reservations::token(const table& t, std::uint64_t key) noexcept {
  const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&t));
  return (address * 0xff51afd7ed558ccdULL) ^ key;
}

std::size_t reservations::slot_of(std::uint64_t token) noexcept {
  // Fibonacci hashing: names made of a table and a small key differ in
  // their low bits only.
  static_assert(slots == std::size_t{1} << 16);
  return static_cast<std::size_t>((token * 0x9e3779b97f4a7c15ULL) >> 48);
}

reservation reservations::wanting(std::span<const std::uint64_t> tokens) {
  reservation r;
  r.slots_ = detail::spare_vectors<std::uint64_t>::take();
  r.slots_.clear();
  for (const std::uint64_t t : tokens) r.slots_.push_back(slot_of(t));
  // Each slot once: a reservation must not wait for itself.
  std::sort(r.slots_.begin(), r.slots_.end());
  r.slots_.erase(std::unique(r.slots_.begin(), r.slots_.end()), r.slots_.end());
  return r;
}

bool reservations::take(reservation& r) noexcept {
  std::atomic<std::uint8_t>* taken = state_->taken;
  // A look first: a held slot fails the try without a write to its line.
  for (const std::uint64_t s : r.slots_) {
    if (taken[s].load(std::memory_order_relaxed) != 0) return false;
  }
  for (std::size_t i = 0; i < r.slots_.size(); ++i) {
    // Acquire: a holder released after its commit was complete, so the
    // snapshot taken after this holds it.
    if (taken[r.slots_[i]].exchange(1, std::memory_order_acquire) != 0) {
      give_back(std::span<const std::uint64_t>(r.slots_.data(), i));  // all or none
      return false;
    }
  }
  r.owner_ = this;
  return true;
}

void reservations::give_back(std::span<const std::uint64_t> held) noexcept {
  for (const std::uint64_t s : held) state_->taken[s].store(0, std::memory_order_release);
}

std::size_t reservations::held() const noexcept {
  std::size_t n = 0;
  for (const auto& s : state_->taken) n += s.load(std::memory_order_relaxed) != 0;
  return n;
}

}  // namespace weave::txn
