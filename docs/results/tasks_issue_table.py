# Section 5 against the issue's own binary: reads the files of
# `OUT=... docs/results/run-tasks-ab.sh OLD NEW` ({c,a}-{old,new}-{round}.jsonl),
# takes each binary's best configuration (synchronization and prefetch
# distance) per workload, workers and round, as the issue's figures did, and
# projects today's binary onto the issue's window: the issue's weave figure
# times the ratio new/old measured in one window, against MxTasking's figure
# from that same window.
# Usage: python3 docs/results/tasks_issue_table.py DIR
import glob
import json
import os
import statistics
import sys

# The issue's figures (M ops/s), measured in one window on a Zen 5 VM.
mxtasking = {("c", 1): 2.69, ("c", 2): 5.10, ("a", 1): 2.51, ("a", 2): 3.13}
issue_weave = {("c", 1): 1.17, ("c", 2): 3.25, ("a", 1): 1.50, ("a", 2): 2.34}

best = {}  # (workload, workers, side, round) -> aggregate line
for path in glob.glob(os.path.join(sys.argv[1], "*-*-*.jsonl")):
    wl, side, rnd = os.path.basename(path)[: -len(".jsonl")].split("-")
    for line in open(path):
        r = json.loads(line)
        if r.get("variant") != "tasks" or r.get("run_type") != "aggregate":
            continue
        key = (wl, r["workers"], side, int(rnd))
        if key not in best or r["ops_per_s"] > best[key]["ops_per_s"]:
            best[key] = r


def cell(r):
    return f"{r['ops_per_s'] / 1e6:.2f} ({r['sync']}, d={r['prefetch_distance']})"


print("| workload | workers | old, best (sync, d) | new, best (sync, d) | new / old | projected / MxTasking |")
print("| --- | ---: | --- | --- | --- | ---: |")
for wl in ["c", "a"]:
    for workers in [1, 2]:
        rounds = sorted({k[3] for k in best if k[0] == wl and k[1] == workers})
        pairs = [(best[(wl, workers, "old", n)], best[(wl, workers, "new", n)]) for n in rounds
                 if (wl, workers, "old", n) in best and (wl, workers, "new", n) in best]
        if not pairs:
            continue
        ratios = [n["ops_per_s"] / o["ops_per_s"] for o, n in pairs]
        ratio = statistics.median(ratios)
        projected = issue_weave[(wl, workers)] * ratio / mxtasking[(wl, workers)]
        print(f"| {wl.upper()} | {workers} | {'; '.join(cell(o) for o, _ in pairs)} | "
              f"{'; '.join(cell(n) for _, n in pairs)} | {', '.join(f'{x:.2f}' for x in ratios)} "
              f"(median {ratio:.2f}) | **{projected:.2f}x** |")
