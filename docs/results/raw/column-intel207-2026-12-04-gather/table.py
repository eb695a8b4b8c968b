# Prints auto.sh's lines as a table: per table, each variant's us a query by
# round (auto's group in parentheses), for both binaries, and auto's median
# over the best fixed group's median. Checks that every line of a table
# printed the same checksum. Usage: python3 table.py auto.jsonl
import json
import statistics
import sys
from collections import defaultdict

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
us = defaultdict(list)
label = defaultdict(list)
checksums = defaultdict(set)
for r in rows:
    table = (r["columns"], r["types"])
    v = r["variant"] if r["variant"] != "interleaved" else f"{r['group']} slots"
    us[(table, v, r["binary"])].append(r["us_per_query"])
    label[(table, v, r["binary"])].append(
        f"{r['us_per_query']:.2f}" + (f" ({r['group']})" if r["variant"] == "auto" else ""))
    checksums[table].add(r["checksum"])
for table, sums in checksums.items():
    if len(sums) != 1:
        sys.exit(f"{table}: runs disagree on the checksum: {sorted(sums)}")
print("| table | binary | sequential | 4 slots | 16 slots | `auto` (group) | auto / best fixed | best fixed / sequential |")
print("| --- | --- | --- | --- | --- | --- | ---: | ---: |")
for table in sorted(checksums, key=lambda t: (t[1] != "mixed", t[0])):
    for b in ("old", "new"):
        med = {v: statistics.median(us[(table, v, b)]) for v in ("sequential", "4 slots", "16 slots", "auto")}
        best = min(med["4 slots"], med["16 slots"])
        cells = [", ".join(label[(table, v, b)]) for v in ("sequential", "4 slots", "16 slots", "auto")]
        print(f"| {table[0]} {table[1]} | {b} | " + " | ".join(cells) +
              f" | {med['auto'] / best:.2f}x | {med['sequential'] / best:.2f}x |")
