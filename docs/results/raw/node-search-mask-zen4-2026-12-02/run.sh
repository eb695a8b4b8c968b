#!/usr/bin/env bash
# The node search with one mask at the end (new) against a mask per vector
# (old, 9d6b8c4), then the descent's step inlined against that: old and new
# take turns, one configuration per process, the order reversed in every
# other pair. OLD and NEW name the two binaries;
# SET picks the runs:
#   first  (runs.jsonl)       four pairs of four configurations
#   loop   (runs-2.jsonl)     NEW built with the loop that stops at the last
#                             vector holding a key (the variant not kept)
#   more   (runs-more.jsonl)  eight more pairs of the two configurations
#                             below 1.0 in the first set's medians
#   inline (runs-inline.jsonl) OLD the one-mask search (0cbf787), NEW with
#                             the descent's step inlined: naive only
#   inline-ycsb (runs-inline-ycsb.jsonl) eight more pairs of its YCSB
set -euo pipefail
old=${OLD:?} new=${NEW:?}
set_name=${SET:-first}
case $set_name in
  first) out=runs.jsonl; pairs="1 2 3 4" ;;
  loop) out=runs-2.jsonl; pairs="1 2 3 4" ;;
  more) out=runs-more.jsonl; pairs="1 2 3 4 5 6 7 8" ;;
  inline) out=runs-inline.jsonl; pairs="1 2 3 4 5 6" ;;
  inline-ycsb) out=runs-inline-ycsb.jsonl; pairs="1 2 3 4 5 6 7 8" ;;
  *) echo "run.sh: SET must be first, loop, more, inline or inline-ycsb" >&2; exit 2 ;;
esac
out=$(dirname "$0")/$out
: > "$out"
run() {  # label, pair, args...
  local label=$1 pair=$2
  shift 2
  local order="old new"
  [ $((pair % 2)) = 0 ] && order="new old"
  for side in $order; do
    local bin=$old
    [ $side = new ] && bin=$new
    "$bin" "$@" --quiet | sed "s/^{/{\"side\":\"$side\",\"label\":\"$label\",/" >> "$out"
  done
}
ycsb=(bench ycsb --records 30M --workload read --threads 1 --seconds 2 --repeat 3)
tpcc=(bench tpcc --warehouses 16 --threads 1 --seconds 2 --repeat 3)
for pair in $pairs; do
  case $set_name in
    first)
      for kind in stock_level new_order; do
        run tpcc-16w-$kind $pair "${tpcc[@]}" --mix $kind=100 --modes naive,coro
      done
      run tpcc-16w $pair "${tpcc[@]}" --modes naive,coro
      run ycsb-read-30M $pair "${ycsb[@]}" --modes naive,coro
      ;;
    loop)
      run ycsb-read-30M $pair "${ycsb[@]}" --modes naive,coro
      run tpcc-16w $pair "${tpcc[@]}" --modes naive,coro
      ;;
    more)
      run ycsb-read-30M $pair "${ycsb[@]}" --modes coro
      run tpcc-16w $pair "${tpcc[@]}" --modes naive
      ;;
    inline)
      run ycsb-read-30M $pair "${ycsb[@]}" --modes naive
      run tpcc-16w $pair "${tpcc[@]}" --modes naive
      ;;
    inline-ycsb)
      run ycsb-read-30M $pair "${ycsb[@]}" --modes naive
      ;;
  esac
done
