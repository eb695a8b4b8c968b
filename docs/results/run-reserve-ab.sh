#!/usr/bin/env bash
# Issue 18, section 3: TPC-C with and without `--reserve-mib` (the runs' new
# versions in memory touched after the load), and the binary of the commit
# before, taking turns, one process each. Run from the repository root after
# ./build.sh release, with OLD naming the weave binary of the commit before:
#   OLD=/tmp/weave-old docs/results/run-reserve-ab.sh
set -euo pipefail
old=${OLD:?OLD must name the old weave binary}
new=${NEW:-build/release/weave}
reserve=${RESERVE_MIB:-3000}
out=${OUT:-docs/results/raw/reserve-ab}
mkdir -p "$out"
: > "$out/runs.jsonl"
run() {  # side, binary, args...: one run, every line tagged with its side
  local side=$1 bin=$2
  shift 2
  echo "$side: $*" >&2
  "$bin" "$@" --quiet | sed "s/^{/{\"side\":\"$side\",/" >> "$out/runs.jsonl"
}
for round in 1 2 3; do
  for threads in 1 2; do
    for pipeline in "" --pipeline; do
      modes=naive,coro
      [ -n "$pipeline" ] && modes=coro
      args=(bench tpcc --warehouses 16 --threads $threads --modes $modes $pipeline --seconds 2 --repeat 3)
      # Each round starts with another side, but the cycle stays the same,
      # so a side mostly follows the same other side (tpcc.md says what
      # that did to "old").
      sides=(old new reserve)
      for k in 0 1 2; do
        side=${sides[$(((k + round) % 3))]}
        case $side in
          old) run old "$old" "${args[@]}" ;;
          new) run new "$new" "${args[@]}" ;;
          reserve) run reserve "$new" "${args[@]}" --reserve-mib "$reserve" ;;
        esac
      done
    done
  done
done
