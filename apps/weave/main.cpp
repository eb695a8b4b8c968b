// The weave command: `weave demo`, `weave bench ...`, `weave query ...` and
// `weave recover`.
// Results go to stdout (JSON lines for benchmarks); progress and errors go to
// stderr. Bad input (std::invalid_argument) gets one line on stderr and exit
// status 2, and is checked before any slow set-up; a failure while running
// gets exit status 1, and so does a run whose results could not all be
// written (a full disk under a redirection).

#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>

#include "cli_support.hpp"
#include "weave/version.hpp"
#include "weave_commit.hpp"

namespace {

// Whether everything written to stdout (by iostreams, stdio or fmt) reached
// it; says why not on stderr.
bool output_written() {
  errno = 0;
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (failed) {
    const int error = errno;
    std::fprintf(stderr, "weave: error: the results could not all be written to standard output%s%s\n",
                 error != 0 ? ": " : "", error != 0 ? std::strerror(error) : "");
  }
  return !failed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weave: a main-memory database engine that hides DRAM latency by interleaving lookups"};
  app.set_version_flag("--version", std::string("weave ") + weave::version + " (commit " + weave_commit + ")");
  app.require_subcommand(1);
  auto* bench = app.add_subcommand("bench", "run an experiment; one JSON object per line on stdout");
  bench->require_subcommand(1);
  auto* query = app.add_subcommand("query", "run a query on a generated or loaded table");
  query->require_subcommand(1);

  weave::cli::command_table commands;
  weave::cli::add_lookup_commands(app, *bench, commands);
  weave::cli::add_column_commands(*bench, *query, commands);
  weave::cli::add_txn_commands(*bench, commands);
  weave::cli::add_tasks_commands(*bench, commands);
  weave::cli::add_data_commands(app, commands);
  weave::cli::require_plain_values(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string unknown = weave::cli::unknown_command(app, argc, argv);
    std::fprintf(stderr, "weave: %s (try --help)\n", unknown.empty() ? e.what() : unknown.c_str());
    return 2;
  }

  try {
    const int status = commands.run();
    return output_written() ? status : 1;
  } catch (const std::invalid_argument& e) {  // bad input
    std::fprintf(stderr, "weave: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    // Tables reserve address space to grow into without moving (2^32
    // records each), which a limit on it (ulimit -v) refuses long before
    // memory runs out.
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      std::fprintf(stderr,
                   "weave: out of memory: address space is limited to %.1f GiB (ulimit -v), which may be why "
                   "(each transactional table reserves 32 GiB or more of it to grow into)\n",
                   static_cast<double>(limit.rlim_cur) / (1024.0 * 1024 * 1024));
    } else {
      std::fprintf(stderr, "weave: out of memory\n");
    }
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weave: error: %s\n", e.what());
    return 1;
  }
}
