# Prints run-reconstruct-ab.sh's raw lines as a markdown table: per width and
# variant, each binary's median over rounds of its per-run medians, per
# column, and new over old. Checks that every run of a width printed the
# same checksum. Usage: python3 docs/results/reconstruct_ab_table.py DIR/runs.jsonl
import json
import statistics
import sys
from collections import defaultdict

rows = [r for r in (json.loads(l) for l in open(sys.argv[1]) if l.strip())
        if r.get("run_type") == "aggregate"]
us = defaultdict(list)
checksums = defaultdict(set)
for r in rows:
    us[(r["columns"], r["variant"], r["side"])].append(r["us_per_query"])
    checksums[r["columns"]].add(r["checksum"])
for columns, sums in checksums.items():
    if len(sums) != 1:
        sys.exit(f"{columns} columns: runs disagree on the checksum: {sorted(sums)}")
print("| columns | variant | old us a query | new us a query | old ns a column | new ns a column | old / new |")
print("| ---: | --- | --- | --- | ---: | ---: | ---: |")
for (columns, variant) in sorted({(c, v) for c, v, _ in us}, key=lambda k: (k[0], k[1])):
    old, new = us[(columns, variant, "old")], us[(columns, variant, "new")]
    mo, mn = statistics.median(old), statistics.median(new)
    print(f"| {columns} | {variant} | {', '.join(f'{x:.2f}' for x in old)} | {', '.join(f'{x:.2f}' for x in new)} | "
          f"{mo / columns * 1e3:.0f} | {mn / columns * 1e3:.0f} | **{mo / mn:.2f}x** |")
