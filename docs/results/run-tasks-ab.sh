#!/usr/bin/env bash
# Issue 18, section 5: the Blink-tree on tasks before and after, in one
# window, on the configuration MxTasking's figures come from (YCSB C and A,
# Zipf 0.99, 20M records, one and two workers; its prefetch distance 3 is
# our d = 4). Usage: docs/results/run-tasks-ab.sh OLD_BINARY NEW_BINARY
# (each a `weave` built with ./build.sh release). The two binaries take
# turns, twice; the raw lines go to docs/results/raw/tasks-ab/.
set -euo pipefail
old=$1
new=$2
out=docs/results/raw/tasks-ab
mkdir -p "$out"
for round in 1 2; do
  for wl in c a; do
    for which in old new; do
      bin=$old
      [ "$which" = new ] && bin=$new
      "$bin" bench blink --records 20M --workload $wl --theta 0.99 --workers 1,2 --prefetch-distance 0,4 \
        --sync optimistic,schedule --seconds 2 --repeat 3 --quiet > "$out/$wl-$which-$round.jsonl"
    done
  done
done
