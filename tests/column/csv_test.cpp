#include "weave/column/csv.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace weave::column {
namespace {

using records = std::vector<std::vector<std::string>>;

records read_all(const std::string& text) {
  std::istringstream in(text);
  csv_reader reader(in);
  records out;
  std::vector<std::string> fields;
  while (reader.next(fields)) out.push_back(fields);
  return out;
}

// The oracle's writer: RFC 4180 quoting, a field quoted when it needs to be
// (or at random), records ended by LF or CRLF at random.
std::string write(const records& rs, std::mt19937_64& rng) {
  std::string out;
  for (const auto& r : rs) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (i > 0) out += ',';
      const bool needs = r[i].find_first_of(",\"\r\n") != std::string::npos || r[i].empty();
      if (needs || rng() % 4 == 0) {
        out += '"';
        for (char c : r[i]) out += c == '"' ? std::string("\"\"") : std::string(1, c);
        out += '"';
      } else {
        out += r[i];
      }
    }
    out += rng() % 2 ? "\r\n" : "\n";
  }
  return out;
}

TEST(csv_reader, reads_back_random_records_written_by_the_rules) {
  std::mt19937_64 rng(7);
  const std::string alphabet = "ab,\"\r\n x1";
  for (int round = 0; round < 300; ++round) {
    records rs(1 + rng() % 20);
    const std::size_t width = 1 + rng() % 6;
    for (auto& r : rs) {
      r.resize(width);
      for (auto& f : r) {
        const std::size_t n = rng() % 8;
        for (std::size_t i = 0; i < n; ++i) f += alphabet[rng() % alphabet.size()];
      }
    }
    ASSERT_EQ(read_all(write(rs, rng)), rs) << "round " << round;
  }
}

TEST(csv_reader, counts_lines_inside_quoted_fields) {
  std::istringstream in("a,b\n\"x\ny\",1\n2,\"unclosed\n");
  csv_reader reader(in);
  std::vector<std::string> f;
  ASSERT_TRUE(reader.next(f));
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(f, (std::vector<std::string>{"x\ny", "1"}));
  EXPECT_EQ(reader.line(), 2u);
  try {
    reader.next(f);
    FAIL() << "an unclosed quote was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "line 4: a quoted field is not closed");
  }
}

TEST(csv_reader, refuses_text_around_quotes) {
  EXPECT_THROW(read_all("\"ab\"cd\n"), std::invalid_argument);
  EXPECT_THROW(read_all("ab\"cd\"\n"), std::invalid_argument);
  EXPECT_EQ(read_all("\"a\"\"b\",c\n"), (records{{"a\"b", "c"}}));
}

TEST(csv_reader, refuses_a_nul_byte) {
  EXPECT_THROW(read_all(std::string("a,b\n1,x\0y\n", 10)), std::invalid_argument);
}

TEST(csv_reader, skips_a_byte_order_mark) {
  EXPECT_EQ(read_all("\xEF\xBB\xBFid,name\n1,x\n"), (records{{"id", "name"}, {"1", "x"}}));
}

TEST(csv_reader, bounds_a_record) {
  const std::string endless(max_csv_record_bytes + 10, 'x');
  EXPECT_THROW(read_all(endless), std::invalid_argument);
  const std::string long_field = "\"" + std::string(max_csv_record_bytes, 'x') + "\"\n";
  EXPECT_THROW(read_all(long_field), std::invalid_argument);
}

std::string temp_file(const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("weave-csv-" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

TEST(load_csv, takes_line_breaks_inside_quoted_values) {
  const std::string path = temp_file("\xEF\xBB\xBFid,note\r\n1,\"two\r\nlines\"\r\n2,plain\r\n");
  const table t = load_csv(path);
  std::filesystem::remove(path);
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.column(1).name, "note");
  EXPECT_EQ(t.row(0)[1], value(std::string("two\r\nlines")));
}

TEST(load_csv, refuses_a_column_with_no_name) {
  for (const char* header : {"a,,c\n", "a,   ,c\n", "a,\"\t \",c\n"}) {
    const std::string path = temp_file(std::string(header) + "1,2,3\n");
    EXPECT_THROW(load_csv(path), std::invalid_argument) << header;
    std::filesystem::remove(path);
  }
}

TEST(load_csv, refuses_a_directory_and_an_endless_input) {
  try {
    load_csv(std::filesystem::temp_directory_path().string());
    FAIL() << "a directory was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_csv("/dev/zero"), std::invalid_argument);
}

TEST(load_csv, a_wide_header_loads_in_linear_time) {
  std::string text;
  for (std::size_t c = 0; c < max_columns; ++c) text += (c ? ",c" : "c") + std::to_string(c);
  text += '\n';
  for (std::size_t c = 0; c < max_columns; ++c) text += c ? ",1" : "1";
  text += '\n';
  const std::string path = temp_file(text);
  const table t = load_csv(path);
  EXPECT_EQ(t.column_count(), max_columns);
  EXPECT_EQ(t.column("c99999").name, "c99999");
  std::filesystem::remove(path);
  const std::string wider = temp_file(text.substr(0, text.find('\n')) + ",extra\n");
  EXPECT_THROW(load_csv(wider), std::invalid_argument);
  std::filesystem::remove(wider);
}

}  // namespace
}  // namespace weave::column
