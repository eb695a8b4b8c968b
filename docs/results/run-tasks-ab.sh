#!/usr/bin/env bash
# Issue 18, section 5: the Blink-tree on tasks before and after, in one
# window, on the configuration MxTasking's figures come from (YCSB C and A,
# Zipf 0.99, 20M records, one and two workers; its prefetch distance 3 is
# our d = 4). Usage: docs/results/run-tasks-ab.sh OLD_BINARY NEW_BINARY
# (each a `weave` built with ./build.sh release). The two binaries take
# turns, twice, in the opposite order the second time; the raw lines go to
# docs/results/raw/tasks-ab/.
# Optional: OUT (another raw directory), DISTANCES (default 0,4), OLD_SYNC
# and NEW_SYNC (default optimistic,schedule each: the new binary may know
# a kind the old one does not).
set -euo pipefail
old=$1
new=$2
out=${OUT:-docs/results/raw/tasks-ab}
distances=${DISTANCES:-0,4}
mkdir -p "$out"
for round in 1 2; do
  for wl in c a; do
    order="old new"
    [ "$round" = 2 ] && order="new old"  # neither binary always runs first
    for which in $order; do
      bin=$old
      sync=${OLD_SYNC:-optimistic,schedule}
      if [ "$which" = new ]; then
        bin=$new
        sync=${NEW_SYNC:-optimistic,schedule}
      fi
      "$bin" bench blink --records 20M --workload $wl --theta 0.99 --workers 1,2 --prefetch-distance "$distances" \
        --sync "$sync" --seconds 2 --repeat 3 --quiet > "$out/$wl-$which-$round.jsonl"
    done
  done
done
