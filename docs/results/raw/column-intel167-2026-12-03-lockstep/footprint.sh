#!/bin/bash
# Per-column cost against the table's footprint: widths and row counts that
# give 650 MB (10 x 10M, 100 x 1M, 1000 x 100K) and 6.5 GB (100 x 10M,
# 1000 x 1M), and two small tables. NEW names the binary; 10^8 / (columns x
# 1000) queries each.
set -eu
for spec in "10 10M" "100 1M" "1000 100K" "10 1M" "100 100K" "1000 1M" "100 10M"; do
  set -- $spec
  "$NEW" bench reconstruct --rows $2 --columns $1 --types int --queries $((100000000 / ($1 * 1000))) \
    --variants sequential,interleaved,auto --group 4,8,16 --repeat 3 2>/dev/null |
    grep us_per_query_mean | sed "s/^{/{\"rows_arg\":\"$2\",/" >> footprint.jsonl
done
