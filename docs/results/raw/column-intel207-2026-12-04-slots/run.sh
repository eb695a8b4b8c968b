#!/bin/bash
# Short rows before (OLD: a ring makes min(group, columns) slots) and after
# (NEW: min(group, columns / 4 rounded up), a slot taking four columns),
# alternating, the order reversed in even rounds. Run from this directory.
set -eu
for round in ${ROUNDS:-1 2 3}; do
  for spec in "10 100000" "30 30000" "100 10000"; do
    set -- $spec
    order="old new"; [ $((round % 2)) -eq 0 ] && order="new old"
    for tag in $order; do
      bin=$OLD; [ $tag = new ] && bin=$NEW
      "$bin" bench reconstruct --rows 1M --columns $1 --types int --queries $2 \
        --variants sequential,interleaved,auto --group 4,16,32 --repeat 3 2>/dev/null |
        grep us_per_query_mean | sed "s/^{/{\"binary\":\"$tag\",\"round\":$round,/" >> runs.jsonl
    done
  done
done
