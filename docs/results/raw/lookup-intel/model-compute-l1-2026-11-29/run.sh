#!/bin/bash
# The model's inputs before and after: old and new binaries in turn, two rounds, three structures.
OLD=${OLD:-/tmp/model-old/build/release/weave}; NEW=${NEW:-build/release/weave}; OUT=${OUT:-model-ab}
mkdir -p $OUT
for round in 1 2; do
  for s in "binary-search 512Mi" "hash 64Mi" "btree 100M"; do
    set -- $s
    if (( round == 1 )); then order="old new"; else order="new old"; fi
    for b in $order; do
      bin=$OLD; [ $b = new ] && bin=$NEW
      $bin bench model --structure $1 --keys $2 --lookups 500K --repeat 3 --quiet > $OUT/$1-$b-$round.jsonl
    done
  done
done
