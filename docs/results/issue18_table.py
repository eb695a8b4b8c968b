# Prints docs/results/run-issue18-ab.sh's raw lines as a markdown table: for
# each workload, thread count, mode and scheduler, the binary (old),
# today's (new) and today's with --reserve-mib (new-reserve): their median
# txn/s in each round, and the ratios to old, pair by pair within a round.
# Usage: python3 docs/results/issue18_table.py docs/results/raw/issue18-ab/runs.jsonl
import collections
import json
import statistics
import sys

# key -> side -> {round: txn/s}. Lines from before the script tagged rounds
# count their round by order of appearance, one per side and key.
runs = collections.defaultdict(lambda: collections.defaultdict(dict))
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("run_type") != "aggregate":
        continue
    key = (r["label"], r["threads"], r["mode"], r.get("scheduler", ""))
    seen = runs[key][r["side"]]
    seen[r.get("round", len(seen) + 1)] = r["txn_per_s"]


def cell(values):
    return ", ".join(f"{v / 1e3:.1f}" for _, v in sorted(values.items())) if values else "-"


def ratios(side, old):  # pair by pair within a round
    rs = [side[n] / old[n] for n in sorted(old) if n in side]
    if not rs:
        return "-"
    return f"{', '.join(f'{x:.2f}' for x in rs)} (**{statistics.median(rs):.2f}**)"


print("| workload | threads | mode | old k txn/s | new | new, reserved | new / old | reserved / old |")
print("| --- | ---: | --- | --- | --- | --- | --- | --- |")
for (label, threads, mode, scheduler), sides in runs.items():
    old = sides["old"]
    name = mode + (" (pipeline)" if scheduler == "pipeline" else "")
    print(f"| {label} | {threads} | {name} | {cell(old)} | {cell(sides['new'])} | {cell(sides['new-reserve'])} | "
          f"{ratios(sides['new'], old)} | {ratios(sides['new-reserve'], old)} |")
