#include "weave/column/csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ios>
#include <stdexcept>
#include <string_view>

namespace weave::column {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The narrowest type that holds every field of a column.
column_type infer_type(const std::vector<std::string>& fields) {
  bool int32_ok = true, int64_ok = true, decimal_ok = true;
  unsigned whole_digits = 1, scale = 0;
  std::size_t longest = 1;
  for (const std::string& f : fields) {
    longest = std::max(longest, f.size());
    if (int32_ok) {
      try {
        parse_value(column_type::integer(), f);
      } catch (const std::invalid_argument&) {
        int32_ok = false;
      }
    }
    if (int64_ok && !int32_ok) {
      try {
        parse_value(column_type::bigint(), f);
      } catch (const std::invalid_argument&) {
        int64_ok = false;
      }
    }
    if (decimal_ok) {
      std::string_view s(f);
      if (!s.empty() && s.front() == '-') s.remove_prefix(1);
      const std::size_t point = s.find('.');
      std::string_view whole = s.substr(0, point);
      const std::string_view frac = point == std::string_view::npos ? std::string_view{} : s.substr(point + 1);
      whole.remove_prefix(std::min(whole.find_first_not_of('0'), whole.size()));
      if ((!whole.empty() && !all_digits(whole)) || (!frac.empty() && !all_digits(frac)) ||
          (s.empty() || s == ".")) {
        decimal_ok = false;
      } else {
        whole_digits = std::max<unsigned>(whole_digits, static_cast<unsigned>(whole.size()));
        scale = std::max<unsigned>(scale, static_cast<unsigned>(frac.size()));
      }
    }
  }
  if (int32_ok) return column_type::integer();
  if (int64_ok) return column_type::bigint();
  if (decimal_ok && whole_digits + scale <= 18) return column_type::decimal(whole_digits + scale, scale);
  if (longest > 255) throw std::invalid_argument("a value is longer than 255 bytes, the longest VARCHAR");
  return column_type::varchar(static_cast<unsigned>(longest));
}

template <class T>
basic_column<T> main_column(std::vector<T> values, unsigned max_length) {
  std::vector<T> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  bit_packed_vector codes(bit_packed_vector::bits_for(sorted.size()), values.size());
  for (const T& v : values) {
    codes.push_back(static_cast<code_t>(std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin()));
  }
  basic_column<T> column(max_length);
  if constexpr (std::is_same_v<T, std::string>) {
    column.set_main(front_coded_dictionary(sorted), std::move(codes));
  } else {
    huge_buffer<T> dict(sorted.size());
    std::copy(sorted.begin(), sorted.end(), dict.data());
    column.set_main(sorted_dictionary<T>(std::move(dict)), std::move(codes));
  }
  return column;
}

}  // namespace

csv_reader::csv_reader(std::istream& in) : in_(in.rdbuf()) {
  // A UTF-8 byte-order mark (EF BB BF) is not part of the first field.
  static constexpr unsigned char bom[] = {0xEF, 0xBB, 0xBF};
  std::size_t matched = 0;
  while (matched < 3 && in_->sgetc() == bom[matched]) {
    in_->sbumpc();
    ++matched;
  }
  if (matched != 0 && matched != 3) {
    throw std::invalid_argument("line 1: the input starts with part of a byte-order mark");
  }
}

bool csv_reader::next(std::vector<std::string>& fields) {
  using traits = std::char_traits<char>;
  fields.clear();
  record_line_ = line_;
  int c = in_->sbumpc();
  if (c == traits::eof()) return false;
  enum class state { field_start, unquoted, quoted, after_quote } at = state::field_start;
  std::string field;
  std::size_t bytes = 0;
  for (;; c = in_->sbumpc()) {
    if (c == traits::eof()) {
      if (at == state::quoted) throw std::invalid_argument(fmt::format("line {}: a quoted field is not closed", record_line_));
      fields.push_back(std::move(field));
      return true;
    }
    if (++bytes > max_csv_record_bytes) {
      throw std::invalid_argument(fmt::format("line {}: a record longer than {} bytes", record_line_, max_csv_record_bytes));
    }
    const char ch = static_cast<char>(c);
    if (ch == '\0') throw std::invalid_argument(fmt::format("line {}: a NUL byte (is this a text file?)", line_));
    // Outside quotes a comma ends the field and a line break (LF, CRLF or a lone CR) the record.
    if (at != state::quoted && (ch == ',' || ch == '\n' || ch == '\r')) {
      fields.push_back(std::move(field));
      field.clear();
      at = state::field_start;
      if (ch == ',') continue;
      ++line_;
      if (ch == '\r' && in_->sgetc() == '\n') in_->sbumpc();
      return true;
    }
    switch (at) {
      case state::field_start:
      case state::unquoted:
        if (ch == '"') {
          if (at == state::unquoted) {
            throw std::invalid_argument(fmt::format(
                "line {}: a quote inside an unquoted field (quote the whole field and double the quote)", line_));
          }
          at = state::quoted;
        } else {
          field += ch;
          at = state::unquoted;
        }
        break;
      case state::quoted:
        if (ch == '"') {
          at = state::after_quote;
        } else {
          if (ch == '\n') ++line_;
          field += ch;
        }
        break;
      case state::after_quote:
        if (ch != '"') throw std::invalid_argument(fmt::format("line {}: text after the closing quote of a field", line_));
        field += '"';  // a doubled quote stands for one
        at = state::quoted;
        break;
    }
  }
}

