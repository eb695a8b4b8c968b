#!/usr/bin/env bash
# A benchmark on a durable engine leaves a data directory that `weave
# recover` reads back whole (every record of the table, under either mode,
# and with deferred acknowledgements);
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
exit $status
