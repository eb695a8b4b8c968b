#!/usr/bin/env bash
# The YCSB part of run-issue18-ab.sh alone, in more rounds (the order of the
# binaries reversed in every other round, the same 8 GiB conditioner before
# each process): run from the repository root with OLD set.
set -euo pipefail
old=${OLD:?} new=${NEW:-build/release/weave} out=${OUT:?} rounds=${ROUNDS:-4}
runs=$out/runs-ycsb.jsonl
: > "$runs"
condition() {
  python3 -c 'import mmap
n = 8 << 30
m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(0, n, 4096): m[i] = 1'
}
for round in $(seq 1 "$rounds"); do
  for threads in 1 2; do
    sides="old new"; [ $((round % 2)) -eq 0 ] && sides="new old"
    for side in $sides; do
      bin=$new; [ $side = old ] && bin=$old
      condition
      "$bin" bench ycsb --records 30M --workload read --threads $threads --modes naive,coro --seconds 2 --repeat 3 \
        --quiet | sed "s/^{/{\"side\":\"$side\",\"label\":\"ycsb-read-30M\",\"round\":$round,/" >> "$runs"
    done
  done
done