namespace {

// The header and the rows of a CSV file, each row's fields by column, with
// the line each row starts on.
void read_records(std::istream& in, const std::vector<column_type>& types, std::vector<std::string>& names,
                  std::vector<std::vector<std::string>>& fields, std::vector<std::size_t>& line_of) {
  csv_reader reader(in);
  if (!reader.next(names)) throw std::invalid_argument("the file is empty: a header line is needed");
  if (names.size() > max_columns) {
    throw std::invalid_argument(
        fmt::format("line 1: {} columns; a table has at most {}", names.size(), max_columns));
  }
  // A name of blanks alone could not be told from another, nor typed as --column.
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (names[c].find_first_not_of(" \t") == std::string::npos)
      throw std::invalid_argument(fmt::format("line 1: column {} has no name", c + 1));
  }
  if (!types.empty() && types.size() != names.size()) {
    throw std::invalid_argument(fmt::format("{} types given for {} columns", types.size(), names.size()));
  }
  fields.assign(names.size(), {});
  std::vector<std::string> row;
  while (reader.next(row)) {
    if (row.size() == 1 && row[0].empty()) continue;  // a blank line
    if (row.size() != names.size()) {
      throw std::invalid_argument(fmt::format("line {}: {} field{}, but the header has {} columns",
                                              reader.line(), row.size(), row.size() == 1 ? "" : "s",
                                              names.size()));
    }
    for (std::size_t c = 0; c < row.size(); ++c) fields[c].push_back(std::move(row[c]));
    line_of.push_back(reader.line());
  }
}

// The table a CSV text holds (load_csv, without the file).
table read_table(std::istream& in, const std::vector<column_type>& types) {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> fields;
  std::vector<std::size_t> line_of;  // file line of each row
  read_records(in, types, names, fields, line_of);
  if (line_of.empty()) throw std::invalid_argument("no rows below the header");

  table t;
  for (std::size_t c = 0; c < names.size(); ++c) {
    column_type type;
    if (!types.empty()) {
      type = types[c];
    } else {
      try {
        type = infer_type(fields[c]);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("column '{}': {}", names[c], e.what()));
      }
    }
    t.add_column(names[c], type);
  }
  for (std::size_t c = 0; c < names.size(); ++c) {
    const column_type type = t.column(c).type;
    std::vector<value> values;
    values.reserve(fields[c].size());
    for (std::size_t r = 0; r < fields[c].size(); ++r) {
      try {
        values.push_back(parse_value(type, fields[c][r]));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("line {}, column '{}': {}", line_of[r], names[c], e.what()));
      }
    }
    fields[c].clear();
    fields[c].shrink_to_fit();
    switch (type.kind) {
      case type_kind::integer: {
        std::vector<std::int32_t> v;
        for (const auto& x : values) v.push_back(std::get<std::int32_t>(x));
        t.set_column_data(c, main_column(std::move(v), 255));
        break;
      }
      case type_kind::varchar: {
        std::vector<std::string> v;
        for (auto& x : values) v.push_back(std::move(std::get<std::string>(x)));
        t.set_column_data(c, main_column(std::move(v), type.length));
        break;
      }
      default: {
        std::vector<std::int64_t> v;
        for (const auto& x : values) {
          v.push_back(type.kind == type_kind::decimal ? std::get<decimal>(x).units : std::get<std::int64_t>(x));
        }
        t.set_column_data(c, main_column(std::move(v), 255));
        break;
      }
    }
  }
  return t;
}

}  // namespace

table load_csv(const std::string& path, const std::vector<column_type>& types) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::invalid_argument(fmt::format("'{}' is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(fmt::format("cannot read '{}'", path));
  // Every complaint about the text names the file.
  try {
    return read_table(in, types);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", path, e.what()));
  } catch (const std::ios_base::failure&) {  // the device failed, not the text
    throw std::runtime_error(fmt::format("cannot read '{}': a read error", path));
  }
}

}  // namespace weave::column
