#!/usr/bin/env bash
# Reproduces docs/results/column.md: run from the repository root after ./build.sh release.
set -euo pipefail
w=build/release/weave
out=docs/results/raw
mkdir -p "$out"
# IN predicate, 10K values, INTEGER dictionaries from 1 MiB to 2 GiB (int32: 4 bytes a value).
sweep=256Ki,1Mi,4Mi,16Mi,64Mi,256Mi,512Mi
$w bench in-predicate --rows 1M --distinct $sweep --type int --fragment main --values 10K \
  --group 8,16,32 --repeat 5 --quiet --plot docs/results/in-predicate-int-main.png > $out/in-predicate-int-main.jsonl
$w bench in-predicate --rows 1M --distinct $sweep --type int --fragment delta --values 10K \
  --group 8,16,32 --repeat 5 --quiet --plot docs/results/in-predicate-int-delta.png > $out/in-predicate-int-delta.jsonl
# DECIMAL(18,2) and VARCHAR(24) dictionaries, Main and Delta.
$w bench in-predicate --rows 1M --distinct 64Mi --type decimal --fragment main --values 10K \
  --group 16 --repeat 5 --quiet > $out/in-predicate-decimal.jsonl
$w bench in-predicate --rows 1M --distinct 64Mi --type decimal --fragment delta --values 10K \
  --group 16 --repeat 5 --quiet >> $out/in-predicate-decimal.jsonl
$w bench in-predicate --rows 1M --distinct 32Mi --type varchar --fragment main --values 10K \
  --group 16 --repeat 5 --quiet > $out/in-predicate-varchar.jsonl
$w bench in-predicate --rows 1M --distinct 32Mi --type varchar --fragment delta --values 10K \
  --group 16 --repeat 5 --quiet >> $out/in-predicate-varchar.jsonl
# Tuple reconstruction: 1M rows, 1000 columns of distinct values.
$w bench reconstruct --rows 1M --columns 1000 --types int --queries 1000 --group 8,16,32 --repeat 3 --quiet \
  > $out/reconstruct-int.jsonl
$w bench reconstruct --rows 1M --columns 1000 --types mixed --queries 1000 --group 8,16,32 --repeat 3 --quiet \
  > $out/reconstruct-mixed.jsonl
