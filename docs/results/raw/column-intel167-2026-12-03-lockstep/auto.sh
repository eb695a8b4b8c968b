#!/bin/bash
# `auto` before (NEW: lockstep, first window timed) and after (WARM: first
# window untimed) the warm-up window, alternating, three rounds: 100 mixed
# columns, 100 and 1000 integer columns, 10 integer columns.
set -eu
for round in 1 2 3; do
  for spec in "100 mixed 3000" "100 int 10000" "1000 int 1000" "10 int 100000"; do
    set -- $spec
    for tag in new warm; do
      bin=$NEW; [ $tag = warm ] && bin=$WARM
      "$bin" bench reconstruct --rows 1M --columns $1 --types $2 --queries $3 \
        --variants sequential,interleaved,auto --group 4,16 --repeat 3 2>/dev/null |
        grep us_per_query_mean | sed "s/^{/{\"binary\":\"$tag\",\"round\":$round,/" >> auto.jsonl
    done
  done
done
