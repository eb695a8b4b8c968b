#!/usr/bin/env bash
# Bad input to the weave command: exit status 2 and exactly one line on stderr.
set -u
weave=$1
build=${2:-plain}  # sanitized: a sanitizer's shadow memory needs more address space than any limit here
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
expect_message() {  # words the one-line error must hold, then the command
  local want=$1 err rc
  shift
  err=$("$weave" "$@" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ]; then
    echo "FAIL: weave $* exited $rc with stderr:"
    printf '%s\n' "$err"
    status=1
    return
  fi
  case "$err" in
    *"$want"*) echo "ok: weave $* says '$want'" ;;
    *) echo "FAIL: weave $*: wanted '$want' in: $err"; status=1 ;;
  esac
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
expect_usage_error bench mlp --prefetch-distance 1025
expect_usage_error bench mlp --prefetch-distance 4,x
expect_usage_error bench mlp --lines 3
expect_usage_error bench mlp --lines 0
expect_usage_error bench nothing
expect_usage_error
expect_usage_error bench in-predicate --type float
expect_usage_error bench in-predicate --fragment middle
expect_usage_error bench in-predicate --values 0
expect_usage_error bench in-predicate --distinct 0
expect_usage_error bench in-predicate --rows 100Ti
expect_usage_error bench in-predicate --variants sequential,fast
expect_usage_error bench reconstruct --columns 0
expect_usage_error bench reconstruct --types int,text
# A distinct count the type cannot hold is refused, not quietly cut down.
expect_usage_error bench in-predicate --rows 1000 --distinct 1000 --values 10 --type 'decimal(1,1)'
expect_message "DECIMAL(1,1) holds (19 values)" bench in-predicate --rows 1000 --distinct 20 --values 10 --type 'decimal(1,1)'
expect_usage_error bench reconstruct --rows 1000 --columns 2 --distinct 100 --types 'varchar(1)'
expect_usage_error bench reconstruct --queries 0
expect_usage_error query in --random 5
expect_usage_error query in --generate rows=10,colour=red --random 5
expect_usage_error query in --generate rows=10 --csv x.csv --random 5
expect_usage_error query in --generate rows=10 --random 5 --variant fastest
expect_usage_error query in --csv /nonexistent/table.csv --random 5
expect_usage_error query row --generate rows=10 --key notanumber
expect_usage_error query row --generate rows=10 --key 1 --key-column nope
expect_usage_error query row --generate rows=10 --key 1 --column nope
expect_usage_error bench ycsb --workload delete
expect_usage_error bench ycsb --modes coro,turbo
expect_usage_error bench ycsb --isolation rc
expect_usage_error bench ycsb --key-bytes 48
expect_usage_error bench ycsb --records 1M --key-bytes 9
expect_usage_error bench ycsb --batch 0
expect_usage_error bench ycsb --records 0
expect_usage_error bench ycsb --records 100G
expect_usage_error bench ycsb --theta 1.5
expect_usage_error bench ycsb --repeat 0
expect_usage_error bench ycsb --retry -1
expect_usage_error bench ycsb --retry 10000000
expect_usage_error bench tpcc --retry -1
expect_usage_error bench tpcc --warehouses 0
expect_usage_error bench tpcc --reserve-mib -1
expect_usage_error bench tpcc --reserve-mib 1048577
expect_usage_error bench tpcc --reserve-mib 1048576
expect_usage_error bench tpcc --reserve-mib 1e3
expect_usage_error bench tpcc --warehouses 5000
expect_usage_error bench tpcc --mix tpce
expect_usage_error bench tpcc --mix q2=60,payment=30
expect_usage_error bench tpcc --mix q2=100,audit=0
expect_usage_error bench tpcc --modes coro,turbo
expect_usage_error bench tpcc --suppliers 5000
expect_usage_error bench tpcc --isolation rc
expect_usage_error bench tpcc --warehouses 1000
expect_usage_error bench blink --workload b
expect_usage_error bench blink --sync spin
expect_usage_error bench blink --workers 0
expect_usage_error bench blink --workers 64
expect_usage_error bench blink --prefetch-distance 100
expect_usage_error bench blink --prefetch-lines 0
expect_usage_error bench blink --prefetch-lines 17
expect_usage_error bench blink --prefetch-lines 12,
expect_usage_error bench blink --baseline threads,processes
expect_usage_error bench blink --workload insert --baseline coro
expect_usage_error bench blink --workload insert --cached-kib 64
expect_usage_error bench blink --cached-kib 2000000000
expect_usage_error bench blink --cached-kib 64,
expect_usage_error bench blink --records 0
expect_usage_error bench blink --theta 1.5
expect_usage_error bench blink --records 1Ti
# Class: size arithmetic that would overflow is refused, not wrapped round.
expect_usage_error bench lookup --keys 4611686018427387905 --ceiling-bytes 0
expect_usage_error bench lookup --structure btree --keys 18446744073709551615 --ceiling-bytes 0
expect_usage_error bench in-predicate --rows 4611686018427387904
expect_usage_error query in --generate rows=4611686018427387904,distinct=16 --random 5
expect_usage_error bench ycsb --records 18446744073709551615
expect_usage_error bench blink --records 18446744073709551615
# Class: negative, out-of-range, non-finite and non-decimal numbers.
expect_usage_error bench lookup --repeat -1
expect_usage_error bench lookup --repeat 101
expect_usage_error bench ycsb --seed -1
expect_usage_error bench ycsb --seed 010
expect_usage_error bench ycsb --seed 0x10
expect_usage_error bench ycsb --seed 99999999999999999999
expect_usage_error bench ycsb --scan-length -1
expect_usage_error bench ycsb --seconds inf
expect_usage_error bench ycsb --seconds 1e9
expect_usage_error bench ycsb --seconds 1e-300
expect_usage_error bench blink --seconds inf
expect_usage_error bench blink --seconds nan
expect_usage_error bench tpcc --seconds -1
expect_usage_error bench lookup --distribution zipf --theta nan
expect_usage_error bench reconstruct --columns 1000000000
expect_usage_error bench reconstruct --queries 1T
expect_usage_error bench in-predicate --values 1T
expect_usage_error query in --generate rows=10 --random 1T
expect_usage_error demo --scale nan
expect_usage_error demo --scale 1e30
expect_usage_error demo --scale 0
expect_usage_error demo --scale 1000
# Class: options with a range take plain numbers too; an empty value is not "not given".
expect_usage_error bench ycsb --retry ' 5'
expect_usage_error bench ycsb --retry 010
expect_usage_error bench tpcc --retry 0x10
expect_usage_error query in --generate rows=10 --random 1 --variant interleaved --group 010
expect_usage_error demo --repeat 010
expect_usage_error query in --generate rows=10 --random 1 --types ''
expect_usage_error query in --generate '' --random 1
expect_usage_error bench blink --baseline ''
expect_usage_error bench lookup --theta 5
expect_usage_error bench ycsb --workload scan --records 20K --scan-length 100000
expect_usage_error query in --generate rows=100,rows=200 --random 1
expect_usage_error query in --generate columns=2,types=int+int+int --random 1
expect_usage_error bench lookup --ceiling-bytes 7
expect_usage_error bench reconstruct --rows 9223372036854775808
expect_usage_error bench lookup --plot /proc/weave-test.png
expect_usage_error --foo
expect_usage_error bench --foo
expect_message "--keys: 'abc' is not a size" bench lookup --keys abc
expect_message "--threads: empty item" bench ycsb --threads 1,,2
expect_message "'0' is not a batch size (1 or more, or auto)" bench tpcc --batch auto,0
expect_message "--batch 65 is outside 1..64" bench tpcc --batch 65,auto
expect_message "--batch: empty item" bench ycsb --batch auto,,8
expect_message "--threads 0 is outside 1..64" bench tpcc --threads 0
expect_message "--threads 300 is outside 1..256" bench ycsb --threads 300
expect_message "--group 0 is outside" bench lookup --group 0
expect_message "without leading zeros" bench tpcc --mix q2=050,payment=50
expect_message "'1Ki' and '1024' are the same size" bench lookup --group 1Ki,1024
expect_message "'1K' and '1000' are the same size" bench tpcc --batch 1K,1000
expect_message "--keys: write 010 without leading zeros" bench lookup --keys 010
expect_message "--latency-target-us: 100 is given twice" bench ycsb --latency-target-us 100,100.0
expect_message "write 00 without leading zeros" query in --generate rows=00 --random 5
expect_message "'--foo' is not an option of 'weave bench'" bench --foo
expect_message "--modes: 'coro' appears twice" bench ycsb --modes coro,coro
expect_message "'naive' appears twice" bench lookup --variants naive,naive
expect_message "appears twice" bench ycsb --threads 2,2
expect_message "the pipeline (--pipeline, --scheduler pipeline) needs an interleaved mode" bench ycsb --pipeline --modes naive
expect_message "the pipeline (--pipeline, --scheduler pipeline) needs an interleaved mode" bench tpcc --pipeline --modes naive,prefetch
expect_message "--scheduler needs an interleaved mode" bench tpcc --scheduler batch,pipeline --modes naive
expect_message "--scheduler needs an interleaved mode" bench ycsb --scheduler batch --modes naive,prefetch
expect_message "--suppliers needs a mix with Q2*" bench tpcc --suppliers 50
expect_message "--suppliers needs a mix with Q2*" bench tpcc --mix new_order=100 --suppliers 50
expect_message "--group needs a variant that runs groups" bench lookup --variants naive --group 8,16
expect_message "--group needs a variant that runs groups" bench lookup --variants naive,coro-sequential --group auto
expect_message "'strict' is not a scheduler (batch or pipeline)" bench ycsb --scheduler strict
expect_message "'pipeline' appears twice" bench tpcc --scheduler pipeline,pipeline
expect_message "--pipeline excludes --scheduler" bench ycsb --pipeline --scheduler batch
expect_message "--acks deferred needs an interleaved mode" bench ycsb --modes naive,prefetch --durability sync --data /nonexistent/weave-acks --acks deferred
expect_message "--acks deferred needs an interleaved mode" bench tpcc --modes naive --durability sync --data /nonexistent/weave-acks --acks deferred
expect_message "--inline-values on holds values of up to" bench ycsb --value-bytes 1000 --inline-values on
expect_message "--scale: 'abc' is not a number" demo --scale abc
expect_message "--scale: 1e-400 is outside" demo --scale 1e-400
expect_message "--batch needs an interleaved mode" bench ycsb --modes naive,prefetch --batch 4,8
expect_message "--batch needs an interleaved mode" bench tpcc --modes naive --batch 16
expect_message "--group needs the interleaved variant" bench in-predicate --variants sequential,auto --group 8
expect_message "--group needs the interleaved variant" bench reconstruct --variants sequential --group 8
expect_message "values a run; at most 1000000000" bench reconstruct --columns 100000 --queries 100M
expect_message "--reload needs --durability off" bench tpcc --reload --durability async --data /nonexistent/weave-reload
expect_message "--warehouses: 99999999999 is outside 1..1000" bench tpcc --warehouses 99999999999
expect_message "--suppliers: 4294967297 is outside 1..1900" bench tpcc --suppliers 4294967297
expect_message "rows above 2^32 needs distinct=" query in --generate rows=16777215Ti --random 1
expect_message "a table has 1..100000 columns" query in --generate rows=10,columns=0 --random 1
expect_message "--group-commit-us needs --durability" bench ycsb --group-commit-us 500
expect_message "--acks park needs --durability sync" bench tpcc --acks park
expect_message "is more than DECIMAL(1,1) holds" query in --generate 'rows=100,types=DECIMAL(1,1),distinct=1000' --random 5
# A limit on address space refuses the room tables reserve to grow into:
# the message names the limit (exit 1: not bad input, too little room).
if [ "$build" = plain ] && (ulimit -v 4000000) 2>/dev/null; then
  err=$( (ulimit -v 4000000 && "$weave" bench ycsb --records 1000 --seconds 0.1 --quiet) 2>&1 >/dev/null)
  rc=$?
  case "$rc $(printf '%s\n' "$err" | wc -l) $err" in
    "1 1 "*"(ulimit -v)"*) echo "ok: under ulimit -v: $err" ;;
    *) echo "FAIL: under ulimit -v: exited $rc with: $err"; status=1 ;;
  esac
