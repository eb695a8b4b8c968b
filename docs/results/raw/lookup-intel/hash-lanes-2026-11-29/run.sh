#!/usr/bin/env bash
# Old (OLD, d409883: one probe per slot) and new (NEW: four probes per slot,
# each refilled as it ends) binaries in turn, PAIRS pairs, the order
# reversed in every other pair; each line gets "binary":"old"|"new" and
# lands in <structure>-<keys>.jsonl.
set -euo pipefail
: "${OLD:?path to the old weave}" "${NEW:?path to the new weave}"
PAIRS=${PAIRS:-4}
case $PAIRS in [1-9] | [1-9][0-9]) ;; *) echo "run.sh: PAIRS must be 1..99" >&2; exit 1 ;; esac
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
pairs hash-64Mi --structure hash --keys 64Mi --lookups 2M --threads 1,2 \
  --variants naive,gp,amac,coro,auto --group 8,16,24,32,48 --repeat 3
PAIRS=2 pairs hash-64Ki --structure hash --keys 64Ki --lookups 4M \
  --variants naive,amac,coro,coro-sequential,auto --group 8,16,32 --repeat 3
