// Recovery against damaged and odd data directories.

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <typeinfo>
#include <vector>

#include "fuzz/directory_image.hpp"
#include "fuzz/targets.hpp"
#include "support/engine_contents.hpp"
#include "support/temp_dir.hpp"
#include "support/upsert.hpp"
#include "weave/exec/policy.hpp"
#include "weave/exec/sync_wait.hpp"
#include "weave/txn/engine.hpp"

namespace weave::fuzz {

namespace fs = std::filesystem;

namespace {

using test_support::engine_contents;
using test_support::upsert;

// What `after` lost, changed or gained against `before`, briefly.
std::string difference(const engine_contents& before, engine_contents after) {
  std::string out;
  for (const auto& [name, records] : before) {
    for (const auto& [k, v] : records) {
      const auto it = after[name].find(k);
      if (it == after[name].end()) {
        out += " lost " + name + "/" + k;
      } else if (it->second != v) {
        out += " changed " + name + "/" + k;
      }
    }
    for (const auto& [k, v] : after[name]) {
      if (!records.contains(k)) out += " gained " + name + "/" + k;
    }
  }
  return out.substr(0, 400);
}

// One directory for the process's inputs, removed at exit.
const fs::path& scratch() {
  static const test_support::temp_dir d;
  return d.path;
}

// engine::open on a directory it cannot use: the errors it documents for
// damaged files are a refusal, anything else a finding (a system_error too:
// the scratch directory's files are regular and readable).
std::unique_ptr<txn::engine> open_or_refuse(const fs::path& dir, const txn::engine_options& options) {
  try {
    return txn::engine::open(dir, options);
  } catch (const durability::log_corruption&) {
  } catch (const durability::data_directory_error&) {
  } catch (const std::exception& e) {
    finding(std::string("engine::open threw ") + typeid(e).name() + ": " + e.what());
  }
  return nullptr;
}

}  // namespace

void recover_image(const std::uint8_t* data, std::size_t size) {
  const fs::path& dir = scratch();
  const std::uint8_t flags = unpack(std::string_view(reinterpret_cast<const char*>(data), size), dir);
  txn::engine_options options;
  options.log.group_window = std::chrono::microseconds(50);
  options.read_only = (flags & writable_flag) == 0;
  std::unique_ptr<txn::engine> e = open_or_refuse(dir, options);
  if (!e) return;
  // From here on every exception is a finding: the directory was accepted.
  engine_contents first;
  try {
    first = test_support::contents(*e);
    if (options.read_only) return;
    // One more commit, which the next opening must find.
    txn::table* t = e->tables().empty() ? &e->create_table("fuzz", txn::key_kind::integer) : e->tables()[0];
    txn::transaction w = e->begin();
    const std::string value = "fuzz-" + std::to_string(size);
    const bool integer = t->keys() == txn::key_kind::integer;
    const txn::status s = integer ? upsert(w, *t, std::uint64_t{7}, value) : upsert(w, *t, std::string("fuzz"), value);
    if (s != txn::status::ok) finding("a put into a recovered table failed");
    if (w.commit() != txn::commit_status::committed) finding("a commit after recovery failed");
    first[t->name()][integer ? "7" : "fuzz"] = value;
    if (flags & checkpoint_flag) e->checkpoint();
    e.reset();
  } catch (const std::exception& x) {
    finding(std::string("an engine that opened the directory threw: ") + x.what());
  }
  options.read_only = true;
  engine_contents second;
  try {
    second = test_support::contents(*txn::engine::open(dir, options));
  } catch (const std::exception& x) {
    finding(std::string("a directory that opened and took a commit is refused when opened again: ") + x.what());
  }
  if (second != first) finding("opened again, the directory holds other records:" + difference(first, second));
}

}  // namespace weave::fuzz
