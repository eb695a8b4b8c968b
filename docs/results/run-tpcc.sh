#!/usr/bin/env bash
# Reproduces docs/results/tpcc.md: run from the repository root after ./build.sh release.
# 100 warehouses (about 11 GB loaded), 2 threads, every mode, 3 repeats taking turns; checks after each mix.
set -euo pipefail
w=build/release/weave
out=docs/results/raw
mkdir -p "$out"
for mix in tpccr tpcch tpcc; do
  $w bench tpcc --warehouses 100 --mix $mix --suppliers 100 --threads 2 --batch 8 --seconds 2 --repeat 3 --check \
    > $out/tpcc-$mix-100w.jsonl
done
