// The CSV loader and the type and value parsers it uses.

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include "fuzz/targets.hpp"
#include "support/temp_dir.hpp"
#include "weave/column/csv.hpp"

namespace weave::fuzz {

namespace {

// One file for the process's inputs, removed at exit.
const std::filesystem::path& csv_path() {
  static const test_support::temp_dir d;
  static const std::filesystem::path file = d.path / "input.csv";
  return file;
}

}  // namespace

void load_csv_bytes(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.empty()) return;
  const bool typed = (in[0] & 1) != 0;
  in.remove_prefix(1);
  std::vector<column::column_type> types;
  if (typed) {
    const std::size_t eol = std::min(in.find('\n'), in.size());
    std::string_view spec = in.substr(0, eol);
    in.remove_prefix(std::min(eol + 1, in.size()));
    for (;;) {
      const std::size_t semi = std::min(spec.find(';'), spec.size());
      try {
        types.push_back(column::column_type::parse(spec.substr(0, semi)));
      } catch (const std::invalid_argument&) {
        return;
      }
      if (semi == spec.size()) break;
      spec.remove_prefix(semi + 1);
    }
  }
  std::ofstream(csv_path(), std::ios::binary | std::ios::trunc).write(in.data(), static_cast<std::streamsize>(in.size()));
  try {
    const column::table t = column::load_csv(csv_path().string(), types);
    static_cast<void>(t.rows());
  } catch (const std::invalid_argument&) {  // what load_csv documents for bad input
  } catch (const std::exception& e) {
    finding(std::string("load_csv threw ") + typeid(e).name() + ": " + e.what());
  }
}

}  // namespace weave::fuzz
