#pragma once
// The system calls the durability layer's files share, each throwing
// std::system_error with errno and a message that names the file.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace weave::durability::detail {

// Throws for errno, read before anything else can change it.
[[noreturn]] void throw_errno(const std::string& what);

// Writes all of `bytes` to `fd` (a write that makes no progress is ENOSPC).
void write_all(int fd, std::string_view bytes, const std::string& what);

// Opens a file of the data directory to read, refusing anything but a
// regular file (a device or a pipe in its place would hang a reader or feed
// it without end). Returns the descriptor, and its size in `bytes` if
// asked; throws std::system_error.
int open_to_read(const std::filesystem::path& path, std::size_t* bytes = nullptr);

// The whole file.
std::string read_file(const std::filesystem::path& path);
// The same into `bytes`, whose memory a reader of many files reuses (fresh
// pages cost the kernel a zeroing each, and a virtual machine more).
void read_file(const std::filesystem::path& path, std::string& bytes);

// Reads up to `bytes` bytes into `out`; 0 at the end of the file.
std::size_t read_some(int fd, char* out, std::size_t bytes, const std::string& what);

// Makes the names of files created or renamed in `directory` durable.
void sync_directory(const std::filesystem::path& directory);

// `fd` holds a new file written under `temporary`: syncs and closes it,
// renames it over `target` and syncs the directory, so that `target` is the
// old file or the whole new one, whenever a crash comes. Closes `fd` whatever
// happens.
void publish(int fd, const std::filesystem::path& temporary, const std::filesystem::path& target);

}  // namespace weave::durability::detail
