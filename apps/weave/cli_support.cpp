#include "cli_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <utility>

#include "bench/plot.hpp"
#include "bench/workload/auto_batch.hpp"
#include "bench/workload/size.hpp"
#include "weave/memory/machine.hpp"

namespace weave::cli {

std::vector<std::string> split(const std::string& list, std::string_view option) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma == start) {
      throw std::invalid_argument(
          fmt::format("{}{}empty item in list '{}'", option, option.empty() ? "" : ": ", list));
    }
    std::string item = list.substr(start, comma - start);
    if (std::find(out.begin(), out.end(), item) != out.end()) {
      throw std::invalid_argument(
          fmt::format("{}{}'{}' appears twice in list '{}'", option, option.empty() ? "" : ": ", item, list));
    }
    out.push_back(std::move(item));
    start = comma + 1;
  }
  return out;
}

namespace {

// Two items that name the same size ("1Ki,1024") would run one
// configuration twice, as two identical items would (split refuses those).
void refuse_same_size(const std::vector<std::string>& items, const std::vector<std::size_t>& values,
                      const std::string& list) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (values[i] == values[j]) {
        throw std::invalid_argument(
            fmt::format("'{}' and '{}' are the same size in list '{}'", items[j], items[i], list));
      }
    }
  }
}

}  // namespace

std::vector<std::size_t> parse_sizes(const std::string& list) {
  const std::vector<std::string> items = split(list);
  std::vector<std::size_t> out;
  for (const auto& item : items) out.push_back(bench::parse_size(item));
  refuse_same_size(items, out, list);
  return out;
}

std::vector<std::size_t> parse_batches(const std::string& list) {
  const std::vector<std::string> items = split(list);
  std::vector<std::size_t> out;
  for (const auto& item : items) {
    if (item == "auto") {
      out.push_back(bench::auto_batch);
      continue;
    }
    const std::size_t b = bench::parse_size(item);
    // The largest size stands for auto: a number that large is not taken for it.
    if (b == 0 || b == bench::auto_batch)
      throw std::invalid_argument(fmt::format("'{}' is not a batch size (1 or more, or auto)", item));
    out.push_back(b);
  }
  refuse_same_size(items, out, list);
  return out;
}

std::vector<bench::scheduler_choice> parse_schedulers(const std::string& list) {
  std::vector<bench::scheduler_choice> out;
  for (const auto& item : split(list)) {
    if (item == bench::scheduler_name(bench::scheduler_choice::batch)) {
      out.push_back(bench::scheduler_choice::batch);
    } else if (item == bench::scheduler_name(bench::scheduler_choice::pipeline)) {
      out.push_back(bench::scheduler_choice::pipeline);
    } else {
      throw std::invalid_argument(fmt::format("'{}' is not a scheduler (batch or pipeline)", item));
    }
  }
  return out;
}

std::vector<double> parse_latency_targets(const std::string& list) {
  std::vector<double> out;
  if (list.empty()) return out;
  for (const auto& item : split(list, "--latency-target-us")) {
    double us = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), us);
    if (ec != std::errc{} || end != item.data() + item.size()) {
      throw std::invalid_argument(fmt::format("--latency-target-us: '{}' is not a number of microseconds", item));
    }
    for (double seen : out) {
      if (seen == us) throw std::invalid_argument(fmt::format("--latency-target-us: {} is given twice", us));
    }
    out.push_back(us);  // its range is the benchmarks' validate()'s to check
  }
  return out;
}

void require_memory(std::size_t bytes, const std::string& what) {
  if (bytes == std::numeric_limits<std::size_t>::max())
    throw std::invalid_argument(fmt::format("{} needs more memory than a 64-bit machine can address", what));
  const std::size_t available = machine::available_bytes();
  if (available > 0 && bytes > available / 10 * 9) {
    throw std::invalid_argument(fmt::format("{} needs about {} but only {} of memory is available", what,
                                            bench::format_bytes(bytes), bench::format_bytes(available)));
  }
}

namespace {

std::string plain_unsigned(const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || text[0] < '0' || text[0] > '9' || end != text.data() + text.size()) {
    return fmt::format("'{}' is not a whole number of zero or more", text);
  }
  if (ec == std::errc::result_out_of_range) return fmt::format("{} is too large", text);
  if (text.size() > 1 && text[0] == '0') return fmt::format("write {} without leading zeros", text);
  return {};
}

