# Plots time per query against dictionary size, one line per variant, from the
# JSON lines of `weave bench in-predicate` or `weave bench reconstruct`.
# Usage: python3 - DATA.jsonl OUT.png   (the script arrives on standard input)
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
key = "ms_per_query" if "ms_per_query" in rows[0] else "us_per_query"
groups = {r["group"] for r in rows if r["variant"] == "interleaved"}
series = {}
for r in rows:
    name = r["variant"]
    if name == "interleaved" and len(groups) > 1:
        name += f" G={r['group']}"
    series.setdefault(name, []).append((r["dictionary_bytes"] / 2**20, r[key]))

fig, ax = plt.subplots(figsize=(7, 4.5))
for name, pts in sorted(series.items()):
    pts.sort()
    ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=name)
first = rows[0]
what = first.get("type", first.get("types", ""))
ax.set_title(f"{first['bench']}, {what}, {first.get('fragment', '')} {first['rows']} rows".strip())
ax.set_xscale("log", base=2)
ax.set_xlabel("dictionary size (MiB)")
ax.set_ylabel(key.replace("_", " "))
ax.set_ylim(bottom=0)
ax.grid(alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
