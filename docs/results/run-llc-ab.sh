#!/usr/bin/env bash
# The last-level cache size read from a gradual latency curve (probe=2), against
# the binary before it, which took the OS's figure on such a curve: TPC-C and
# YCSB, old and new binaries taking turns in one window, the order reversed in
# every other round, one configuration set per process. Each binary keeps its
# own probe result (the probe's version is part of the file's key), so each
# runs with the sizes it would choose by itself; every line's context says
# which. Run from the repository root after ./build.sh release:
#   git worktree add /tmp/old-c9 c9aa9b0 && (cd /tmp/old-c9 && ./build.sh release)
#   OLD=/tmp/old-c9/build/release/weave OUT=docs/results/raw/DIR docs/results/run-llc-ab.sh
# The runs themselves are run-ab.sh's (the conditioner, the order of sides,
# the tagged lines in OUT/runs.jsonl; ROUNDS and CONDITION_GIB as there).
set -euo pipefail
configs=$(mktemp)
trap 'rm -f "$configs"' EXIT
cat > "$configs" <<'END'
tpcc-16w-1t bench tpcc --warehouses 16 --threads 1 --modes naive,coro --scheduler batch,pipeline --seconds 3 --repeat 3
tpcc-16w-2t bench tpcc --warehouses 16 --threads 2 --modes naive,coro --scheduler batch,pipeline --seconds 3 --repeat 3
tpcc-4w-1t bench tpcc --warehouses 4 --threads 1 --modes naive,prefetch,coro --seconds 3 --repeat 3
ycsb-read-30M bench ycsb --records 30M --workload read --threads 1,2 --modes naive,coro --seconds 2 --repeat 3
END
CONFIGS=$configs "$(dirname "$0")/run-ab.sh"