std::string plain_real(const std::string& text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    return fmt::format("'{}' is not a finite number", text);
  }
  return {};
}

std::string non_empty(const std::string& text) { return text.empty() ? "needs a value" : std::string{}; }

// A size, or with `list` a comma list of sizes; `words` are accepted as they are.
std::string sizes(const std::string& text, bool list, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (text == w) return {};
  try {
    if (list) {
      parse_sizes(text);
    } else {
      bench::parse_size(text);
    }
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

}  // namespace

void require_plain_values(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_expected_min() == 0) continue;  // a flag
    // The type name may carry a validator's description after a colon.
    const std::string type = option->get_type_name();
    if (type.starts_with("UINT")) option->check(CLI::Validator(plain_unsigned, "", "plain unsigned"));
    if (type.starts_with("FLOAT")) option->check(CLI::Validator(plain_real, "", "finite"));
    if (type.starts_with("TEXT")) option->check(CLI::Validator(non_empty, "", "non-empty"));
  }
  for (CLI::App* sub : app.get_subcommands({})) require_plain_values(*sub);
}

CLI::Validator unsigned_in(std::uint64_t lo, std::uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        if (std::string error = plain_unsigned(text); !error.empty()) return error;
        std::uint64_t value = 0;
        std::from_chars(text.data(), text.data() + text.size(), value);
        if (value < lo || value > hi) return fmt::format("{} is outside {}..{}", text, lo, hi);
        return {};
      },
      fmt::format("{}..{}", lo, hi), "unsigned range");
}

const CLI::Validator size_value([](std::string& text) { return sizes(text, false, {}); }, "", "size");
const CLI::Validator size_list([](std::string& text) { return sizes(text, true, {}); }, "", "sizes");
const CLI::Validator size_list_or_auto([](std::string& text) { return sizes(text, true, {"auto"}); }, "",
                                       "sizes or auto");
const CLI::Validator size_list_or_rows([](std::string& text) { return sizes(text, true, {"rows"}); }, "",
                                       "sizes or rows");

namespace {

// Checks a list while parsing, with the parser's own message, so that the
// message names the option.
template <class Parse>
CLI::Validator parsed_by(Parse parse, const char* description) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          parse(text);
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return {};
      },
      "", description);
}

}  // namespace

const CLI::Validator batch_list = parsed_by(parse_batches, "batch sizes or auto");
const CLI::Validator scheduler_list = parsed_by(parse_schedulers, "batch,pipeline");

CLI::Validator real_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc::invalid_argument || end != text.data() + text.size()) {
          return fmt::format("'{}' is not a number", text);
        }
        if (ec != std::errc{} || !(value >= lo && value <= hi))
          return fmt::format("{} is outside {}..{}", text, lo, hi);
        return {};
      },
      fmt::format("{}..{}", lo, hi), "real range");
}

std::string unknown_command(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* at = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const auto subs = at->get_subcommands({});
    if (subs.empty() || word.empty()) break;
    const std::string path = at == &app ? std::string("weave") : "weave " + at->get_name();
    if (word[0] == '-') {
      // Options go after the command; before it only --help and --version.
      if (at->get_option_no_throw(word.substr(0, word.find('='))) != nullptr) continue;
      return fmt::format("'{}' is not an option of '{}': give a command first", word, path);
    }
    const CLI::App* next = nullptr;
    std::string names;
    for (const CLI::App* sub : subs) {
      if (sub->get_name() == word) next = sub;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (next == nullptr) {
      return fmt::format("'{}' is not a command of '{}' (choose {})", word, path, names);
    }
    at = next;
  }
  return {};
}

const CLI::Validator plot_path(
    [](std::string& png) -> std::string {
      try {
        bench::check_plot_path(png);
      } catch (const std::invalid_argument& e) {
        return e.what();
      }
      return {};
    },
    "PNG", "plot path");

void warn_if_more_threads_than_cpus(const std::vector<std::size_t>& thread_counts) {
  const std::size_t cpus = machine::allowed_cpus().size();
  const std::size_t most = thread_counts.empty() ? 0 : *std::max_element(thread_counts.begin(), thread_counts.end());
  if (most > cpus) {
    std::fprintf(stderr, "weave: warning: %zu threads on %zu allowed CPU%s: threads share CPUs\n", most, cpus,
                 cpus == 1 ? "" : "s");
  }
}

void print(const nlohmann::ordered_json& j) { std::cout << j.dump() << '\n' << std::flush; }

}  // namespace weave::cli
