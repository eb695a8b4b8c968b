#pragma once
// A built structure with its lookup keys, able to run any variant over any
// range of lookups. The benchmark driver sees only this interface; the
// virtual call happens once per range, never per lookup.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/lookup/structures.hpp"
#include "bench/workload/key_chooser.hpp"
#include "weave/exec/adaptive_scheduler.hpp"
#include "weave/exec/interleaved_scheduler.hpp"
#include "weave/exec/sequential_scheduler.hpp"

namespace weave::bench {

// coro, coro-sequential and auto run each structure's streamed lookup (one
// coroutine per slot loops over lookups); coro-task starts a task per lookup.
enum class variant { naive, gp, amac, coro, coro_task, coro_sequential, adaptive };

std::string_view variant_name(variant v);
variant parse_variant(std::string_view name);  // throws std::invalid_argument

struct variant_result {
  std::uint64_t checksum = 0;
  std::size_t suspensions = 0;
  // Likely misses the lookups waited on: a suspension of a slot that runs k
  // lookups in lockstep ends a stage of each, so it counts k.
  std::size_t stages = 0;
  bool interleaved = false;  // what `auto` chose
  std::size_t group = 1;     // the group `auto` chose
};

struct workload_spec {
  std::string structure;  // binary-search | binary-search-str | hash | btree
  std::size_t keys = 0;
  std::size_t lookups = 0;
  key_chooser::distribution distribution = key_chooser::distribution::uniform;
  double theta = 0.99;
  std::uint64_t seed = 42;
};

class lookup_workload {
 public:
  virtual ~lookup_workload() = default;
  virtual std::string_view structure() const = 0;
  virtual std::size_t bytes() const = 0;
  virtual std::size_t lookups() const = 0;
  // Lookups one slot of the coro variant's ring runs at once.
  virtual std::size_t lookups_per_slot() const = 0;
  virtual variant_result run(variant v, std::size_t group, std::size_t first, std::size_t last,
                             const adaptive_options& options) const = 0;
};

// Throws std::invalid_argument, with a one-line reason, for a spec that cannot run.
void validate(const workload_spec& spec);

// Bytes the structure and its lookup keys will need, to refuse early what cannot fit.
std::size_t estimated_bytes(const workload_spec& spec);

// Builds the structure (progress on stderr when `verbose`) and draws the lookups.
std::unique_ptr<lookup_workload> make_workload(const workload_spec& spec, bool verbose);

template <class Traits>
class structure_workload final : public lookup_workload {
 public:
  using key = typename Traits::key;

  structure_workload(typename Traits::structure s, std::vector<key> keys)
      : structure_(std::move(s)), keys_(std::move(keys)) {}

  std::string_view structure() const override { return Traits::name; }
  std::size_t bytes() const override { return structure_.bytes(); }
  std::size_t lookups() const override { return keys_.size(); }
  std::size_t lookups_per_slot() const override { return bench::lookups_per_slot<Traits>(); }

  variant_result run(variant v, std::size_t group, std::size_t first, std::size_t last,
                     const adaptive_options& options) const override {
    const std::span<const key> keys(keys_.data() + first, last - first);
    constexpr std::size_t per_slot = bench::lookups_per_slot<Traits>();
    variant_result r;
    auto make = [&](auto policy, std::size_t i) {
      return Traits::template lookup<decltype(policy)>(structure_, keys_[i]);
    };
    auto streamed_lookups = streamed<per_slot>(
        [&](auto policy, auto requests) {
          return Traits::template lookup<decltype(policy)>(structure_, requests);
        },
        [keys = keys_.data()](std::size_t i) { return keys[i]; });
    auto sink = [&](std::size_t, const auto& value) { r.checksum += checksum_term(value); };
    switch (v) {
      case variant::naive: r.checksum = baselines::naive_lookup(structure_, keys); break;
      case variant::gp: r.checksum = baselines::gp_lookup(structure_, keys, group); break;
      case variant::amac: r.checksum = baselines::amac_lookup(structure_, keys, group); break;
      case variant::coro: {
        // `group` counts lookups in flight, as for gp and amac.
        const std::size_t slots = (group + per_slot - 1) / per_slot;
        r.suspensions = interleaved_scheduler{slots}.run(first, last, streamed_lookups, sink).suspensions;
        r.stages = r.suspensions * per_slot;
        r.interleaved = true;
        r.group = slots * per_slot;
        break;
      }
      case variant::coro_task:
        r.suspensions = interleaved_scheduler{group}.run(first, last, make, sink).suspensions;
        r.stages = r.suspensions;
        r.interleaved = true;
        r.group = group;
        break;
      case variant::coro_sequential:
        r.suspensions = sequential_scheduler{}.run(first, last, streamed_lookups, sink).suspensions;
        break;
      case variant::adaptive: {
        adaptive_scheduler scheduler{options};
        r.suspensions = scheduler.run(first, last, streamed_lookups, sink).suspensions;
        r.stages = r.suspensions * per_slot;
        r.interleaved = scheduler.decision().interleave;
        r.group = r.interleaved ? scheduler.decision().group * per_slot : 1;
        break;
      }
    }
    return r;
  }

 private:
  typename Traits::structure structure_;
  std::vector<key> keys_;
};

}  // namespace weave::bench
