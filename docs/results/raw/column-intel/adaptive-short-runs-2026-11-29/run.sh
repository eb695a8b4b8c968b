#!/bin/bash
# Old and new binaries in turn, the order reversed in every other pair:
# tuple reconstruction (many short runs: one per query) and an IN-predicate
# (one long run), sequential, interleaved and auto in each process.
# OLD=path/to/old/weave NEW=path/to/new/weave OUT=dir run.sh
set -e
OLD=${OLD:?} NEW=${NEW:?} OUT=${OUT:?}
tag() { python3 -c "
import json,sys
for l in sys.stdin:
    j=json.loads(l); j['binary']='$1'; print(json.dumps(j))"; }
for seed in 1 2 3 4 5 6 7 8; do
  if [ $((seed % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for b in $order; do
    if [ $b = old ]; then W=$OLD; else W=$NEW; fi
    $W bench reconstruct --rows 62500 --columns 200 --types int --queries 1000 \
      --variants sequential,interleaved,auto --group 16 --repeat 3 --seed $seed --quiet | tag $b >> $OUT/reconstruct-int-200.jsonl
    $W bench reconstruct --rows 62500 --columns 200 --types mixed --queries 1000 \
      --variants sequential,interleaved,auto --group 16 --repeat 3 --seed $seed --quiet | tag $b >> $OUT/reconstruct-mixed-200.jsonl
    $W bench in-predicate --rows 4M --distinct 1M --values 10K --type int --fragment main \
      --variants sequential,interleaved,auto --group 16 --repeat 3 --seed $seed --quiet | tag $b >> $OUT/in-int.jsonl
  done
done