fi
# Class: messages that name the problem.
expect_usage_error frobnicate
expect_usage_error bench frobnicate
expect_usage_error bench in-predicate --type 'DECIMAL(99,99)'
expect_usage_error bench in-predicate --type 'VARCHAR(0)'
expect_usage_error query in --generate rows=10 --random 1 --variant auto --group 0
expect_usage_error query in --generate rows=10 --random 1 --variant auto --group 8
expect_usage_error query in --generate rows=10 --values /
expect_usage_error query in --generate rows=10 --values /dev/null
expect_usage_error query in --generate rows=10 --values /dev/zero
expect_usage_error query in --csv / --random 1
expect_usage_error query in --csv /dev/zero --random 1
expect_message "'frobnicate' is not a command of 'weave bench'" bench frobnicate
expect_message "DECIMAL precision must be 1..18" bench in-predicate --type 'DECIMAL(99,99)'
expect_message "is a directory" query in --csv / --random 1
expect_message "holds no values" query in --generate rows=10 --values /dev/null
# Class: CSV as RFC 4180 has it (the parser's own cases are in tests/column/csv_test.cpp).
csv=$(mktemp)
printf 'id,note\n1,"ab"cd\n' > "$csv"
expect_usage_error query in --csv "$csv" --random 1
printf 'a,,c\n1,2,3\n' > "$csv"
expect_usage_error query in --csv "$csv" --random 1
printf 'a,b\n1,x\0y\n' > "$csv"
expect_usage_error query in --csv "$csv" --random 1
printf '\xef\xbb\xbfid,note\r\n1,"two\r\nlines"\r\n' > "$csv"
out=$("$weave" query row --csv "$csv" --key 1 --quiet 2>&1)
case "$out" in
  *'"two'*'lines"'*) echo "ok: a quoted line break and a byte-order mark load" ;;
  *) echo "FAIL: quoted line break: $out"; status=1 ;;
