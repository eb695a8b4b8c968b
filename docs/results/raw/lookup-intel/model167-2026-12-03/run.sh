#!/usr/bin/env bash
# Issue 18 section 6: the model with out-of-cache inputs (NEW) against the
# cached-input model (OLD, ab4ae33's build), two processes per structure and
# binary, alternating, one at a time.
set -euo pipefail
: "${OLD:?old weave}" "${NEW:?new weave}" "${OUT:?output dir}"
for round in ${ROUNDS:-1 2}; do
  for spec in "binary-search 512Mi" "hash 64Mi" "btree 100M"; do
    set -- $spec
    for which in new old; do
      bin=$NEW; [ "$which" = old ] && bin=$OLD
      "$bin" bench model --structure "$1" --keys "$2" --lookups 500K --repeat 3 --quiet \
        > "$OUT/model-$1-$which-$round.jsonl"
    done
  done
done
