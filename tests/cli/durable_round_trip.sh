#!/usr/bin/env bash
# A benchmark on a durable engine leaves a data directory that `weave
# recover` reads back whole (every record of the table, under either mode,
# and with deferred acknowledgements, in YCSB and TPC-C);
# a byte flipped in the middle of its log is reported, naming the file.
set -u
weave=$1
status=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for mode in sync async deferred; do
  dir=$scratch/$mode
  args=(--durability $mode)
  [ $mode = deferred ] && args=(--durability sync --acks deferred)  # the worker acknowledges its commits later
  if ! "$weave" bench ycsb --records 20K --workload update --seconds 0.1 --repeat 1 --modes naive,coro \
      "${args[@]}" --data "$dir" --quiet > "$scratch/out" 2>&1; then
    echo "FAIL: the $mode run failed:"; cat "$scratch/out"; status=1; continue
  fi
  grep -q "\"durability\":\"${args[1]}\".*\"log_bytes_per_txn\"" "$scratch/out" || { echo "FAIL: no log figures under $mode"; status=1; }
  if [ $mode = deferred ] && ! grep -q '"acks":"deferred"' "$scratch/out"; then
    echo "FAIL: the deferred run does not say so"; status=1
  fi
  out=$("$weave" recover --data "$dir" 2>&1)
  case "$out" in
    *"every checksum verified"*"table usertable (integer keys): 20000 rows"*) echo "ok: $mode: recovered 20000 rows" ;;
    *) echo "FAIL: $mode: recover said: $out"; status=1 ;;
  esac
done
# TPC-C with deferred acknowledgements: its consistency checks hold, its
# interleaved run counts commits, and the directory reads back.
dir=$scratch/tpcc
if ! "$weave" bench tpcc --warehouses 1 --seconds 0.2 --repeat 1 --modes naive,coro --check \
    --durability sync --acks deferred --data "$dir" --quiet > "$scratch/out" 2>&1; then
  echo "FAIL: the TPC-C run failed:"; cat "$scratch/out"; status=1
elif ! grep -q '"mode":"coro".*"run_type":"aggregate".*"commits":[1-9].*"acks":"deferred".*"consistent":true' "$scratch/out"; then
  echo "FAIL: the deferred TPC-C run did not count its commits:"; cat "$scratch/out"; status=1
else
  case "$("$weave" recover --data "$dir" 2>&1)" in
    *"every checksum verified"*"table stock (integer keys): "*) echo "ok: tpcc: deferred run recovered" ;;
    *) echo "FAIL: tpcc: recover said otherwise"; status=1 ;;
  esac
fi
# The first segment holds the load and the runs: damage 100 KB into it.
segment=$scratch/sync/wal-000001.log
printf 'X' | dd of="$segment" bs=1 seek=100000 conv=notrunc status=none
err=$("$weave" recover --data "$scratch/sync" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"wal-000001.log"* ]]; then
  echo "ok: damage reported: $err"
else
  echo "FAIL: damage gave exit $rc: $err"; status=1
fi
# A file of the directory that is not a regular file (here a device that
# never ends) is refused at once, not read.
rm "$scratch/async/FORMAT"
ln -s /dev/zero "$scratch/async/FORMAT"
err=$(timeout 60 "$weave" recover --data "$scratch/async" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 1 ] && [[ "$err" == *"FORMAT is not a regular file"* ]]; then
  echo "ok: a device in place of a file refused: $err"
else
  echo "FAIL: a device in place of FORMAT gave exit $rc: $err"; status=1
fi
exit $status
