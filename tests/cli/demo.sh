#!/usr/bin/env bash
# The README's first command, small: `weave demo` runs every part, says what a
# user should see, and keeps its progress off a stderr that is not a
# terminal (a log or a pipe gets results, not carriage-return lines).
set -u
weave=$1
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
"$weave" demo --scale 0.001 --repeat 1 > "$out" 2> "$err"
rc=$?
[ "$rc" -eq 0 ] || fail "weave demo exited $rc"
for part in "column store:" "transactions: YCSB" "TPC-C, " "tasks: a Blink-tree" "durability:"; do
  grep -qF "$part" "$out" || fail "no '$part' line"
done
grep -qF "consistency checks pass" "$out" || fail "TPC-C's consistency checks did not pass"
grep -qF "money whole" "$out" || fail "the crash and recovery did not keep the bank whole"
if grep -q $'\r' "$out" "$err"; then fail "progress lines went to a file"; fi
# Messages may go to stderr (at this scale, that a table stays cached); progress may not.
if grep -qE 'repeat [0-9]+/|generating table|sweeping' "$err"; then fail "progress on stderr: $(head -c 300 "$err")"; fi
[ "$status" -eq 0 ] || { echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; }
exit "$status"
