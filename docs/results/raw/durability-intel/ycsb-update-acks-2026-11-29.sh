#!/bin/bash
W=${WEAVE:-build/release/weave}
out=${OUT:-ycsb-update-acks.jsonl}; : > $out
for r in 1 2 3; do
  for cfg in off async park deferred; do
    d=/var/tmp/weave-dur-$cfg-$r; rm -rf $d
    case $cfg in
      off) extra="";;
      async) extra="--durability async --data $d";;
      park) extra="--durability sync --data $d";;
      deferred) extra="--durability sync --data $d --acks deferred";;
    esac
    $W bench ycsb --records 1M --workload update --threads 1,2 --modes coro --seconds 2 --repeat 3 $extra --quiet | sed "s/^{/{\"round\":$r,\"cfg\":\"$cfg\",/" >> $out
    rm -rf $d
  done
done
echo finished
