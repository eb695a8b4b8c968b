#include "weave/durability/data_directory.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/file_bytes.hpp"
#include "support/temp_dir.hpp"

namespace weave::durability {
namespace {

namespace fs = std::filesystem;

using test_support::file_bytes;
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

TEST(data_directory, read_only_opens_only_a_data_directory_and_writes_nothing) {
  temp_dir t;
  const auto refusal = [](const fs::path& p) -> std::string {
    try {
      data_directory d(p, true);
    } catch (const data_directory_error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refusal(t.path / "missing").find("does not exist"), std::string::npos);
  EXPECT_FALSE(fs::exists(t.path / "missing"));
  const fs::path empty = t.path / "empty";
  fs::create_directory(empty);
  EXPECT_NE(refusal(empty).find("no FORMAT"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(empty));
  // A directory a writer made: read, locked against writers, not written.
  const fs::path made = t.path / "made";
  {
    data_directory w(made);
    w.add_table({0, "t", false});
  }
  fs::remove(made / "LOCK");
  {
    data_directory r(made, true);
    ASSERT_EQ(r.catalog().size(), 1u);
    EXPECT_THROW(r.add_table({1, "u", false}), std::logic_error);
    EXPECT_FALSE(fs::exists(made / "LOCK"));
  }
  std::ofstream(made / "LOCK");
  {
    data_directory r(made, true);
    data_directory r2(made, true);  // readers share
    EXPECT_NE(message_of(made).find("in use"), std::string::npos);
  }
  data_directory w(made);
  EXPECT_NE(refusal(made).find("in use"), std::string::npos);
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
    d.add_table({2, "inline", false, 16});
    EXPECT_THROW(d.add_table({5, "gap", false}), std::invalid_argument);
  }
  {
    data_directory d(t.path);
    ASSERT_EQ(d.catalog().size(), 3u);
    EXPECT_EQ(d.catalog()[0], (catalog_entry{0, "usertable", false}));
    EXPECT_EQ(d.catalog()[1], (catalog_entry{1, "names with spaces", true}));
    EXPECT_EQ(d.catalog()[2], (catalog_entry{2, "inline", false, 16}));
  }
  const std::string good = file_bytes(t.path / "CATALOG");
  // The last line is the checksum of the others.
  const std::size_t last = good.rfind('\n', good.size() - 2) + 1;
  ASSERT_TRUE(good.substr(last).starts_with("checksum ")) << good;
  const std::string entries = good.substr(0, last);
  // Catalogs of format 2 may end without the checksum (they were written
  // before it): their lines are still checked one by one.
  std::ofstream(t.path / "FORMAT", std::ios::trunc) << "weave data directory, format 2\n";
  for (const char* bad :
       {"3 sideways x\n", "3 integer/0 x\n", "3 integer/ x\n", "3 integer/8x x\n", "3 bytes/-1 x\n"}) {
    std::ofstream(t.path / "CATALOG", std::ios::trunc) << entries << bad;
    EXPECT_NE(message_of(t.path).find("CATALOG line 4 is damaged"), std::string::npos) << bad;
  }
}

TEST(data_directory, a_catalog_without_its_checksum_is_read_only_in_format_2_which_upgrade_raises) {
  temp_dir t;
  {
    data_directory d(t.path);
    d.add_table({0, "numbers", false});
    d.add_table({1, "names", true, 8});
  }
  const std::string current = file_bytes(t.path / "FORMAT"), good = file_bytes(t.path / "CATALOG");
  ASSERT_EQ(current, "weave data directory, format 4\n");
  const std::size_t last = good.rfind('\n', good.size() - 2) + 1;
  const std::string entries = good.substr(0, last);
  const std::vector<catalog_entry> tables{{0, "numbers", false}, {1, "names", true, 8}};
  // The checksum line lost whole (a file cut short at a line's end), or the
  // last table's line with it: refused in formats 3 and 4.
  for (const std::string& format : {std::string("weave data directory, format 3\n"), current}) {
    std::ofstream(t.path / "FORMAT", std::ios::trunc) << format;
    for (const std::string& cut : {entries, good.substr(0, good.find('\n') + 1), std::string()}) {
      std::ofstream(t.path / "CATALOG", std::ios::trunc) << cut;
      EXPECT_NE(message_of(t.path).find("CATALOG has no checksum line"), std::string::npos) << format << cut;
    }
  }
  // The same catalog in a directory of format 2 (written before the
  // checksum) is read, and opening it writes nothing, for writing or not.
  const std::string format_2 = "weave data directory, format 2\n";
  std::ofstream(t.path / "CATALOG", std::ios::trunc) << entries;
  std::ofstream(t.path / "FORMAT", std::ios::trunc) << format_2;
  {
    data_directory d(t.path, true);
    EXPECT_EQ(d.catalog(), tables);
    EXPECT_EQ(d.format(), 2u);
    EXPECT_THROW(d.upgrade(), std::logic_error);
  }
  {
    data_directory d(t.path);
    EXPECT_EQ(d.catalog(), tables);
    EXPECT_EQ(file_bytes(t.path / "CATALOG"), entries);
    EXPECT_EQ(file_bytes(t.path / "FORMAT"), format_2);
    // The upgrade, when FORMAT cannot be replaced (its temporary name is
    // taken by a directory): the catalog has its checksum, FORMAT still
    // says 2, which is what a crash between the two leaves. It reads.
    fs::create_directory(t.path / "FORMAT.tmp");
    EXPECT_THROW(d.upgrade(), data_directory_error);
    EXPECT_EQ(file_bytes(t.path / "CATALOG"), good);
    EXPECT_EQ(file_bytes(t.path / "FORMAT"), format_2);
    fs::remove(t.path / "FORMAT.tmp");
  }
  {
    data_directory d(t.path);
    EXPECT_EQ(d.catalog(), tables);
    EXPECT_EQ(d.format(), 2u);
    d.upgrade();
    EXPECT_EQ(d.format(), 4u);
    EXPECT_EQ(file_bytes(t.path / "CATALOG"), good);
    EXPECT_EQ(file_bytes(t.path / "FORMAT"), current);
  }
  EXPECT_EQ(data_directory(t.path).format(), 4u);
  // Format 3 is read as it is, and upgrade() rewrites FORMAT alone.
  const std::string format_3 = "weave data directory, format 3\n";
  std::ofstream(t.path / "FORMAT", std::ios::trunc) << format_3;
  {
    data_directory d(t.path, true);
    EXPECT_EQ(d.format(), 3u);
    EXPECT_EQ(d.catalog(), tables);
  }
  {
    data_directory d(t.path);
    EXPECT_EQ(d.format(), 3u);
    EXPECT_EQ(file_bytes(t.path / "FORMAT"), format_3);
    d.upgrade();
    EXPECT_EQ(d.format(), 4u);
    EXPECT_EQ(file_bytes(t.path / "CATALOG"), good);
    EXPECT_EQ(file_bytes(t.path / "FORMAT"), current);
  }
  // A format-2 catalog that has the checksum keeps being checked by it.
  std::ofstream(t.path / "FORMAT", std::ios::trunc) << format_2;
  std::string damaged = good;
  damaged[damaged.find("numbers")] = 'N';
  std::ofstream(t.path / "CATALOG", std::ios::trunc) << damaged;
  EXPECT_NE(message_of(t.path).find("does not match its checksum"), std::string::npos);
  // Format 1 is not read.
  std::ofstream(t.path / "FORMAT", std::ios::trunc) << "weave data directory, format 1\n";
  EXPECT_NE(message_of(t.path).find("format 1"), std::string::npos);
}

TEST(data_directory, a_catalog_that_does_not_match_its_checksum_is_refused) {
  temp_dir t;
  {
    data_directory d(t.path);
    d.add_table({0, "numbers", false});
    d.add_table({1, "names", true});
  }
  const std::string good = file_bytes(t.path / "CATALOG");
  const auto with = [&](const std::string& text) {
    std::ofstream(t.path / "CATALOG", std::ios::trunc) << text;
    return message_of(t.path);
  };
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  // Each kind read as the other: an integer table's 8-byte keys are valid
  // byte keys, so only the checksum can tell.
  EXPECT_NE(with(replaced("0 integer", "0 bytes")).find("does not match its checksum"), std::string::npos);
  EXPECT_NE(with(replaced("1 bytes", "1 integer")).find("does not match its checksum"), std::string::npos);
  EXPECT_NE(with(replaced("names", "namez")).find("does not match its checksum"), std::string::npos);
  const std::size_t sum = good.find("checksum ") + 9;
  std::string digit = good;
  digit[sum] = digit[sum] == '0' ? '1' : '0';
  EXPECT_NE(with(digit).find("does not match its checksum"), std::string::npos);
  EXPECT_NE(with(good.substr(0, good.size() - 2) + "\n").find("does not match its checksum"), std::string::npos);
  // The line break before the checksum, damaged: the checksum must not
  // become the end of the last table's name.
  std::string joined = good;
  joined[good.find("checksum ") - 1] = '*';
  EXPECT_NE(with(joined).find("does not match its checksum"), std::string::npos);
  with(good);
  const data_directory d(t.path);
  EXPECT_EQ(d.catalog(), (std::vector<catalog_entry>{{0, "numbers", false}, {1, "names", true}}));
}

}  // namespace
}  // namespace weave::durability
