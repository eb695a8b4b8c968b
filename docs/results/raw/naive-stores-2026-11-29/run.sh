#!/bin/bash
# Old and new binaries in turn: naive TPC-C, 16 warehouses.
OLD=/tmp/old-head/build/release/weave NEW=/work/main/build/release/weave
for i in 1 2 3 4; do
  for b in old new; do
    [ $((i % 2)) = 0 ] && b=$([ $b = old ] && echo new || echo old)
    W=$([ $b = old ] && echo $OLD || echo $NEW)
    $W bench tpcc --warehouses 16 --threads ${T:-1} --modes ${MODE:-naive} --seconds 10 --repeat 1 --quiet | grep aggregate | sed "s/^{/{\"binary\":\"$b\",/" >> /tmp/ab1/runs-${MODE:-naive}-t${T:-1}.jsonl
  done
done
