#pragma once
// What every `weave` command shares: list parsing, the memory check, JSON
// lines on stdout, and the table of parsed subcommands and their actions.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/workload/scheduler_choice.hpp"
#include "weave/memory/machine.hpp"

namespace weave::cli {

// "a,b,c" -> {"a","b","c"}; an empty item, or one given twice, is bad input
// (an empty item's message names `option` where given).
std::vector<std::string> split(const std::string& list, std::string_view option = {});
// Comma-separated sizes with suffixes (K M G T, Ki Mi Gi Ti).
std::vector<std::size_t> parse_sizes(const std::string& list);
// Comma-separated batch sizes (1 and up), each of which may be the word
// auto (bench::auto_batch: chosen at run time).
std::vector<std::size_t> parse_batches(const std::string& list);
// Comma-separated schedulers of the interleaved modes: batch, pipeline.
std::vector<bench::scheduler_choice> parse_schedulers(const std::string& list);
// Comma-separated latency targets in microseconds (their range is checked
// by the benchmarks' validate()); none for an empty string.
std::vector<double> parse_latency_targets(const std::string& list);
// Refuses (as bad input) what would not fit in the memory available.
void require_memory(std::size_t bytes, const std::string& what);
void print(const nlohmann::ordered_json& j);
// One line on stderr when a run asks for more threads than the CPUs this
// process may use: they would share CPUs and each would measure less.
void warn_if_more_threads_than_cpus(const std::vector<std::size_t>& thread_counts);
// Every option of `app` and its subcommands that takes a value takes a
// plain one: an unsigned option decimal digits only (CLI11 would read "-1"
// as 2^64-1, "010" as octal, and saturate on overflow), a real option a
// finite number (no "nan" or "inf"), a text option a non-empty string (an
// empty one would read as "not given"). Call once all options are added.
void require_plain_values(CLI::App& app);
// An unsigned option's range, checked as plainly.
CLI::Validator unsigned_in(std::uint64_t lo, std::uint64_t hi);
// Size options (suffixes K, Mi, ...), checked while parsing so that the
// message names the option: one size, or a comma list that may also be the
// word auto (group sizes) or rows (distinct counts).
extern const CLI::Validator size_value;
extern const CLI::Validator size_list;
extern const CLI::Validator size_list_or_auto;
extern const CLI::Validator size_list_or_rows;
// Batch sizes as parse_batches takes them.
extern const CLI::Validator batch_list;
// Schedulers as parse_schedulers takes them.
extern const CLI::Validator scheduler_list;
// A real option's range, with a short message.
CLI::Validator real_in(double lo, double hi);
// When parsing failed on a word that names no command at its place ("weave
// bench frobnicate"), the message that says so; empty otherwise.
std::string unknown_command(const CLI::App& app, int argc, const char* const* argv);
// Checks a --plot file name while parsing (see bench::check_plot_path).
extern const CLI::Validator plot_path;

// Subcommands and what to run when one of them was given.
class command_table {
 public:
  // A command that plans with the cache sizes has them settled first: the
  // probe runs once per machine, and a bad WEAVE_CACHE_SIZES is bad input.
  // One that does not (recover) is not refused for that variable.
  enum class caches { measured, unused };

  void add(CLI::App* command, std::function<int()> run, caches c = caches::measured) {
    commands_.push_back({command, std::move(run), c});
  }
  // Runs the parsed command; returns its exit status.
  int run() const {
    for (const auto& e : commands_) {
      if (!e.command->parsed()) continue;
      if (e.cache_use == caches::measured) weave::machine::measure_caches();
      return e.run();
    }
    return 0;
  }

 private:
  struct entry {
    CLI::App* command;
    std::function<int()> run;
    caches cache_use;
  };
  std::vector<entry> commands_;
};

void add_lookup_commands(CLI::App& app, CLI::App& bench, command_table& commands);
void add_column_commands(CLI::App& bench, CLI::App& query, command_table& commands);
void add_txn_commands(CLI::App& bench, command_table& commands);
void add_tasks_commands(CLI::App& bench, command_table& commands);
void add_data_commands(CLI::App& app, command_table& commands);

}  // namespace weave::cli
