#include "bench/plot.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "dictionary_sweep_script.hpp"  // generated from bench/plot/dictionary_sweep.py
#include "group_sweep_script.hpp"       // generated from bench/plot/group_sweep.py
#include "latency_sweep_script.hpp"     // generated from bench/plot/latency_sweep.py

extern char** environ;

namespace weave::bench {

namespace {

// Debian's interpreter, which has python3-matplotlib, even when another python3 comes first on PATH.
std::string python() { return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

// Runs `python3 -c script args...` without a shell: the arguments reach the
// script as they are, whatever characters they hold. The interpreter's output
// is discarded, so that stdout keeps only JSON lines and a failure is one
// line of ours, not a traceback. Returns the exit status, or -1 if the
// interpreter could not be started.
int run_python(const char* script, const std::vector<std::string>& args) {
  std::vector<std::string> words{python(), "-c", script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void plot(const char* script, const std::vector<nlohmann::ordered_json>& rows, const std::string& png) {
  if (rows.empty()) throw std::runtime_error("nothing to plot");
  char data_path[] = "/tmp/weave-plot-XXXXXX";
  const int fd = ::mkstemp(data_path);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the plot data");
  ::close(fd);
  {
    std::ofstream data(data_path);
    for (const auto& r : rows) data << r.dump() << '\n';
  }
  const int status = run_python(script, {data_path, png});
  std::filesystem::remove(data_path);
  if (status != 0) throw std::runtime_error(fmt::format("plotting to '{}' failed (python3 exit status {})", png, status));
}

}  // namespace

void check_plot_path(const std::string& png) {
  namespace fs = std::filesystem;
  if (png.empty()) throw std::invalid_argument("needs a file name");
  const fs::path path(png);
  if (path.extension() != ".png") throw std::invalid_argument(fmt::format("'{}': the file name must end in .png", png));
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::invalid_argument(fmt::format("'{}' is a directory", png));
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) {
    throw std::invalid_argument(fmt::format("'{}': '{}' {}", png, dir.string(),
                                            fs::exists(dir, ec) ? "is not a directory" : "does not exist"));
  }
  if (::access(dir.c_str(), W_OK) != 0)
    throw std::invalid_argument(fmt::format("'{}': directory '{}' is not writable", png, dir.string()));
  // Opening the file is the only test that every file system answers truly
  // (access() says yes for root, and /proc takes no new files).
  const bool existed = fs::exists(path, ec);
  // A pipe, a device or a socket: opening a FIFO no one reads blocks for
  // ever, and a plot is a file.
  if (existed && !fs::is_regular_file(path, ec)) {
    throw std::invalid_argument(fmt::format("'{}' exists and is not a regular file", png));
  }
  const int fd = ::open(path.c_str(), existed ? O_WRONLY | O_NONBLOCK : O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) throw std::invalid_argument(fmt::format("cannot write '{}': {}", png, std::strerror(errno)));
  ::close(fd);
  if (!existed) ::unlink(path.c_str());
  if (run_python("import matplotlib", {}) != 0) {
    throw std::invalid_argument(
        "needs python3 with matplotlib (Debian: apt-get install python3-matplotlib)");
  }
}

void plot_group_sweep(const std::vector<nlohmann::ordered_json>& rows, const std::string& png) {
  plot(group_sweep_script, rows, png);
}

void plot_dictionary_sweep(const std::vector<nlohmann::ordered_json>& rows, const std::string& png) {
  plot(dictionary_sweep_script, rows, png);
}

void plot_latency_sweep(const std::vector<nlohmann::ordered_json>& rows, const std::string& png) {
  plot(latency_sweep_script, rows, png);
}

}  // namespace weave::bench
