# Prints run.sh's lines as a table: per width and variant, ns a column by
# round for both binaries, and old over new of the medians. Checks that every
# line of a width printed the same checksum. Usage: python3 table.py runs.jsonl
import json
import statistics
import sys
from collections import defaultdict

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ns = defaultdict(list)
checksums = defaultdict(set)
for r in rows:
    v = r["variant"] if r["variant"] != "interleaved" else f"{r['group']} slots"
    ns[(r["columns"], v, r["binary"])].append(r["us_per_query"] * 1e3 / r["columns"])
    checksums[r["columns"]].add(r["checksum"])
for columns, sums in checksums.items():
    if len(sums) != 1:
        sys.exit(f"{columns} columns: runs disagree on the checksum: {sorted(sums)}")
print("| columns | variant | old ns a column | new ns a column | old / new |")
print("| ---: | --- | --- | --- | ---: |")
for columns in sorted(checksums):
    for v in ("sequential", "4 slots", "16 slots", "32 slots", "auto"):
        old, new = ns[(columns, v, "old")], ns[(columns, v, "new")]
        print(f"| {columns} | {v} | {', '.join(f'{x:.0f}' for x in old)} | {', '.join(f'{x:.0f}' for x in new)} | "
              f"**{statistics.median(old) / statistics.median(new):.2f}x** |")
