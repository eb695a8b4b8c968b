#!/usr/bin/env bash
# Issue 18, section 3, against the issue's own binary: the binary of cc11400
# (main when the issue was filed, before any of its work) and today's take
# turns in one window, one configuration per process. Today's runs TPC-C twice,
# with its defaults and with --reserve-mib (memory for versions touched ahead,
# a user's choice that the old binary does not have). Run from the repository
# root after ./build.sh release:
#   git worktree add /tmp/issue18-old cc11400 && (cd /tmp/issue18-old && ./build.sh release)
#   OLD=/tmp/issue18-old/build/release/weave docs/results/run-issue18-ab.sh
# On the VMs of this work a page the process has not touched costs a fault in
# the guest and often one in the host, and memory another process has just
# freed is cheaper to fault than memory freed a while ago (touching 6 GiB took
# 5.4 s of system time right after the same touch, 7.5 s 20 s later). TPC-C's
# database grows as it runs, so a configuration that ran right after a process
# that freed gigabytes ran faster. So before every process a conditioner
# touches and frees CONDITION_GIB (8) GiB, and every process starts in that
# state; each round also reverses the order of the binaries.
set -euo pipefail
old=${OLD:?OLD must name the old weave binary}
new=${NEW:-build/release/weave}
reserve=${RESERVE_MIB:-4000}
# SIZES=large runs the issue's larger sizes instead (100 warehouses, 10^8
# records, naive and coro only, both YCSB thread counts in one process), in
# ROUNDS rounds (default 1): their loads take minutes. CONDITION_GIB=0 turns
# the conditioner off. FIRST_ROUND=N numbers the rounds from N and appends
# to the raw lines instead of replacing them (a second round, with the order
# reversed, run later in another sitting).
sizes=${SIZES:-small}
out=${OUT:-docs/results/raw/issue18-ab}
case $sizes in
  small)
    runs=$out/runs.jsonl rounds=${ROUNDS:-2} warehouses=16 modes="naive coro coro-pipeline"
    records=30M ycsb_threads="1 2" ;;
  large)
    runs=$out/runs-large.jsonl rounds=${ROUNDS:-1} warehouses=100 modes="naive coro"
    records=100M ycsb_threads="1,2" ;;
  *) echo "SIZES must be small or large, not '$sizes'" >&2; exit 2 ;;
esac
# MODES="naive" runs only those TPC-C modes, and YCSB=0 leaves YCSB out (a
# comparison of one mode).
modes=${MODES:-$modes}
[ "${YCSB:-1}" = 0 ] && ycsb_threads=""
first_round=${FIRST_ROUND:-1}
# Bounded so that the arithmetic below cannot overflow (each round takes minutes).
[[ $first_round =~ ^[1-9][0-9]{0,3}$ ]] || { echo "FIRST_ROUND must be 1..9999, not '$first_round'" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "ROUNDS must be 1..99, not '$rounds'" >&2; exit 2; }
mkdir -p "$out"
if [ "$first_round" -eq 1 ]; then : > "$runs"; fi
condition_gib=${CONDITION_GIB:-8}
condition() {  # touches each 4 KiB page of condition_gib GiB (private, as weave's memory), then exits
  [ "$condition_gib" -gt 0 ] || return 0
  python3 -c 'import mmap, sys
n = int(sys.argv[1]) << 30
m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(0, n, 4096): m[i] = 1' "$condition_gib"
}
one() {  # side, label, args...: one process, every line tagged with its side, label and round
  local side=$1 label=$2
  shift 2
  local bin=$new
  [ "$side" = old ] && bin=$old
  echo "$side: $label $*" >&2
  condition
  "$bin" "$@" --quiet | sed "s/^{/{\"side\":\"$side\",\"label\":\"$label\",\"round\":$round,/" >> "$runs"
}
sides() {  # round: the order of the sides in it
  if [ $(($1 % 2)) -eq 1 ]; then echo old new new-reserve; else echo new-reserve new old; fi
}
for round in $(seq "$first_round" $((first_round + rounds - 1))); do
  for threads in 1 2; do
    for mode in $modes; do
      args=(bench tpcc --warehouses $warehouses --threads $threads --modes ${mode%-pipeline} --seconds 2 --repeat 3)
      [ $mode = coro-pipeline ] && args+=(--pipeline)
      for side in $(sides "$round"); do
        case $side in
          new-reserve) one "$side" tpcc-${warehouses}w "${args[@]}" --reserve-mib "$reserve" ;;
          *) one "$side" tpcc-${warehouses}w "${args[@]}" ;;
        esac
      done
    done
  done
  for threads in $ycsb_threads; do
    for side in $(sides "$round"); do
      [ $side = new-reserve ] && continue  # read-only: nothing grows
      one "$side" ycsb-read-$records bench ycsb --records $records --workload read --threads $threads \
        --modes naive,coro --seconds 2 --repeat 3
    done
  done
done
