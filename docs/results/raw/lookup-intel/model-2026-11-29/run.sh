#!/bin/bash
# The model against a sweep, the three structures of issue 18 section 6.
W=${W:-build/release/weave}
OUT=${OUT:-/tmp/m6}
for s in "binary-search 512Mi" "hash 64Mi" "btree 100M"; do
  set -- $s
  $W bench model --structure $1 --keys $2 --lookups 500K --repeat 3 --quiet > $OUT/model-$1${TAG}.jsonl
done
