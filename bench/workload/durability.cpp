#include "bench/workload/durability.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace weave::bench {

namespace {

durability::durability_mode mode_of(const std::string& name) {
  if (name == "off") return durability::durability_mode::off;
  if (name == "async") return durability::durability_mode::async;
  if (name == "sync") return durability::durability_mode::sync;
  throw std::invalid_argument("--durability must be off, async or sync, not '" + name + "'");
}

// Whether a directory can be made in `dir`, by making one and removing it:
// permissions say nothing true of /proc, /sys or a read-only mount, nor for
// root. Throws `what` and the reason when it cannot.
void check_writable(const std::filesystem::path& dir, const std::string& what) {
  std::string probe = (dir / ".weave-probe-XXXXXX").string();
  if (::mkdtemp(probe.data()) == nullptr) {
    throw std::invalid_argument(what + ": " + std::strerror(errno));
  }
  ::rmdir(probe.c_str());
}

}  // namespace

void validate(const durability_choice& d) {
  const auto mode = mode_of(d.mode);
  if (d.group_commit_us < 1 || d.group_commit_us > 1'000'000) {
    throw std::invalid_argument("--group-commit-us must be 1..1000000");
  }
  if (d.acks != "park" && d.acks != "deferred") {
    throw std::invalid_argument("unknown --acks '" + d.acks + "' (park or deferred)");
  }
  if ((d.deferred_acks() || d.acks_given) && mode != durability::durability_mode::sync) {
    throw std::invalid_argument("--acks " + d.acks + " needs --durability sync (nothing else waits for the disk)");
  }
  if (mode == durability::durability_mode::off) {
    if (!d.data.empty()) throw std::invalid_argument("--data needs --durability async or sync");
    if (d.window_given) throw std::invalid_argument("--group-commit-us needs --durability async or sync");
    return;
  }
  if (d.data.empty()) throw std::invalid_argument("--durability " + d.mode + " needs --data DIR");
  // Settled here, before a benchmark prints or loads anything. A benchmark
  // loads its own tables: a directory that holds anything could be
  // someone's data.
  std::error_code ec;
  const auto status = std::filesystem::status(d.data, ec);
  if (std::filesystem::exists(status)) {
    if (!std::filesystem::is_directory(status)) throw std::invalid_argument("--data " + d.data + " is not a directory");
    if (!std::filesystem::is_empty(d.data, ec) || ec) {
      throw std::invalid_argument("--data " + d.data + " must be a new or empty directory");
    }
    check_writable(d.data, "--data " + d.data + " is not writable");
    return;
  }
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(d.data, ec))) {
    throw std::invalid_argument("--data " + d.data + " is a symbolic link to nothing");
  }
  // It will be created: the nearest of its parents that exists must be a
  // directory that takes a new one.
  std::filesystem::path p = std::filesystem::path(d.data).parent_path();
  for (; !p.empty(); p = p.parent_path()) {
    const auto parent = std::filesystem::status(p, ec);
    if (std::filesystem::exists(parent)) {
      if (!std::filesystem::is_directory(parent)) {
        throw std::invalid_argument("--data " + d.data + " cannot be created: " + p.string() +
                                    " is not a directory");
      }
      break;
    }
    if (p == p.parent_path()) break;
  }
  const std::filesystem::path parent = p.empty() ? std::filesystem::path(".") : p;
  check_writable(parent, "--data " + d.data + " cannot be created in " + parent.string());
}

std::unique_ptr<txn::engine> make_engine(const durability_choice& d, txn::isolation level) {
  const auto mode = mode_of(d.mode);
  if (mode == durability::durability_mode::off) return std::make_unique<txn::engine>(level);
  txn::engine_options o;
  o.level = level;
  o.log.mode = mode;
  o.log.group_window = std::chrono::microseconds(d.group_commit_us);
  return txn::engine::open(d.data, o);
}

log_meter::log_meter(const txn::engine& e) noexcept : e_(e) {
  if (const auto* log = e.log()) {
    bytes_ = log->bytes_written();
    groups_ = log->groups_written();
    write_ns_ = log->write_nanoseconds();
    exposure_ = log->exposure();
  }
}

std::uint64_t log_meter::bytes() const noexcept { return e_.log() ? e_.log()->bytes_written() - bytes_ : 0; }
std::uint64_t log_meter::groups() const noexcept { return e_.log() ? e_.log()->groups_written() - groups_ : 0; }
std::uint64_t log_meter::write_ns() const noexcept {
  return e_.log() ? e_.log()->write_nanoseconds() - write_ns_ : 0;
}

durability::exposure_histogram::counts log_meter::exposure() const noexcept {
  durability::exposure_histogram::counts out{};
  if (const auto* log = e_.log()) {
    out = log->exposure();
    for (std::size_t b = 0; b < out.size(); ++b) out[b] -= exposure_[b];
  }
  return out;
}

void log_use::add(const log_meter& m) noexcept {
  bytes += m.bytes();
  groups += m.groups();
  write_ns += m.write_ns();
  const auto e = m.exposure();
  for (std::size_t b = 0; b < e.size(); ++b) exposure[b] += e[b];
}

void log_use::add(const log_use& other) noexcept {
  bytes += other.bytes;
  groups += other.groups;
  write_ns += other.write_ns;
  for (std::size_t b = 0; b < exposure.size(); ++b) exposure[b] += other.exposure[b];
}

void describe_log(nlohmann::ordered_json& j, const durability_choice& d, const log_use& use, std::size_t commits) {
  j["durability"] = d.mode;
  if (d.mode == "off") return;
  j["group_commit_us"] = d.group_commit_us;
  if (d.mode == "sync") j["acks"] = d.acks;
  j["log_bytes_per_txn"] = commits == 0 ? 0.0 : static_cast<double>(use.bytes) / static_cast<double>(commits);
  j["log_groups"] = use.groups;
  j["log_write_us"] = use.groups == 0 ? 0.0 : static_cast<double>(use.write_ns) / 1e3 / static_cast<double>(use.groups);
  using h = durability::exposure_histogram;
  j["log_exposure_us"] = {{"p50", h::percentile_us(use.exposure, 0.5)},
                          {"p99", h::percentile_us(use.exposure, 0.99)},
                          {"max", h::percentile_us(use.exposure, 1.0)}};
}

}  // namespace weave::bench
