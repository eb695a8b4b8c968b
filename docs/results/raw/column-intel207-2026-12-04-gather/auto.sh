#!/bin/bash
# `auto` before (OLD: 346b82e, a whole run of 16 or more requests is a window)
# and after (NEW: whole short runs gathered until a window holds 256
# requests), alternating (the order reversed in even rounds), three rounds,
# from 10 to 1000 integer columns and
# on 100 mixed columns. Each line is one (binary, round, table, variant).
# Run from this directory: OLD=... NEW=... [ROUNDS="4 5 6"] ./auto.sh
set -eu
for round in ${ROUNDS:-1 2 3}; do
  for spec in "100 mixed 3000" "100 int 10000" "300 int 3000" "1000 int 1000" "10 int 100000"; do
    set -- $spec
    order="old new"; [ $((round % 2)) -eq 0 ] && order="new old"
    for tag in $order; do
      bin=$OLD; [ $tag = new ] && bin=$NEW
      "$bin" bench reconstruct --rows 1M --columns $1 --types $2 --queries $3 \
        --variants sequential,interleaved,auto --group 4,16 --repeat 3 2>/dev/null |
        grep us_per_query_mean | sed "s/^{/{\"binary\":\"$tag\",\"round\":$round,/" >> auto.jsonl
    done
  done
done
