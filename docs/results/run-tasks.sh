#!/usr/bin/env bash
# Reproduces docs/results/tasks.md: run from the repository root after ./build.sh release.
set -euo pipefail
w=build/release/weave
out=docs/results/raw
mkdir -p "$out"
# 5x10^7 records, 8-byte keys and values, Zipf 0.99; 1 and 2 workers.
# C (lookups) and A (50% updates): every synchronization kind and prefetch distance, and both baselines.
for wl in c a; do
  $w bench blink --records 50M --workload $wl --theta 0.99 --workers 1,2 --prefetch-distance 0,1,2,3,4 \
    --sync latch,rwlatch,schedule,optimistic --baseline threads,coro --seconds 2 --repeat 3 --quiet \
    > $out/blink-$wl-50M.jsonl
done
# The load phase, prefetching off and at distance 3, against the thread baseline (a run is 30-60 s).
$w bench blink --records 50M --workload insert --workers 1,2 --prefetch-distance 0,3 --sync optimistic \
  --baseline threads --repeat 3 --quiet > $out/blink-insert-50M.jsonl
