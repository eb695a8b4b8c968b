#!/usr/bin/env bash
# Reproduces docs/results/ycsb.md: run from the repository root after ./build.sh release.
set -euo pipefail
w=build/release/weave
out=docs/results/raw
mkdir -p "$out"
# Read-only, 10 reads per transaction, 10^8 records (8-byte keys and values), uniform, 1 and 2 threads.
$w bench ycsb --records 100M --workload read --threads 1,2 --batch 8 --seconds 2 --repeat 3 --quiet \
  > $out/ycsb-read-100M.jsonl
# Update-only (10 blind writes per transaction) and the latency against batch size, on the same size.
$w bench ycsb --records 100M --workload update --threads 1 --batch 8 --seconds 2 --repeat 3 --quiet \
  > $out/ycsb-update-100M.jsonl
$w bench ycsb --records 100M --workload read --threads 1 --batch 1,2,4,8,16 --modes prefetch,coro --seconds 1 \
  --repeat 3 --quiet > $out/ycsb-batch-100M.jsonl
# Cache-resident: 10^4 records.
$w bench ycsb --records 10K --workload read --threads 1 --batch 8 --seconds 1 --repeat 5 --quiet \
  > $out/ycsb-read-10K.jsonl
# The serializable level against SI, on the mixed workload (2 read-modify-writes + 8 reads), 10^7 records.
for iso in si ssn; do
  $w bench ycsb --records 10M --workload mixed --isolation $iso --threads 1,2 --batch 8 --modes prefetch,coro \
    --seconds 1 --repeat 3 --quiet > $out/ycsb-mixed-10M-$iso.jsonl
done
# Byte-string keys of 24 bytes ("user" and 20 digits) against 8-byte integer keys, read-only, 10^7 records.
for kb in 8 24; do
  $w bench ycsb --records 10M --key-bytes $kb --workload read --threads 1 --batch 8 --modes naive,prefetch,coro \
    --seconds 1 --repeat 3 --quiet > $out/ycsb-read-10M-key$kb.jsonl
done
