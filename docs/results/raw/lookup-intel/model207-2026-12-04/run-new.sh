#!/usr/bin/env bash
# The new model alone, three processes per structure, one at a time.
set -euo pipefail
: "${NEW:?new weave}" "${OUT:?output dir}"
for round in ${ROUNDS:-1 2 3}; do
  for spec in "binary-search 512Mi" "hash 64Mi" "btree 100M"; do
    set -- $spec
    "$NEW" bench model --structure "$1" --keys "$2" --lookups 500K --repeat 3 --quiet > "$OUT/model-$1-new-$round.jsonl"
  done
done
