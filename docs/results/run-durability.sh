#!/usr/bin/env bash
# Reproduces docs/results/durability.md: the disk, then YCSB update-only and
# TPC-C under off, async and sync, then recovery of 10^7 records. Run from
# the repository root after ./build.sh release, as root (it drops the page
# cache before the read measurements), with about 20 GB of memory and as
# much free in $TMPDIR (TPC-C at 100 warehouses).
set -euo pipefail
weave=$PWD/build/release/weave
out=$PWD/docs/results/raw/durability
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$out"
# The disk: a 4 KiB write and its fdatasync, 2000 times; a 1 GiB write and
# one fdatasync; a 1 GiB read from a cold cache.
dd if=/dev/zero of="$scratch/disk" bs=4k count=2000 oflag=dsync 2>&1 | tail -1 > "$out/disk.txt"
dd if=/dev/zero of="$scratch/disk" bs=4M count=256 conv=fdatasync 2>&1 | tail -1 >> "$out/disk.txt"
sync; echo 3 > /proc/sys/vm/drop_caches
dd if="$scratch/disk" of=/dev/null bs=4M 2>&1 | tail -1 >> "$out/disk.txt"
rm -f "$scratch/disk"
run() {  # name, args...
  local name=$1
  shift
  rm -rf "$scratch/data"
  echo "$name" >&2
  "$weave" "$@" --quiet > "$out/$name.jsonl"
}
for th in 2 1; do
  run ycsb-off-$th bench ycsb --workload update --threads $th --modes coro --seconds 2 --repeat 3
  run ycsb-async-$th bench ycsb --workload update --threads $th --modes coro --seconds 2 --repeat 3 \
    --durability async --data "$scratch/data"
  run ycsb-sync-$th bench ycsb --workload update --threads $th --modes naive,coro --seconds 2 --repeat 3 \
    --durability sync --data "$scratch/data"
done
for th in 2 1; do
  run ycsb-sync-deferred-$th bench ycsb --workload update --threads $th --modes coro --seconds 2 --repeat 3 \
    --durability sync --data "$scratch/data" --acks deferred
done
for g in 100 1000; do
  run ycsb-sync-1-g$g bench ycsb --workload update --threads 1 --modes coro --seconds 2 --repeat 3 \
    --durability sync --data "$scratch/data" --group-commit-us $g
done
run tpcc-off-2 bench tpcc --warehouses 8 --threads 2 --modes coro --seconds 2 --repeat 3
run tpcc-async-2 bench tpcc --warehouses 8 --threads 2 --modes coro --seconds 2 --repeat 3 \
  --durability async --data "$scratch/data"
run tpcc-sync-2 bench tpcc --warehouses 8 --threads 2 --modes naive,coro --seconds 2 --repeat 3 \
  --durability sync --data "$scratch/data"
# The size: 100 warehouses (about 15 GB resident, 30-45 s to load each run).
run tpcc100-off-2 bench tpcc --warehouses 100 --threads 2 --modes coro --seconds 2 --repeat 3
run tpcc100-async-2 bench tpcc --warehouses 100 --threads 2 --modes coro --seconds 2 --repeat 3 \
  --durability async --data "$scratch/data"
run tpcc100-sync-2 bench tpcc --warehouses 100 --threads 2 --modes naive,coro --seconds 2 --repeat 3 \
  --durability sync --data "$scratch/data"
# Deferred acknowledgements at 100 warehouses, with off between them.
i=0
for name in deferred off park deferred off; do
  i=$((i + 1))
  args=()
  [ $name = deferred ] && args=(--durability sync --acks deferred --data "$scratch/data")
  [ $name = park ] && args=(--durability sync --data "$scratch/data")
  run tpcc100-acks-$i-$name bench tpcc --warehouses 100 --threads 2 --modes coro --seconds 2 --repeat 3 "${args[@]}"
done
# Recovery: 10^7 records, a checkpoint after the load, 10 s of sync updates
# on two workers; then recovery from a cold page cache.
run recovery-10M-run bench ycsb --records 10M --workload update --threads 2 --modes coro --seconds 10 \
  --repeat 1 --durability sync --data "$scratch/data"
sync; echo 3 > /proc/sys/vm/drop_caches
"$weave" recover --data "$scratch/data" > "$out/recovery-10M.txt"
# The crash soak (needs the test build): 200 kills with the async time
# bound (about 90 s; 1,000 kills no longer fit in 15 minutes).
WEAVE_CRASH_KILLS=200 build/test/tests/durability_tests --gtest_filter='crash.*' > "$out/soak-200-async-bound.txt" 2>&1
