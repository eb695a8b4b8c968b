#pragma once
// How long committed transactions stay exposed to a crash: from the moment a
// commit completes to the moment the log group that holds it is durable.
// A flush round carries the commits completed after the round before it
// read the commit clock and before it read the clock itself, so the worst
// exposure of a round is from the previous round's start to its own sync.
// Under `async` that is what a crash may lose; under `sync`, the longest a
// commit waits for its acknowledgement.
//
// Rounds are counted in a histogram of microseconds with eight buckets per
// power of two (a bucket's bound is at most 12.5% above any value in it).
// The counts only grow: a reader diffs two snapshots to see an interval.

#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace weave::durability {

class exposure_histogram {
 public:
  static constexpr std::size_t buckets = 256;
  using counts = std::array<std::uint64_t, buckets>;

  // One round's worst exposure. One writer (the flusher); readers anywhere.
  void record(std::chrono::nanoseconds exposure) noexcept {
    const auto us =
        exposure.count() <= 0 ? std::uint64_t{0} : static_cast<std::uint64_t>(exposure.count()) / 1000;
    std::atomic<std::uint64_t>& c = counts_[bucket_of(us)];
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  counts snapshot() const noexcept {
    counts out{};
    for (std::size_t b = 0; b < buckets; ++b) out[b] = counts_[b].load(std::memory_order_relaxed);
    return out;
  }

  // Values below 8 have a bucket each; above, a power of two splits in eight.
  static constexpr std::size_t bucket_of(std::uint64_t us) noexcept {
    if (us < 8) return static_cast<std::size_t>(us);
    const unsigned e = 63 - static_cast<unsigned>(std::countl_zero(us));  // 3 or more
    const std::size_t b = 8 + (e - 3) * 8 + static_cast<std::size_t>((us >> (e - 3)) & 7);
    return b < buckets ? b : buckets - 1;
  }
  // The largest value of a bucket (the last bucket also holds everything above).
  static constexpr std::uint64_t upper_us(std::size_t bucket) noexcept {
    if (bucket < 8) return bucket;
    const std::size_t e = (bucket - 8) / 8 + 3;
    const std::uint64_t lower = (8 + (bucket - 8) % 8) << (e - 3);
    return lower + (std::uint64_t{1} << (e - 3)) - 1;
  }
  // The bound of the bucket that holds the q-th fraction of the rounds in
  // `c` (q in [0, 1]; 1 is the largest), or 0 when `c` holds none.
  static std::uint64_t percentile_us(const counts& c, double q) noexcept {
    std::uint64_t total = 0;
    for (std::uint64_t n : c) total += n;
    if (total == 0) return 0;
    const double want = q * static_cast<double>(total);
    std::uint64_t need = static_cast<std::uint64_t>(want);
    if (static_cast<double>(need) < want || need == 0) ++need;  // the rank, counted from 1
    std::uint64_t seen = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
      seen += c[b];
      if (seen >= need) return upper_us(b);
    }
    return upper_us(buckets - 1);
  }

 private:
  std::array<std::atomic<std::uint64_t>, buckets> counts_{};
};

}  // namespace weave::durability
