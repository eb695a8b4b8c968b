#pragma once
// Size arithmetic for estimates of memory taken from user input: a product
// or sum that overflows becomes SIZE_MAX, which no memory check accepts,
// instead of wrapping round to a small figure that every check accepts.

#include <cstddef>
#include <limits>

namespace weave {

constexpr std::size_t saturating_mul(std::size_t a, std::size_t b) noexcept {
  std::size_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<std::size_t>::max() : product;
}

constexpr std::size_t saturating_add(std::size_t a, std::size_t b) noexcept {
  std::size_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::size_t>::max() : sum;
}

}  // namespace weave
