#!/usr/bin/env bash
# Reproduces docs/results/lookups.md: run from the repository root after ./build.sh release.
set -euo pipefail
w=build/release/weave
out=docs/results/raw
mkdir -p "$out"
$w bench mlp --bytes 4Gi --quiet > $out/mlp.jsonl
$w bench lookup --structure binary-search --keys 512Mi --lookups 1M --threads 1,2 \
  --variants naive,gp,amac,coro,coro-task,auto --group 8,16,24,32,48 --repeat 3 --quiet \
  --plot docs/results/binary-search-2GiB.png > $out/binary-search-2GiB.jsonl
$w bench lookup --structure hash --keys 64Mi --lookups 1M --threads 1,2 \
  --variants naive,gp,amac,coro,coro-task,auto --group 8,16,24,32,48 --repeat 3 --quiet \
  --plot docs/results/hash-64Mi.png > $out/hash-64Mi.jsonl
$w bench lookup --structure btree --keys 100M --lookups 1M --threads 1,2 \
  --variants naive,gp,amac,coro,coro-task,auto --group 8,16,24,32,48 --repeat 3 --quiet \
  --plot docs/results/btree-100M.png > $out/btree-100M.jsonl
$w bench lookup --structure binary-search --keys 256Ki --lookups 4M --threads 1 \
  --variants naive,coro-sequential,auto --repeat 5 --quiet --ceiling-bytes 0 > $out/binary-search-1MiB.jsonl
$w bench lookup --structure binary-search-str --keys 64Mi --lookups 1M --threads 1 \
  --variants naive,gp,amac,coro,coro-task,auto --group 8,16,32,48 --repeat 3 --quiet > $out/binary-search-str-1GiB.jsonl
$w bench model --structure binary-search --keys 512Mi --lookups 500K --repeat 3 --quiet \
  --plot docs/results/model-binary-search-2GiB.png > $out/model-binary-search-2GiB.jsonl
