#!/bin/bash
# More pairs of the IN-predicate alone (one long run per query), seeds 11-18.
set -e
OLD=${OLD:?} NEW=${NEW:?} OUT=${OUT:?}
tag() { python3 -c "
import json,sys
for l in sys.stdin:
    j=json.loads(l); j['binary']='$1'; print(json.dumps(j))"; }
for seed in 11 12 13 14 15 16 17 18; do
  if [ $((seed % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for b in $order; do
    if [ $b = old ]; then W=$OLD; else W=$NEW; fi
    $W bench in-predicate --rows 4M --distinct 1M --values 10K --type int --fragment main \
      --variants sequential,interleaved,auto --group 16 --repeat 5 --seed $seed --quiet | tag $b >> $OUT/in-int-more.jsonl
  done
done
