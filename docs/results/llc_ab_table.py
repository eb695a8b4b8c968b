# Prints docs/results/run-llc-ab.sh's raw lines as a markdown table: for each
# workload, thread count, mode and scheduler, the old and new binaries' median
# txn/s in each round, new against old round by round, and each side's mode
# against naive in the same process (the medians of the rounds' ratios).
# Usage: python3 docs/results/llc_ab_table.py docs/results/raw/DIR/runs.jsonl
import collections
import json
import statistics
import sys

# (label, threads, mode) -> side -> {round: txn/s}
runs = collections.defaultdict(lambda: collections.defaultdict(dict))
llc = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "context" in r:
        llc[r["side"]] = r["context"]["caches"]["llc"]
        continue
    if r.get("run_type") != "aggregate":
        continue
    mode = r["mode"] + (" (pipeline)" if r.get("scheduler") == "pipeline" else "")
    runs[(r["label"], r["threads"], mode)][r["side"]][r["round"]] = r["txn_per_s"]


def cell(values):
    return ", ".join(f"{v / 1e3:.1f}" for _, v in sorted(values.items())) if values else "-"


def ratios(num, den):
    rs = [num[n] / den[n] for n in sorted(den) if n in num]
    if not rs:
        return "-"
    return f"{', '.join(f'{x:.2f}' for x in rs)} (**{statistics.median(rs):.2f}**)"


print(f"LLC in use: old {llc.get('old', 0) >> 20} MiB, new {llc.get('new', 0) >> 20} MiB\n")
print("| workload | threads | mode | old k txn/s | new k txn/s | new / old | old, against naive | new, against naive |")
print("| --- | ---: | --- | --- | --- | --- | --- | --- |")
for (label, threads, mode), sides in runs.items():
    naive = runs.get((label, threads, "naive"), {})
    against = ["-", "-"]
    if mode != "naive" and naive:
        against = [ratios(sides[s], naive[s]) for s in ("old", "new")]
    print(f"| {label} | {threads} | {mode} | {cell(sides['old'])} | {cell(sides['new'])} | "
          f"{ratios(sides['new'], sides['old'])} | {against[0]} | {against[1]} |")
