#include "weave/durability/redo_log.hpp"

#include <exception>
#include <utility>
#include <vector>

namespace weave::durability {

redo_log::redo_log(const std::filesystem::path& directory, log_options options)
    : options_(options), writer_(directory, options.segment_bytes), thread_([this] { flusher(); }) {}

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

std::uint64_t redo_log::append(buffer& b, std::uint64_t commit, std::span<const logged_write> writes) {
  std::lock_guard<std::mutex> g(b.mutex_);
  // Read under the buffer's lock: the flusher opens the next round before it
  // takes this lock, so a transaction it does not gather has a later ticket.
  const std::uint64_t ticket = open_round_.load(std::memory_order_seq_cst);
  b.builder_.add(commit, writes);
  if (b.builder_.payload_bytes() >= options_.group_bytes && !hurry_.load(std::memory_order_relaxed) &&
      !hurry_.exchange(true, std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> w(wake_mutex_);  // else the flusher may sleep through it
    wake_.notify_one();
  }
  return ticket;
}

bool redo_log::wait_durable(std::uint64_t ticket) {
  if (durable(ticket)) return true;
  std::unique_lock<std::mutex> l(wake_mutex_);
  flushed_.wait(l, [&] { return durable(ticket) || failed(); });
  return durable(ticket);
}

std::string redo_log::failure() const {
  std::lock_guard<std::mutex> g(failure_mutex_);
  return failure_;
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
  const std::uint64_t round = open_round_.fetch_add(1, std::memory_order_seq_cst);
  bool ok = true;
  std::string what;
  try {
    // One group, or several when the buffers hold more than a group may:
    // each is synced before the next is written, so only the last can tear.
    std::vector<group_builder> groups(1);
    {
      std::lock_guard<std::mutex> g(buffers_mutex_);
      for (buffer& b : buffers_) {
        group_builder taken;
        {
          std::lock_guard<std::mutex> bg(b.mutex_);
          std::swap(taken, b.builder_);
        }
        if (!groups.back().empty() && groups.back().payload_bytes() + taken.payload_bytes() > max_group_bytes) {
          groups.emplace_back();
        }
        groups.back().take(taken);
      }
    }
    if (failed()) return;  // nothing more becomes durable
    for (group_builder& group : groups) {
      if (group.empty()) continue;
      const std::string bytes = group.seal();
      writer_.append(bytes);
      writer_.sync();
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
  } else {
    std::lock_guard<std::mutex> g(wake_mutex_);
    durable_round_.store(round, std::memory_order_release);
  }
  flushed_.notify_all();
}

}  // namespace weave::durability
