#!/usr/bin/env bash
# Section 0 on this VM: coro against the hand-written variants at 1 and 2
# threads, two processes per structure, one at a time.
set -euo pipefail
: "${NEW:?weave}" "${OUT:?output dir}"
for round in 1 2; do
  "$NEW" bench lookup --structure binary-search --keys 512Mi --lookups 1M --variants gp,amac,coro --threads 1,2 \
    --group 8,16,24,32,40,48 --repeat 3 --ceiling-bytes 0 --quiet > "$OUT/t2-binary-search-$round.jsonl"
  "$NEW" bench lookup --structure hash --keys 64Mi --lookups 2M --variants gp,amac,coro --threads 1,2 \
    --group 16,32,48,64 --repeat 3 --ceiling-bytes 0 --quiet > "$OUT/t2-hash-$round.jsonl"
  "$NEW" bench lookup --structure btree --keys 100M --lookups 1M --variants gp,amac,coro --threads 1,2 \
    --group 8,16,24,32,40,48 --repeat 3 --ceiling-bytes 0 --quiet > "$OUT/t2-btree-$round.jsonl"
done
