#include "weave/durability/data_directory.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/temp_dir.hpp"

namespace weave::durability {
namespace {

namespace fs = std::filesystem;

using test_support::temp_dir;

std::string message_of(const fs::path& p) {
  try {
    data_directory d(p);
  } catch (const data_directory_error& e) {
    return e.what();
  }
  return "";
}

TEST(data_directory, creates_a_missing_directory) {
  temp_dir t;
  const fs::path p = t.path / "a" / "b";
  { data_directory d(p); }
  EXPECT_TRUE(fs::exists(p / "FORMAT"));
  data_directory again(p);  // the lock went with the first
  EXPECT_TRUE(again.catalog().empty());
}

TEST(data_directory, refuses_a_file_another_format_and_a_foreign_directory_without_writing) {
  temp_dir t;
  const fs::path file = t.path / "file";
  std::ofstream(file) << "x";
  EXPECT_NE(message_of(file).find("is not a directory"), std::string::npos);

  const fs::path other = t.path / "other";
  fs::create_directory(other);
  std::ofstream(other / "FORMAT") << "weave data directory, format 99\n";
  EXPECT_NE(message_of(other).find("format 99"), std::string::npos);
  EXPECT_FALSE(fs::exists(other / "LOCK")) << "something was written into another version's directory";

  const fs::path foreign = t.path / "foreign";
  fs::create_directory(foreign);
  std::ofstream(foreign / "notes.txt") << "mine";
  EXPECT_NE(message_of(foreign).find("not a weave data directory"), std::string::npos);
  EXPECT_FALSE(fs::exists(foreign / "FORMAT"));
}

TEST(data_directory, a_second_opener_is_refused_in_this_process_and_in_another) {
  temp_dir t;
  data_directory first(t.path);
  EXPECT_NE(message_of(t.path).find("in use"), std::string::npos);
  const pid_t child = ::fork();
  if (child == 0) {
    // The child tries on its own; the parent's lock must keep it out.
    try {
      const bool refused = message_of(t.path).find("in use") != std::string::npos;
      ::_exit(refused ? 0 : 1);
    } catch (...) {
      ::_exit(2);  // never back into the test runner
    }
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "another process opened a locked directory";
}

TEST(data_directory, the_catalog_survives_reopening_and_damage_is_reported) {
  temp_dir t;
  {
    data_directory d(t.path);
    d.add_table({0, "usertable", false});
    d.add_table({1, "names with spaces", true});
    EXPECT_THROW(d.add_table({5, "gap", false}), std::invalid_argument);
  }
  {
    data_directory d(t.path);
    ASSERT_EQ(d.catalog().size(), 2u);
    EXPECT_EQ(d.catalog()[1], (catalog_entry{1, "names with spaces", true}));
  }
  std::ofstream(t.path / "CATALOG", std::ios::app) << "7 sideways x\n";
  EXPECT_NE(message_of(t.path).find("CATALOG line 3 is damaged"), std::string::npos);
}

}  // namespace
}  // namespace weave::durability
