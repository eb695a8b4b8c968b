#include "file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace weave::durability::detail {

void throw_errno(const std::string& what) {
  const int error = errno;
  throw std::system_error(error, std::generic_category(), what);
}

void write_all(int fd, std::string_view bytes, const std::string& what) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      throw_errno(what);
    }
    done += static_cast<std::size_t>(n);
  }
}

std::string read_file(const std::filesystem::path& path) {
  std::string bytes;
  read_file(path, bytes);
  return bytes;
}

int open_to_read(const std::filesystem::path& path, std::size_t* bytes) {
  // Non-blocking, or opening a pipe would wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw_errno("cannot open " + path.string());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::system_error(error, std::generic_category(), "cannot read " + path.string());
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::system_error(std::make_error_code(std::errc::invalid_argument),
                            path.string() + " is not a regular file");
  }
  // Back to blocking reads (a regular file ignores the flag, but a reader
  // should not depend on that).
  static_cast<void>(::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK));
  if (bytes != nullptr) *bytes = static_cast<std::size_t>(std::max<off_t>(st.st_size, 0));
  return fd;
}

void read_file(const std::filesystem::path& path, std::string& bytes) {
  std::size_t size = 0;
  const int fd = open_to_read(path, &size);
  const std::string what = "cannot read " + path.string();
  try {
    static_cast<void>(::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL));  // a hint: larger readahead
    // Read in place, in large pieces: a segment is tens of MB, and growing a
    // string from small reads would copy it twice more.
    bytes.resize(size + 1);
    std::size_t done = 0;
    for (;;) {
      if (done == bytes.size()) bytes.resize(bytes.size() * 2);  // it grew since fstat
      const std::size_t n = read_some(fd, bytes.data() + done, bytes.size() - done, what);
      if (n == 0) break;
      done += n;
    }
    bytes.resize(done);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

std::size_t read_some(int fd, char* out, std::size_t bytes, const std::string& what) {
  for (;;) {
    const ssize_t n = ::read(fd, out, std::min<std::size_t>(bytes, std::size_t{1} << 24));
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) throw_errno(what);
  }
}

void sync_directory(const std::filesystem::path& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw_errno("cannot open directory " + directory.string());
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  errno = error;
  if (rc != 0) throw_errno("cannot sync directory " + directory.string());
}

void publish(int fd, const std::filesystem::path& temporary, const std::filesystem::path& target) {
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  errno = error;
  if (rc != 0) throw_errno("cannot sync " + temporary.string());
  if (::rename(temporary.c_str(), target.c_str()) != 0) throw_errno("cannot rename " + temporary.string());
  sync_directory(target.parent_path());
}

}  // namespace weave::durability::detail
