#pragma once
// CSV files as RFC 4180 defines them: fields separated by commas, records by
// CRLF or LF; a field in double quotes may hold commas, line breaks and
// doubled quotes. A UTF-8 byte-order mark before the header is skipped.

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

#include "weave/column/table.hpp"

namespace weave::column {

// A record longer than this is an error rather than a reason to read an
// endless input (the zero device, a file with no line breaks) into memory.
inline constexpr std::size_t max_csv_record_bytes = std::size_t{1} << 20;

// Reads records one at a time. Malformed input throws std::invalid_argument
// whose message starts with "line N:" (the line where the record starts).
class csv_reader {
 public:
  explicit csv_reader(std::istream& in);
  // The next record's fields; false at the end of the input.
  bool next(std::vector<std::string>& fields);
  // The line on which the record last returned by next() starts.
  std::size_t line() const noexcept { return record_line_; }

 private:
  std::streambuf* in_;
  std::size_t line_ = 1;
  std::size_t record_line_ = 0;
};

// Loads a CSV file with a header record of column names. `types` gives one
// type per column; empty means infer (INTEGER, BIGINT, DECIMAL(p,s) or
// VARCHAR(n), the narrowest that holds every value). Blank lines are skipped.
// Bad input throws std::invalid_argument naming the line (and the column,
// for a value that does not fit its type); nothing is returned then.
table load_csv(const std::string& path, const std::vector<column_type>& types = {});

}  // namespace weave::column
