#!/usr/bin/env bash
# Old (OLD, f3301ca: single-value loads prefetched into L1) and new (NEW:
# into L2) binaries in turn, PAIRS pairs per structure; every line lands in
# binary-search.jsonl / hash.jsonl with "binary":"old"|"new" added.
set -euo pipefail
: "${OLD:?path to the old weave}" "${NEW:?path to the new weave}"
PAIRS=${PAIRS:-4}
out=$(cd "$(dirname "$0")" && pwd)
run() {  # label binary structure args...
  local label=$1 bin=$2 file=$3
  shift 3
  "$bin" bench lookup "$@" 2>/dev/null | sed "s/^{/{\"binary\":\"$label\",/" >> "$out/$file.jsonl"
}
for i in $(seq "$PAIRS"); do
  for side in old new; do
    bin=$OLD; [ "$side" = new ] && bin=$NEW
    run "$side" "$bin" binary-search --structure binary-search --keys 512Mi --lookups 1M \
      --variants gp,amac,coro --group 16,24,32 --repeat 3
  done
done
for i in $(seq "$PAIRS"); do
  for side in new old; do
    bin=$OLD; [ "$side" = new ] && bin=$NEW
    run "$side" "$bin" hash --structure hash --keys 64Mi --lookups 2M \
      --variants gp,amac,coro --group 16,24,32 --repeat 3
  done
done
