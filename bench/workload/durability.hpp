#pragma once
// The durability a benchmark's engine runs with (--durability, --data,
// --group-commit-us, --acks), shared by `weave bench ycsb` and `weave bench tpcc`,
// and what it reports: the mode, the group window, log bytes per commit.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "weave/durability/exposure.hpp"
#include "weave/txn/engine.hpp"

namespace weave::bench {

struct durability_choice {
  std::string mode = "off";  // off | async | sync
  std::string data;          // the data directory (new or empty): required unless off
  std::size_t group_commit_us = 200;
  // park | deferred: under sync, an interleaved commit parks until durable,
  // or its worker goes on and acknowledges it once durable (acknowledgements.hpp).
  std::string acks = "park";
  // Given on the command line: an option that the mode ignores is refused.
  bool window_given = false, acks_given = false;
  bool deferred_acks() const { return acks == "deferred"; }
};

// Throws std::invalid_argument with a one-line message; touches no file.
void validate(const durability_choice& d);

// An in-memory engine (off) or one over a new data directory.
std::unique_ptr<txn::engine> make_engine(const durability_choice& d, txn::isolation level);

// The log's bytes and groups written since construction.
class log_meter {
 public:
  explicit log_meter(const txn::engine& e) noexcept;
  std::uint64_t bytes() const noexcept;
  std::uint64_t groups() const noexcept;
  std::uint64_t write_ns() const noexcept;
  // Rounds by their worst exposure to a crash (durability/exposure.hpp).
  durability::exposure_histogram::counts exposure() const noexcept;

 private:
  const txn::engine& e_;
  std::uint64_t bytes_ = 0, groups_ = 0, write_ns_ = 0;
  durability::exposure_histogram::counts exposure_{};
};

struct log_use {
  std::uint64_t bytes = 0, groups = 0, write_ns = 0;
  durability::exposure_histogram::counts exposure{};
  void add(const log_meter& m) noexcept;
  void add(const log_use& other) noexcept;
};

// "durability", and for a durable engine "group_commit_us", "acks" (sync),
// "log_bytes_per_txn" (over `commits`), "log_groups", "log_write_us" (the
// mean time to write and sync a group) and "log_exposure_us" (p50, p99 and
// max over the rounds of how long a commit waited to be durable: under
// async, what a crash could have lost).
void describe_log(nlohmann::ordered_json& j, const durability_choice& d, const log_use& use, std::size_t commits);

}  // namespace weave::bench
