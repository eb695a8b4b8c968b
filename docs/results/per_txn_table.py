# Prints docs/results/run-per-txn-ab.sh's raw lines as a markdown table: for
# each workload, thread count, mode and scheduler, the old and the new
# binary's median txn/s in each round (the two run back to back), the ratio
# new/old of each pair, and the median of those ratios.
# Usage: python3 docs/results/per_txn_table.py docs/results/raw/per-txn-ab/runs.jsonl
import collections
import json
import statistics
import sys

runs = collections.defaultdict(list)  # key -> [(side, txn/s)] in run order
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("run_type") != "aggregate":
        continue
    key = (r["label"], r["threads"], r["mode"], r.get("scheduler", ""))
    runs[key].append((r["side"], r["txn_per_s"]))

print("| workload | threads | mode | old k txn/s | new k txn/s | new/old, each pair | median |")
print("| --- | ---: | --- | --- | --- | --- | ---: |")
for (label, threads, mode, scheduler), seq in runs.items():
    old = [v for s, v in seq if s == "old"]
    new = [v for s, v in seq if s == "new"]
    ratios = [n / o for o, n in zip(old, new)]
    name = mode + (" (pipeline)" if scheduler == "pipeline" else "")
    print(f"| {label} | {threads} | {name} | {', '.join(f'{v / 1e3:.1f}' for v in old)} | "
          f"{', '.join(f'{v / 1e3:.1f}' for v in new)} | {', '.join(f'{x:.2f}' for x in ratios)} | "
          f"**{statistics.median(ratios):.2f}** |")
