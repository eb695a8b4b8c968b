#!/usr/bin/env bash
# TPC-CH taken apart (docs/results/tpcc.md): Q2* alone, NewOrder and Payment
# alone, StockLevel and OrderStatus alone, at 100 warehouses; then Q2* alone
# on one thread against batch size. Run from the repository root after
# ./build.sh release; 4-6 minutes.
set -euo pipefail
w=build/release/weave
out=docs/results/raw
mkdir -p "$out"
for mix in q2=100 new_order=50,payment=50 stock_level=100 order_status=100; do
  name=$(echo "$mix" | tr '=,' '-_')
  $w bench tpcc --warehouses 100 --mix "$mix" --threads 2 --batch 8 --pipeline \
    --modes prefetch,coro,hybrid --seconds 2 --repeat 3 --check > "$out/tpcc-$name-100w-pipeline.jsonl"
done
$w bench tpcc --warehouses 100 --mix q2=100 --suppliers 100 --threads 1 --batch 1,2,4,8,16 --pipeline \
  --modes naive,prefetch,multi-key,coro --seconds 1 --repeat 3 > "$out/tpcc-q2-100-100w-1thread-batches.jsonl"
