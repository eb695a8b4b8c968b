#!/usr/bin/env bash
# Threads stay inside the process's CPU mask: under `taskset -c N`, the
# context line says CPU N is the only one allowed and the one used, and more
# threads than allowed CPUs get a warning.
set -u
weave=$1
status=0
cpu=$(( $(nproc --all) - 1 ))
run=(bench ycsb --records 20K --seconds 0.02 --repeat 1 --modes naive --quiet)
out=$(taskset -c "$cpu" "$weave" "${run[@]}" --threads 1 2>err | head -1)
case "$out" in
  *"\"cpus_allowed\":[$cpu],\"cpus_used\":[$cpu]"*) echo "ok: one thread on CPU $cpu" ;;
  *) echo "FAIL: under taskset -c $cpu the context says: $out"; cat err; status=1 ;;
esac
out=$(taskset -c "$cpu" "$weave" "${run[@]}" --threads 2 2>err | head -1)
case "$out" in
  *"\"cpus_used\":[$cpu,$cpu]"*) echo "ok: two threads share CPU $cpu" ;;
  *) echo "FAIL: two threads under taskset -c $cpu: $out"; status=1 ;;
esac
grep -q "warning: 2 threads on 1 allowed CPU" err || { echo "FAIL: no warning for 2 threads on 1 CPU"; cat err; status=1; }
exit $status
