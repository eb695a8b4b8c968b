#!/usr/bin/env bash
# Builds and runs tests/package/consumer/ against weave the three ways a
# project takes it in:
#   1. weave configured on its own (no tests, no command), installed into a
#      prefix, and found with find_package(weave CONFIG REQUIRED);
#   2. the source tree added with add_subdirectory, which must need neither
#      GTest nor CLI11 nor nlohmann-json, nor impose weave's -march and warnings;
#   3. the installed prefix through pkg-config: $CXX main.cpp $(pkg-config --cflags --libs weave).
# Any failed step, and any compiler warning, fails the test.
#
#   consumer_test.sh SOURCE_DIR CXX SCRATCH_DIR
# WEAVE_CMAKE names cmake (default: the one on PATH); CMAKE_GENERATOR is cmake's own.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 SOURCE_DIR CXX SCRATCH_DIR" >&2
  exit 2
fi
source_dir=$(cd "$1" && pwd)
cxx=$2
scratch=$3
cmake=${WEAVE_CMAKE:-cmake}
consumer=$source_dir/tests/package/consumer

rm -rf "$scratch"
mkdir -p "$scratch"
step() { echo "== $*"; }
# Runs a build command; fails if it fails or if its output has a warning.
build() {
  local log=$scratch/last.log
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    return 1
  fi
  cat "$log"
  if grep -q -i "warning" "$log"; then
    echo "consumer_test: a warning above" >&2
    return 1
  fi
}

step "1. install weave into a prefix, find_package it"
prefix=$scratch/prefix
build "$cmake" -S "$source_dir" -B "$scratch/weave" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
  -DWEAVE_BUILD_TESTS=OFF -DWEAVE_BUILD_APP=OFF -DWEAVE_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$prefix"
build "$cmake" --build "$scratch/weave" -j 2
"$cmake" --install "$scratch/weave" >/dev/null
for f in include/weave/version.hpp include/weave/txn/engine.hpp; do
  [ -f "$prefix/$f" ] || { echo "consumer_test: $f not installed" >&2; exit 1; }
done
build "$cmake" -S "$consumer" -B "$scratch/package" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
  -DWEAVE_CONSUMER_MODE=package -DCMAKE_PREFIX_PATH="$prefix"
build "$cmake" --build "$scratch/package" -j 2
"$scratch/package/consumer"

step "2. add_subdirectory of the source tree"
build "$cmake" -S "$consumer" -B "$scratch/subdirectory" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
  -DWEAVE_CONSUMER_MODE=subdirectory -DWEAVE_SOURCE_DIR="$source_dir" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
if grep -E -i "^(GTest|CLI11|nlohmann_json)" "$scratch/subdirectory/CMakeCache.txt"; then
  echo "consumer_test: the add_subdirectory build looked for the tests' or the command's dependencies" >&2
  exit 1
fi
# weave's own options (-march, warnings) are not forced on a project that adds it.
if grep -E -e "-march=|-Wconversion" "$scratch/subdirectory/compile_commands.json"; then
  echo "consumer_test: weave's -march or warning options reached the add_subdirectory build" >&2
  exit 1
fi
build "$cmake" --build "$scratch/subdirectory" -j 2
"$scratch/subdirectory/consumer"

step "3. pkg-config"
pc_dirs=$(find "$prefix" -name weave.pc -printf '%h\n')
[ -n "$pc_dirs" ] || { echo "consumer_test: weave.pc not installed" >&2; exit 1; }
flags=$(PKG_CONFIG_PATH=$pc_dirs pkg-config --cflags --libs weave)
echo "pkg-config --cflags --libs weave: $flags"
# shellcheck disable=SC2086  # the flags are words
build "$cxx" -Wall -Wextra -Werror -O2 "$consumer/main.cpp" -o "$scratch/pkg-config-consumer" $flags
"$scratch/pkg-config-consumer"
echo "consumer_test: all three builds ran"
