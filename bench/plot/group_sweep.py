# Plots ns per lookup against the group size, one line per variant, from the
# JSON lines of `weave bench lookup` or `weave bench model`.
# Usage: python3 - DATA.jsonl OUT.png   (the script arrives on standard input)
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
series = {}
for r in rows:
    if "ns_per_lookup" not in r or "group" not in r:
        continue
    name = r.get("variant", "coro (measured)")
    if r.get("threads", 1) != 1:
        name += f" ({r['threads']} threads)"
    series.setdefault(name, []).append((r["group"], r["ns_per_lookup"]))
    if "predicted_ns_per_lookup" in r:
        series.setdefault("model (predicted)", []).append((r["group"], r["predicted_ns_per_lookup"]))

groups = sorted({g for pts in series.values() for g, _ in pts})
fig, ax = plt.subplots(figsize=(7, 4.5))
for name, pts in sorted(series.items()):
    pts.sort()
    if len(pts) == 1:  # variants without a group (naive, auto) span the plot
        ax.plot([groups[0], groups[-1]], [pts[0][1]] * 2, linestyle="--", label=f"{name} (G={pts[0][0]})")
    else:
        ax.plot([g for g, _ in pts], [v for _, v in pts], marker="o", label=name)
first = rows[0]
ax.set_title(f"{first.get('structure', '')}, {first.get('keys', '')} keys")
ax.set_xlabel("group size G (lookups in flight)")
ax.set_ylabel("ns per lookup")
ax.set_ylim(bottom=0)
ax.grid(alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
