#!/usr/bin/env bash
# Issue 18, section 3 (the per-transaction path): the old and the new binary
# take turns, one configuration per process, so that no configuration runs on
# a database another one has grown. Run from the repository root after
# ./build.sh release, with OLD naming the weave binary of the commit before
# (2618106):
#   git worktree add /tmp/weave-old 2618106 && (cd /tmp/weave-old && ./build.sh release)
#   OLD=/tmp/weave-old/build/release/weave docs/results/run-per-txn-ab.sh
set -euo pipefail
old=${OLD:?OLD must name the old weave binary}
new=${NEW:-build/release/weave}
out=docs/results/raw/per-txn-ab
mkdir -p "$out"
: > "$out/runs.jsonl"
run() {  # label, args...: one run of each binary, old first, every line tagged
  local label=$1
  shift
  for side in old new; do
    local bin=$old
    [ $side = new ] && bin=$new
    echo "$side: $label" >&2
    "$bin" "$@" --quiet | sed "s/^{/{\"side\":\"$side\",\"label\":\"$label\",/" >> "$out/runs.jsonl"
  done
}
for round in 1 2; do
  # TPC-C, 16 warehouses, standard mix: every mode, one and two threads.
  for threads in 1 2; do
    for mode in naive prefetch coro; do
      run tpcc-16w bench tpcc --warehouses 16 --threads $threads --modes $mode --seconds 2 --repeat 3
    done
    run tpcc-16w bench tpcc --warehouses 16 --threads $threads --modes coro --pipeline --seconds 2 --repeat 3
  done
  # YCSB read-only, 30M records: naive and coro, one and two threads.
  for threads in 1 2; do
    run ycsb-read-30M bench ycsb --records 30M --workload read --threads $threads --modes naive,coro \
      --seconds 2 --repeat 3
  done
done
# TPC-C, 100 warehouses: naive and coro, one and two threads (once: the load takes a while).
for threads in 1 2; do
  for mode in naive coro; do
    run tpcc-100w bench tpcc --warehouses 100 --threads $threads --modes $mode --seconds 2 --repeat 3
  done
done
# TPC-C's five transactions one by one, 16 warehouses, one thread.
for kind in new_order payment order_status delivery stock_level; do
  for mode in naive coro; do
    run tpcc-16w-$kind bench tpcc --warehouses 16 --mix $kind=100 --threads 1 --modes $mode --seconds 2 --repeat 3
  done
done
