#!/usr/bin/env bash
# The last-level cache size read from a gradual latency curve (probe=2), against
# the binary before it, which took the OS's figure on such a curve: TPC-C and
# YCSB, old and new binaries taking turns in one window, the order reversed in
# every other round, one configuration set per process. Each binary keeps its
# own probe result (the probe's version is part of the file's key), so each
# runs with the sizes it would choose by itself; every line's context says
# which. Run from the repository root after ./build.sh release:
#   git worktree add /tmp/old-c9 c9aa9b0 && (cd /tmp/old-c9 && ./build.sh release)
#   OLD=/tmp/old-c9/build/release/weave OUT=docs/results/raw/DIR docs/results/run-llc-ab.sh
# As in run-issue18-ab.sh, a conditioner touches and frees CONDITION_GIB (8)
# GiB before every process, so that each starts with memory in the same state.
set -euo pipefail
old=${OLD:?OLD must name the old weave binary}
new=${NEW:-build/release/weave}
out=${OUT:?OUT must name the directory for the raw lines}
rounds=${ROUNDS:-2}
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "ROUNDS must be 1..99, not '$rounds'" >&2; exit 2; }
condition_gib=${CONDITION_GIB:-8}
[[ $condition_gib =~ ^[0-9]{1,3}$ ]] || { echo "CONDITION_GIB must be 0..999, not '$condition_gib'" >&2; exit 2; }
mkdir -p "$out"
runs=$out/runs.jsonl
: > "$runs"
condition() {
  [ "$condition_gib" -gt 0 ] || return 0
  python3 -c 'import mmap, sys
n = int(sys.argv[1]) << 30
m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(0, n, 4096): m[i] = 1' "$condition_gib"
}
one() {  # side, label, args...
  local side=$1 label=$2
  shift 2
  local bin=$new
  [ "$side" = old ] && bin=$old
  echo "round $round $side: $label" >&2
  condition
  "$bin" "$@" --quiet | sed "s/^{/{\"side\":\"$side\",\"label\":\"$label\",\"round\":$round,/" >> "$runs"
}
configs=(
  "tpcc-16w-1t bench tpcc --warehouses 16 --threads 1 --modes naive,coro --scheduler batch,pipeline --seconds 3 --repeat 3"
  "tpcc-16w-2t bench tpcc --warehouses 16 --threads 2 --modes naive,coro --scheduler batch,pipeline --seconds 3 --repeat 3"
  "tpcc-4w-1t bench tpcc --warehouses 4 --threads 1 --modes naive,prefetch,coro --seconds 3 --repeat 3"
  "ycsb-read-30M bench ycsb --records 30M --workload read --threads 1,2 --modes naive,coro --seconds 2 --repeat 3"
)
for round in $(seq 1 "$rounds"); do
  sides="old new"
  [ $((round % 2)) -eq 0 ] && sides="new old"
  for config in "${configs[@]}"; do
    read -r -a words <<< "$config"
    for side in $sides; do one "$side" "${words[0]}" "${words[@]:1}"; done
  done
done
