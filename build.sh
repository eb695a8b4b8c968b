#!/usr/bin/env bash
# One entry point for people and CI: installs what is missing, configures,
# builds and runs.
#
#   ./build.sh demo [args]   release build, then `weave demo`
#   ./build.sh test          tests (assertions on), all of them through ctest
#   ./build.sh asan          the tests under AddressSanitizer + UBSan
#   ./build.sh tsan          the tests under ThreadSanitizer
#   ./build.sh release       the release build only (build/release/weave)
#   ./build.sh fuzz TARGET [libFuzzer options]
#                            libFuzzer on a fuzz target (tests/fuzz/targets.hpp:
#                            recover_image, load_csv_bytes or cache_settings)
#                            under ASan + UBSan,
#                            its corpus in build/fuzz/corpus/TARGET
#
# CXX picks the compiler (default for release: clang++-19, the faster one for
# the coroutine variants; see README), except for fuzz, which needs clang++-19.
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake ninja-build g++ clang-19 libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libxxhash-dev python3-matplotlib pkgconf)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "build.sh: missing Debian packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "build.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${missing[@]}" >&2
}

configure_and_build() {  # dir, compiler, cmake args...
  local dir=$1 cxx=$2
  shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" "$@" >/dev/null
  cmake --build "$dir"
}

run_tests() {  # dir
  ctest --test-dir "$1" --output-on-failure -j "$(nproc)"
}

# Sanitizer builds keep line tables (-g1), enough for the file:line of every
# frame in a report; full debug information made them about 1.5x slower to
# compile (ASan, g++ 12, the largest file: 145 s against 100 s). ASan + UBSan
# builds at -O1, as ASan's documentation suggests: -O2 took that file 100 s
# against 56 s, and the ASan build was most of CI's time.
asan_opt_flags="-O1 -g1 -DNDEBUG"
tsan_opt_flags="-O2 -g1 -DNDEBUG"

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
  demo)
    install_missing
    configure_and_build build/release "${CXX:-clang++-19}" -DCMAKE_BUILD_TYPE=Release -DWEAVE_BUILD_TESTS=OFF
    exec build/release/weave demo "$@"
    ;;
  release)
    install_missing
    configure_and_build build/release "${CXX:-clang++-19}" -DCMAKE_BUILD_TYPE=Release -DWEAVE_BUILD_TESTS=OFF
    ;;
  test)
    install_missing
    configure_and_build build/test "${CXX:-g++}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEAVE_ASSERTIONS=ON
    run_tests build/test
    ;;
  asan)
    install_missing
    configure_and_build build/asan "${CXX:-g++}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEAVE_ASSERTIONS=ON \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$asan_opt_flags" -DWEAVE_SANITIZE=ON
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 run_tests build/asan
    ;;
  tsan)
    install_missing
    configure_and_build build/tsan "${CXX:-g++}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEAVE_ASSERTIONS=ON \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$tsan_opt_flags" -DWEAVE_TSAN=ON -DWEAVE_BUILD_APP=OFF
    run_tests build/tsan
    ;;
  fuzz)
    target=${1:-}
    case "$target" in
      recover_image | load_csv_bytes | cache_settings) shift ;;
      *) echo "usage: ./build.sh fuzz recover_image|load_csv_bytes|cache_settings [libFuzzer options]" >&2; exit 2 ;;
    esac
    packages+=(libclang-rt-19-dev)  # libFuzzer
    install_missing
    cmake -S . -B build/fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DWEAVE_ASSERTIONS=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$asan_opt_flags" -DWEAVE_SANITIZE=ON -DWEAVE_FUZZ=ON \
      -DWEAVE_BUILD_APP=OFF -DWEAVE_BUILD_EXAMPLES=OFF >/dev/null
    cmake --build build/fuzz --target "fuzz_$target" fuzz_write_seeds
    corpus=build/fuzz/corpus/$target
    [ -d "$corpus" ] || build/fuzz/tests/fuzz_write_seeds "$target" "$corpus"
    exec "build/fuzz/tests/fuzz_$target" "$corpus" "$@"
    ;;
  *)
    echo "usage: ./build.sh demo|test|asan|tsan|release|fuzz" >&2
    exit 2
    ;;
esac
