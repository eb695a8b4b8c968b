#!/usr/bin/env bash
# --plot never runs a shell: a file name full of shell syntax is either refused
# before the benchmark runs or becomes exactly that file, and nothing it spells
# is executed. The plotter's chatter stays off stdout.
set -u
weave=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
run=(bench lookup --structure hash --keys 2000 --lookups 2000 --variants naive,coro --group 4 --repeat 1
     --ceiling-bytes 0 --quiet)

# The example: the name ends in a quote, not .png; refused, nothing run.
out=$("$weave" "${run[@]}" --plot "x.png'; touch pwned; echo '" 2>err)
rc=$?
[ "$rc" -eq 2 ] || fail "injected --plot exited $rc, expected 2"
[ -z "$out" ] || fail "injected --plot ran the benchmark before refusing it"
[ ! -e pwned ] || fail "injected --plot ran a shell command"

# Shell syntax inside a valid .png name: the file gets that very name.
name="a'; touch pwned; echo \$(touch pwned2) \`touch pwned3\` 'b.png"
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  out=$("$weave" "${run[@]}" --plot "$name" 2>err)
  rc=$?
  [ "$rc" -eq 0 ] || { fail "--plot with a quoted name exited $rc"; cat err; }
  [ -s "$name" ] || fail "the PNG was not written under its literal name"
  printf '%s\n' "$out" | grep -qv '^{' && fail "stdout holds more than JSON lines: $out"
else
  echo "skip: python3-matplotlib is missing, only the refusal was checked"
fi
for f in pwned pwned2 pwned3; do [ ! -e "$f" ] || fail "a shell ran: $f exists"; done

# Paths the plotter could not write are refused before the run.
for bad in "" "missing-dir/x.png" "." "x.jpg"; do
  out=$("$weave" "${run[@]}" --plot "$bad" 2>err)
  rc=$?
  [ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$(wc -l <err)" -eq 1 ] ||
    { fail "--plot '$bad' exited $rc (stdout: $out)"; cat err; }
done
[ $status -eq 0 ] && echo "ok: --plot runs no shell"
exit $status
