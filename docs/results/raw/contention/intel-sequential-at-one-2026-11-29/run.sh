#!/usr/bin/env bash
# `--batch auto` at one transaction in flight: a ring of one (OLD) against
# the same transactions run in order with plain loads (NEW). The two binaries
# take turns, ROUNDS rounds (default 2), the second in reverse order; every
# line is tagged with its side and round. Run from the repository root:
#   OLD=/path/to/old/weave NEW=build/release/weave OUT=DIR docs/results/raw/contention/intel-sequential-at-one-2026-11-29/run.sh
set -euo pipefail
old=${OLD:?OLD must name the old weave binary}
new=${NEW:-build/release/weave}
out=${OUT:?OUT must name a directory}
rounds=${ROUNDS:-2}
[[ $rounds =~ ^[1-9]$ ]] || { echo "ROUNDS must be 1..9, not '$rounds'" >&2; exit 2; }
mkdir -p "$out"
runs=$out/runs.jsonl
: > "$runs"
one() {  # side, round, workload label, args...
  local side=$1 round=$2 label=$3
  shift 3
  local bin=$new
  [ "$side" = old ] && bin=$old
  echo "$side round $round: $label" >&2
  "$bin" "$@" --quiet | sed "s/^{/{\"side\":\"$side\",\"label\":\"$label\",\"round\":$round,/" >> "$runs"
}
for round in $(seq 1 "$rounds"); do
  sides="old new"
  [ $((round % 2)) -eq 0 ] && sides="new old"
  for side in $sides; do
    one "$side" "$round" ycsb-zipf bench ycsb --workload update --theta 0.99 --threads 1,2 \
      --modes naive,prefetch,coro --batch 8,auto --seconds 2 --repeat 3 --retry 1000
  done
done
