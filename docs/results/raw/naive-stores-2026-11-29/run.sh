#!/bin/bash
# Old and new binaries in turn, one process each, PAIRS pairs (the order
# swapped every other pair): TPC-C at 16 warehouses. The files here came from
#   OLD=<d46530b's build> NEW=build/release/weave run.sh                (naive, 6 pairs)
#   OLD=<d46530b's build> NEW=build/release/weave MODE=coro PAIRS=4 run.sh
# with NEW built at 382c99f (naive-16w-t1.jsonl, coro-16w-t1.jsonl) and at
# 5f65f6a (naive-16w-t1-5f65f6a.jsonl).
set -euo pipefail
old=${OLD:?OLD must name the old weave binary} new=${NEW:-build/release/weave}
pairs=${PAIRS:-6}
[[ $pairs =~ ^[1-9][0-9]?$ ]] || { echo "PAIRS must be 1..99, not '$pairs'" >&2; exit 2; }
out=${OUT:-/tmp/runs-${MODE:-naive}-t${T:-1}.jsonl}
for i in $(seq "$pairs"); do
  for b in old new; do
    [ $((i % 2)) = 0 ] && b=$([ $b = old ] && echo new || echo old)
    w=$([ $b = old ] && echo "$old" || echo "$new")
    "$w" bench tpcc --warehouses 16 --threads "${T:-1}" --modes "${MODE:-naive}" --seconds 10 --repeat 1 --quiet |
      grep aggregate | sed "s/^{/{\"binary\":\"$b\",/" >> "$out"
  done
done
