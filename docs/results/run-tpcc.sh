#!/usr/bin/env bash
# Reproduces docs/results/tpcc.md: run from the repository root after ./build.sh release.
# 100 warehouses (about 13 GB loaded), 2 threads, every mode, 3 repeats taking turns; checks after each run.
# Each mix runs twice: strict batches of 8, then the pipeline (a finished transaction's slot refilled at once).
set -euo pipefail
w=build/release/weave
out=docs/results/raw
mkdir -p "$out"
for scheduler in batch pipeline; do
  flag=$([ $scheduler = pipeline ] && echo --pipeline || true)
  for mix in tpccr tpcch tpcc; do
    $w bench tpcc --warehouses 100 --mix $mix --threads 2 --batch 8 $flag --seconds 2 --repeat 3 \
      --check > $out/tpcc-$mix-100w-$scheduler.jsonl
  done
done
