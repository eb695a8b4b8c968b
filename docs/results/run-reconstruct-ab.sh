#!/usr/bin/env bash
# Tuple reconstruction as the table widens, two binaries in turn (issue 18,
# section 0): each width runs in one process per binary, and every other
# round reverses their order. Run from the repository root:
#   OLD=/path/to/old/weave NEW=build/release/weave OUT=DIR docs/results/run-reconstruct-ab.sh
# The JSON lines go to $OUT/runs.jsonl, each tagged with its side and round.
set -euo pipefail
old=${OLD:?OLD must name the old weave binary}
new=${NEW:-build/release/weave}
out=${OUT:?OUT must name the directory for the raw lines}
columns=${COLUMNS_SWEEP:-10 100 300 1000}
rounds=${ROUNDS:-2}
[[ $rounds =~ ^[1-9]$ ]] || { echo "ROUNDS must be 1..9, not '$rounds'" >&2; exit 2; }
for c in $columns; do
  [[ $c =~ ^[1-9][0-9]{0,3}$ ]] || { echo "COLUMNS_SWEEP holds 1..9999, not '$c'" >&2; exit 2; }
done
mkdir -p "$out"
runs=$out/runs.jsonl
: > "$runs"
: > "$out/mlp.jsonl"
for round in $(seq 1 "$rounds"); do
  sides="old new"
  [ $((round % 2)) -eq 0 ] && sides="new old"
  for c in $columns; do
    for side in $sides; do
      bin=$new
      [ "$side" = old ] && bin=$old
      echo "round $round: $side, $c columns" >&2
      "$bin" bench reconstruct --rows 1M --columns "$c" --types int --queries 1000 \
        --variants sequential,interleaved,auto --repeat 3 --quiet |
        sed "s/^{/{\"side\":\"$side\",\"round\":$round,/" >> "$runs"
    done
  done
done
# What the machine allows at the same sizes: ns per miss with 16 and 32
# independent chains over a buffer of the 100- and 1000-column tables' size.
for bytes in 640Mi 6400Mi; do
  "$new" bench mlp --bytes "$bytes" --chains 1,16,32 --repeat 3 --quiet >> "$out/mlp.jsonl"
done
