# Prints docs/results/run-ab.sh's raw lines as a markdown table: for each
# configuration, thread count and mode, the old and new binaries' median txn/s
# in each round, new against old, and each side's mode against BASE (a mode
# of the same process) repetition by repetition, with the median of those
# ratios in bold. (Timed runs commit different transactions, so their
# checksums differ from run to run and are not compared.)
# Usage: python3 docs/results/ab_rounds_table.py RUNS.jsonl [BASE]   (BASE: prefetch)
import collections
import json
import statistics
import sys

from ab_mode import mode_of

path = sys.argv[1]
base = sys.argv[2] if len(sys.argv) > 2 else "prefetch"

# (label, threads, mode) -> side -> {round: median txn/s}
medians = collections.defaultdict(lambda: collections.defaultdict(dict))
# (label, threads, mode) -> side -> [mode / base, repetition by repetition]
against = collections.defaultdict(lambda: collections.defaultdict(list))
reps = collections.defaultdict(dict)  # (side, round, label, threads, repetition) -> mode -> txn/s
for line in open(path):
    r = json.loads(line)
    if "context" in r:
        continue
    mode = mode_of(r)
    key = (r["label"], r["threads"], mode)
    if r.get("run_type") == "aggregate":
        medians[key][r["side"]][r["round"]] = r["txn_per_s"]
    elif r.get("run_type") == "repetition":
        reps[(r["side"], r["round"], r["label"], r["threads"], r["repetition"])][mode] = r["txn_per_s"]
for (side, _, label, threads, _), modes in reps.items():
    if base in modes:
        for mode, v in modes.items():
            against[(label, threads, mode)][side].append(v / modes[base])


def cell(values):
    return ", ".join(f"{v / 1e3:.1f}" for _, v in sorted(values.items())) if values else "-"


def ratio_cell(rs):
    return f"{', '.join(f'{x:.2f}' for x in rs)} (**{statistics.median(rs):.2f}**)" if rs else "-"


print(f"| configuration | threads | mode | old k txn/s by round | new k txn/s by round | new / old by round | old, against {base} | new, against {base} |")
print("| --- | ---: | --- | --- | --- | --- | --- | --- |")
for key, sides in medians.items():
    old, new = sides.get("old", {}), sides.get("new", {})
    by_round = [new[n] / old[n] for n in sorted(old) if n in new]
    label, threads, mode = key
    print(f"| {label} | {threads} | {mode} | {cell(old)} | {cell(new)} | "
          f"{', '.join(f'{x:.2f}' for x in by_round) or '-'} | "
          f"{ratio_cell(against[key]['old']) if mode != base else ''} | "
          f"{ratio_cell(against[key]['new']) if mode != base else ''} |")
