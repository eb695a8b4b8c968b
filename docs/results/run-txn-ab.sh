#!/usr/bin/env bash
# Reproduces docs/results/txn-commit.md: the transaction layer before and after issue 15 (no
# commit lock, phantom protection, growing tables), old and new binaries taking turns in one
# window. Run from the repository root after ./build.sh release, with OLD naming the weave
# binary built from the commit before (5368e5f):
#   git worktree add /tmp/weave-old 5368e5f && (cd /tmp/weave-old && ./build.sh release)
#   OLD=/tmp/weave-old/build/release/weave docs/results/run-txn-ab.sh
set -euo pipefail
old=${OLD:?OLD must name the old weave binary}
new=build/release/weave
out=docs/results/raw/txn-ab
mkdir -p "$out"
run() {  # name, args...
  local name=$1
  shift
  for side in old new; do
    local bin=$old
    [ $side = new ] && bin=$new
    echo "$side: $name" >&2
    "$bin" "$@" --quiet > "$out/$name-$side.jsonl"
  done
}
# YCSB, 10^8 records: read-only (naive and coro) and update-only (prefetch and coro), 1 and 2 threads.
run ycsb-read-100M bench ycsb --records 100M --workload read --threads 1,2 --batch 8 --modes naive,coro \
  --seconds 2 --repeat 3
# Update-only three times over (old, new, old, new, ...): its figures moved most between runs.
for round in 1 2 3; do
  run ycsb-update-100M-$round bench ycsb --records 100M --workload update --threads 1,2 --batch 8 \
    --modes prefetch,coro --seconds 2 --repeat 3
done
# TPC-C and TPC-CH, 100 warehouses, 1 and 2 threads, batches of 8, the pipeline.
for mix in tpcc tpcch; do
  run $mix-100w bench tpcc --warehouses 100 --mix $mix --threads 1,2 --batch 8 --pipeline \
    --modes naive,prefetch,coro --seconds 2 --repeat 3 --check
done
rm -f "$out"/ycsb-read-100M-si.jsonl "$out"/ycsb-read-100M-ssn.jsonl
# The serializable level against SI, read-only, 10^8 records (new binary only), twice.
for iso in si ssn si ssn; do
  $new bench ycsb --records 100M --workload read --isolation $iso --threads 1,2 --batch 8 --modes naive,coro \
    --seconds 2 --repeat 3 --quiet >> "$out/ycsb-read-100M-$iso.jsonl"
done
