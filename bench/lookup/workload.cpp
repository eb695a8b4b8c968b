#include "bench/lookup/workload.hpp"
#include "weave/memory/saturating.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

namespace weave::bench {

namespace {
constexpr std::pair<variant, std::string_view> variant_names[] = {
    {variant::naive, "naive"},  {variant::gp, "gp"},
    {variant::amac, "amac"},    {variant::coro, "coro"},
    {variant::coro_task, "coro-task"}, {variant::coro_sequential, "coro-sequential"},
    {variant::adaptive, "auto"}};

template <class Traits>
std::unique_ptr<lookup_workload> build(const workload_spec& spec, bool verbose) {
  auto progress = [&](double fraction) {
    if (verbose) std::fprintf(stderr, "\rbuilding %s: %3.0f%%", std::string(Traits::name).c_str(), fraction * 100);
  };
  auto s = Traits::build(spec.keys, spec.seed, progress);
  if (verbose) std::fprintf(stderr, "\rbuilding %s: done\n", std::string(Traits::name).c_str());
  key_chooser chooser(spec.keys, spec.distribution, spec.theta, spec.seed + 1);
  std::vector<typename Traits::key> keys(spec.lookups);
  for (auto& k : keys) k = Traits::key_at(s, spec.seed, chooser.next());
  return std::make_unique<structure_workload<Traits>>(std::move(s), std::move(keys));
}

template <class F>
decltype(auto) with_traits(std::string_view structure, F&& f) {
  if (structure == binary_search_int::name) return f(binary_search_int{});
  if (structure == binary_search_str::name) return f(binary_search_str{});
  if (structure == hash_probe::name) return f(hash_probe{});
  if (structure == btree_lookup::name) return f(btree_lookup{});
  throw std::invalid_argument(fmt::format(
      "unknown structure '{}' (choose binary-search, binary-search-str, hash or btree)", structure));
}
}  // namespace

std::string_view variant_name(variant v) {
  for (const auto& [value, name] : variant_names)
    if (value == v) return name;
  return "?";
}

variant parse_variant(std::string_view name) {
  for (const auto& [value, n] : variant_names)
    if (n == name) return value;
  throw std::invalid_argument(
      fmt::format("unknown variant '{}' (choose naive, gp, amac, coro, coro-task, coro-sequential or auto)", name));
}

std::size_t estimated_bytes(const workload_spec& spec) {
  return with_traits(spec.structure, [&](auto traits) {
    using T = decltype(traits);
    return saturating_add(saturating_mul(spec.keys, T::bytes_per_key), saturating_mul(spec.lookups, sizeof(typename T::key)));
  });
}

void validate(const workload_spec& spec) {
  with_traits(spec.structure, [](auto) { return 0; });
  if (spec.keys == 0) throw std::invalid_argument("--keys must be at least 1");
  if (spec.lookups == 0) throw std::invalid_argument("--lookups must be at least 1");
  if (!(spec.theta > 0 && spec.theta < 1))
    throw std::invalid_argument("--theta must be in (0, 1)");
}

std::unique_ptr<lookup_workload> make_workload(const workload_spec& spec, bool verbose) {
  validate(spec);
  return with_traits(spec.structure, [&](auto traits) { return build<decltype(traits)>(spec, verbose); });
}

}  // namespace weave::bench
