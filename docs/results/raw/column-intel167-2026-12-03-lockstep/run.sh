#!/bin/bash
# Tuple reconstruction, old binary (201532f) against new (columns in lockstep),
# alternating within each width, two rounds. OLD and NEW name the binaries.
set -eu
out=${OUT:-runs.jsonl}
for round in 1 2; do
  for spec in "10 100000" "100 10000" "300 3000" "1000 1000"; do
    set -- $spec
    for tag in old new; do
      bin=$OLD; [ $tag = new ] && bin=$NEW
      "$bin" bench reconstruct --rows 1M --columns $1 --types int --queries $2 \
        --variants sequential,interleaved,auto --group 4,8,16,32 --repeat 3 2>/dev/null |
        grep us_per_query_mean | sed "s/^{/{\"binary\":\"$tag\",\"round\":$round,/" >> "$out"
    done
  done
done
