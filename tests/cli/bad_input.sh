#!/usr/bin/env bash
# Bad input to the weave command: exit status 2 and exactly one line on stderr.
set -u
weave=$1
status=0
expect_usage_error() {
  local err rc
  err=$("$weave" "$@" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [ -z "$err" ]; then
    echo "FAIL: weave $* exited $rc with stderr:"
    printf '%s\n' "$err"
    status=1
  else
    echo "ok: weave $*: $err"
  fi
}
expect_usage_error bench lookup --structure skiplist
expect_usage_error bench lookup --variants naive,fastest
expect_usage_error bench lookup --lookups 0
expect_usage_error bench lookup --keys 0
expect_usage_error bench lookup --keys 12Xi
expect_usage_error bench lookup --keys 100Ti
expect_usage_error bench lookup --group 0
expect_usage_error bench lookup --group 1,,2
expect_usage_error bench lookup --threads 0
expect_usage_error bench lookup --distribution zipf --theta 1.5
expect_usage_error bench lookup --repeat 0
expect_usage_error bench lookup --no-such-flag
expect_usage_error bench mlp --chains 65
expect_usage_error bench mlp --bytes 1Ti
expect_usage_error bench nothing
expect_usage_error
exit $status
