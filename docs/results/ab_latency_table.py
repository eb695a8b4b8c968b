# Prints the latency percentiles in docs/results/run-ab.sh's raw lines: for
# each configuration, thread count and mode, each side's p50 and p99 in
# microseconds, round by round, of one kind of transaction (TPC-C's
# new_order, payment, ...) or of all of them.
# Usage: python3 docs/results/ab_latency_table.py RUNS.jsonl [KIND]   (KIND: all)
import collections
import json
import sys

from ab_mode import mode_of

path = sys.argv[1]
kind = sys.argv[2] if len(sys.argv) > 2 else "all"

# (label, threads, mode) -> side -> [(round, p50, p99)]
cells = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(path):
    r = json.loads(line)
    if "context" in r or r.get("run_type") != "aggregate":
        continue
    if kind == "all":
        p50, p99 = r["p50_us"], r["p99_us"]
    elif kind in r:
        p50, p99 = r[kind]["latency_us"]["p50"], r[kind]["latency_us"]["p99"]
    else:
        continue
    mode = mode_of(r)
    cells[(r["label"], r["threads"], mode)][r["side"]].append((r["round"], p50, p99))


def cell(values):
    return ", ".join(f"{p50:.1f} / {p99:.0f}" for _, p50, p99 in sorted(values)) or "-"


print(f"| configuration | threads | mode | old p50 / p99 us ({kind}), by round | new p50 / p99 us, by round |")
print("| --- | ---: | --- | --- | --- |")
for (label, threads, mode), sides in cells.items():
    print(f"| {label} | {threads} | {mode} | {cell(sides.get('old', []))} | {cell(sides.get('new', []))} |")
