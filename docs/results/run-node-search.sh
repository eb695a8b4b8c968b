#!/usr/bin/env bash
# Branchy against branch-free node search in the engine's B+-tree, one
# window: OLD and NEW `weave` binaries take turns, twice.
# Usage: docs/results/run-node-search.sh OLD_BINARY NEW_BINARY
set -euo pipefail
old=$1
new=$2
out=docs/results/raw/node-search
mkdir -p "$out"
for round in 1 2; do
  for which in old new; do
    bin=$old
    [ "$which" = new ] && bin=$new
    "$bin" bench ycsb --records 30M --workload read --ops-per-txn 10 --threads 1,2 --modes naive,prefetch,coro \
      --seconds 2 --repeat 3 --quiet > "$out/ycsb-read-30M-$which-$round.jsonl"
    "$bin" bench tpcc --warehouses 16 --threads 1 --modes naive,prefetch,coro --seconds 2 --repeat 5 --quiet \
      > "$out/tpcc-16w-$which-$round.jsonl"
  done
done
