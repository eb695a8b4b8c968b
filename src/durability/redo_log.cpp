#include "weave/durability/redo_log.hpp"

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace weave::durability {

void validate(const log_options& options) {
  if (options.group_window.count() < 0) {
    throw std::invalid_argument("a log's group window is not negative");
  }
  if (options.segment_bytes < log_options::min_segment_bytes) {
    throw std::invalid_argument("a log segment of " + std::to_string(options.segment_bytes) +
                                " bytes is smaller than the least, " +
                                std::to_string(log_options::min_segment_bytes));
  }
}

namespace {
// The options, checked before the writer opens a segment.
const log_options& validated(const log_options& options) {
  validate(options);
  return options;
}
}  // namespace

redo_log::redo_log(const std::filesystem::path& directory, log_options options,
                   std::function<std::uint64_t()> completed, const log_scan* read)
    : options_(validated(options)), completed_(std::move(completed)),
      writer_(directory, options.segment_bytes, read) {
  // The restart group: logged transactions before it that no `through`
  // reached were never acknowledged and are discarded for good, before this
  // run's commits pass their timestamps.
  written_through_ = completed_();
  writer_.append(group_builder{}.seal(written_through_, true));
  writer_.sync();
  durable_through_.store(written_through_, std::memory_order_release);
  settled_.store(written_through_, std::memory_order_release);
  round_began_ = std::chrono::steady_clock::now();
  thread_ = std::thread([this] { flusher(); });
}

redo_log::~redo_log() {
  {
    std::lock_guard<std::mutex> g(wake_mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

redo_log::buffer& redo_log::join() {
  std::lock_guard<std::mutex> g(buffers_mutex_);
  return buffers_.emplace_back();
}

void redo_log::append(buffer& b, std::uint64_t commit, std::span<const logged_write> writes) {
  std::lock_guard<std::mutex> g(b.mutex_);
  b.builder_.add(commit, writes);
  if (b.builder_.payload_bytes() >= options_.group_bytes && !hurry_.load(std::memory_order_relaxed)) hurry();
}

void redo_log::hurry() {
  if (hurry_.exchange(true, std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> w(wake_mutex_);  // else the flusher may sleep through it
  wake_.notify_one();
}

bool redo_log::wait_durable(std::uint64_t commit) {
  if (durable(commit)) return true;
  std::unique_lock<std::mutex> l(wake_mutex_);
  flushed_.wait(l, [&] { return durable(commit) || failed(); });
  return durable(commit);
}

std::string redo_log::failure() const {
  std::lock_guard<std::mutex> g(failure_mutex_);
  return failure_;
}

std::size_t redo_log::remove_segments_through(std::uint64_t snapshot) {
  std::lock_guard<std::mutex> g(writer_mutex_);
  return writer_.remove_segments_through(snapshot);
}

void redo_log::flusher() {
  for (;;) {
    bool stop = false;
    {
      std::unique_lock<std::mutex> l(wake_mutex_);
      wake_.wait_for(l, options_.group_window,
                     [&] { return stopping_ || hurry_.load(std::memory_order_relaxed); });
      stop = stopping_;
    }
    hurry_.store(false, std::memory_order_relaxed);
    flush_round();
    if (stop) return;
  }
}

void redo_log::flush_round() {
  // Read before gathering: every commit at or before it has been appended
  // to a buffer by now, so it goes out in this round or went earlier.
  const auto began = std::chrono::steady_clock::now();
  const auto began_before = std::exchange(round_began_, began);
  const std::uint64_t through = completed_();
  bool ok = true;
  std::string what;
  try {
    // One group, or several when the buffers hold more than a group may:
    // each is synced before the next is written, so only the last can tear.
    std::vector<group_builder>& groups = round_;
    if (groups.empty()) groups.emplace_back();
    std::size_t used = 1;
    {
      std::lock_guard<std::mutex> g(buffers_mutex_);
      for (buffer& b : buffers_) {
        {
          std::lock_guard<std::mutex> bg(b.mutex_);
          std::swap(b.spare_, b.builder_);
        }
        if (!groups[used - 1].empty() && groups[used - 1].payload_bytes() + b.spare_.payload_bytes() > max_group_bytes) {
          if (used == groups.size()) groups.emplace_back();
          ++used;
        }
        groups[used - 1].take(b.spare_);
      }
    }
    if (failed()) return;  // nothing more becomes durable
    std::lock_guard<std::mutex> w(writer_mutex_);
    // With nothing to write, `through` still advances, unless a logged
    // transaction past the last written `through` waits for a group to
    // count it: then an empty group says so.
    const bool uncounted = written_last_ > written_through_ && through > written_through_;
    for (std::size_t i = 0; i < used; ++i) {
      group_builder& group = groups[i];
      const bool last = i + 1 == used;
      if (group.empty() && !(last && uncounted)) continue;
      const std::uint64_t latest = group.empty() ? 0 : group.last_commit();
      // Only the last group carries the round's `through`: commits it
      // covers may be in any of them.
      const std::uint64_t group_through = last ? through : written_through_;
      group.seal(group_through, sealed_);
      const std::string& bytes = sealed_;
      const auto start = std::chrono::steady_clock::now();
      writer_.append(bytes, latest);
      writer_.sync();
      write_ns_.fetch_add(static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - start).count()),
                          std::memory_order_relaxed);
      written_through_ = group_through;
      written_last_ = std::max(written_last_, latest);
      bytes_.fetch_add(bytes.size(), std::memory_order_relaxed);
      groups_.fetch_add(1, std::memory_order_relaxed);
    }
  } catch (const std::exception& e) {  // a failed write or sync, or no memory: the log is done for
    ok = false;
    what = e.what();
  } catch (...) {
    ok = false;
    what = "unknown error";
  }
  if (!ok) {
    {
      std::lock_guard<std::mutex> g(failure_mutex_);
      failure_ = what;
    }
    std::lock_guard<std::mutex> g(wake_mutex_);
    failed_.store(true, std::memory_order_release);
    settled_.store(~std::uint64_t{0}, std::memory_order_release);
  } else {
    std::lock_guard<std::mutex> g(wake_mutex_);
    if (through > durable_through_.load(std::memory_order_relaxed)) {
      // The oldest commit this round makes durable completed after the last
      // round read `through`. Counted first: whoever sees the commit durable
      // sees the round counted.
      exposure_.record(std::chrono::steady_clock::now() - began_before);
      durable_through_.store(through, std::memory_order_release);
      settled_.store(through, std::memory_order_release);
    }
  }
  flushed_.notify_all();
}

}  // namespace weave::durability