esac
rm -f "$csv"
# A CSV file with a bad line: the error names the line and the column.
csv=$(mktemp)
printf 'id,price\n1,2.50\n2,cheap\n' > "$csv"
expect_usage_error query in --csv "$csv" --types 'INTEGER,DECIMAL(5,2)' --random 1
err=$("$weave" query in --csv "$csv" --types 'INTEGER,DECIMAL(5,2)' --random 1 2>&1 >/dev/null)
case "$err" in
  *"line 3, column 'price'"*) echo "ok: the CSV error names line 3, column 'price'" ;;
  *) echo "FAIL: CSV error was: $err"; status=1 ;;
esac
rm -f "$csv"
# Durability: the flags, and data directories that cannot be used.
scratch=$(mktemp -d)
touch "$scratch/file"
mkdir "$scratch/full" && touch "$scratch/full/something"
expect_usage_error bench ycsb --durability maybe
expect_message "needs --data" bench ycsb --durability sync --records 1K
expect_message "needs --durability" bench ycsb --data "$scratch/new" --records 1K
expect_usage_error bench ycsb --durability sync --data "$scratch/new" --group-commit-us 0
expect_usage_error bench tpcc --durability async --data "$scratch/new" --group-commit-us 2000000
expect_message "is not a directory" bench ycsb --durability sync --data "$scratch/file" --records 1K
expect_usage_error bench ycsb --durability async --data "$scratch/file/sub" --records 1K
expect_message "cannot be created: $scratch/file is not a directory" bench tpcc --durability sync --data "$scratch/file/a/b"
expect_message "must be a new or empty directory" bench tpcc --durability sync --data "$scratch/full"
expect_usage_error bench ycsb --durability sync --data "$scratch/new" --acks later
expect_message "needs --durability sync" bench ycsb --durability async --data "$scratch/new" --acks deferred
expect_message "needs --durability sync" bench tpcc --acks deferred
# Latency targets: a positive number of microseconds, up to ten seconds, for an interleaved mode.
for bad in 0 -5 1e-300 0.5 abc nan inf 1e8 '50,' '50,,100' ' 50' 0x10; do
  expect_usage_error bench ycsb --latency-target-us "$bad"
  expect_usage_error bench tpcc --latency-target-us "$bad"
