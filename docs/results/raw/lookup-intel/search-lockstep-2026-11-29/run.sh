#!/usr/bin/env bash
# Old (OLD, f3301ca: one search per slot) and new (NEW: four searches per
# slot in lockstep) binaries in turn, PAIRS pairs, the order reversed in
# every other pair; each line gets "binary":"old"|"new" and lands in
# <structure>-<keys>.jsonl.
set -euo pipefail
: "${OLD:?path to the old weave}" "${NEW:?path to the new weave}"
PAIRS=${PAIRS:-4}
out=$(cd "$(dirname "$0")" && pwd)
run() {  # label binary file args...
  local label=$1 bin=$2 file=$3
  shift 3
  "$bin" bench lookup "$@" 2>/dev/null | sed "s/^{/{\"binary\":\"$label\",/" >> "$out/$file.jsonl"
}
pairs() {  # file args...
  local file=$1
  shift
  for i in $(seq "$PAIRS"); do
    order="old new"; [ $((i % 2)) -eq 0 ] && order="new old"
    for side in $order; do
      bin=$OLD; [ "$side" = new ] && bin=$NEW
      run "$side" "$bin" "$file" "$@"
    done
  done
}
pairs binary-search-512Mi --structure binary-search --keys 512Mi --lookups 1M \
  --variants naive,gp,amac,coro,auto --group 8,16,24,32,48 --repeat 3
PAIRS=2 pairs binary-search-str-64Mi --structure binary-search-str --keys 64Mi --lookups 1M \
  --variants naive,gp,amac,coro,auto --group 8,16,32,48 --repeat 3
PAIRS=2 pairs binary-search-256Ki --structure binary-search --keys 256Ki --lookups 4M \
  --variants naive,gp,coro,coro-sequential,auto --group 8,16,32 --repeat 3