done
expect_message "needs an interleaved mode" bench ycsb --modes naive,prefetch --latency-target-us 100
expect_message "needs an interleaved mode" bench tpcc --modes naive --latency-target-us 100
expect_message "not acknowledgements" bench ycsb --durability sync --data "$scratch/new" --acks deferred --latency-target-us 100
expect_message "not acknowledgements" bench tpcc --durability sync --data "$scratch/new" --acks deferred --latency-target-us 100
expect_usage_error bench ycsb --latency-target-us 100 --plot "$scratch/plot.txt"
: > "$scratch/a-file"
expect_message "'$scratch/a-file' is not a directory" bench lookup --plot "$scratch/a-file/x.png"
# A data directory that cannot be made is bad input, found before anything runs.
expect_message "--data /proc/self/weave-data cannot be created in /proc/self" bench ycsb --durability async --data /proc/self/weave-data
ln -s "$scratch/nowhere" "$scratch/dangling"
expect_message "is a symbolic link to nothing" bench tpcc --durability sync --data "$scratch/dangling"
# A FIFO no one reads would block the check's open for ever.
mkfifo "$scratch/pipe.png"
expect_message "is not a regular file" bench lookup --plot "$scratch/pipe.png"
expect_usage_error recover
# An option asked for by name must change what runs.
expect_message "needs --distribution zipf" bench lookup --theta 0.5
expect_message "needs --workload scan" bench ycsb --workload read --scan-length 5
expect_message "applies to workloads a and c" bench blink --workload insert --theta 0.5
expect_message "--seconds applies to workloads a and c" bench blink --workload insert --seconds 5
expect_message "--seed needs --random" query in --generate rows=10 --values "$scratch/a-file" --seed 5
expect_message "needs --baseline coro" bench blink --group 8
expect_message "needs --baseline coro" bench blink --baseline threads --group 8
# The largest size is how auto is kept: as a number it is refused, not run as auto.
expect_message "is not a batch size" bench ycsb --batch 18446744073709551615
expect_message "is not a batch size" bench tpcc --batch 18446744073709551615
# Results that cannot be written (a full disk) fail the run: exit 1, one line.
if [ -w /dev/full ]; then
  err=$("$weave" bench lookup --keys 1Ki --lookups 1K --repeat 1 --ceiling-bytes 0 2>&1 >/dev/full)
  rc=$?
  if [ "$rc" -eq 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"could not all be written"* ]]; then
    echo "ok: output to a full device: $err"
  else
    echo "FAIL: output to a full device exited $rc with stderr:"; printf '%s\n' "$err"; status=1
  fi
fi
expect_message "is not a directory" recover --data "$scratch/missing"
expect_message "is not a weave data directory" recover --data "$scratch/full"
[ -e "$scratch/new" ] && { echo "FAIL: a refused run created $scratch/new"; status=1; }
[ -e "$scratch/missing" ] && { echo "FAIL: recover created $scratch/missing"; status=1; }
rm -rf "$scratch"
exit $status
