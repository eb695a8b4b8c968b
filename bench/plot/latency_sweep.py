# Plots throughput against p99 latency from the aggregate JSON lines of
# `weave bench ycsb` or `weave bench tpcc`: the fixed batch sizes as a line
# per mode, scheduler and thread count, each point marked with its batch, the runs
# with a latency target as stars marked with the target, with the target
# itself drawn as a dotted line in the star's colour, and `--batch auto`
# runs as diamonds marked with the mean batch they ran at.
# Usage: python3 - DATA.jsonl OUT.png   (the script arrives on standard input)
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
rows = [r for r in rows if r.get("run_type") == "aggregate" and "txn_per_s" in r]
fixed, targets, autos = {}, {}, {}
for r in rows:
    pipeline = " (pipeline)" if r.get("scheduler") == "pipeline" else ""
    name = f"{r['mode']}{pipeline}, {r['threads']} thread{'s' if r['threads'] != 1 else ''}"
    point = (r["latency_us"]["p99"], r["txn_per_s"])
    if "latency_target_us" in r:
        if "group_mean" not in r:  # no controller ran (a cached table runs in order)
            continue
        targets.setdefault(name, []).append((r["latency_target_us"], r.get("group_mean", 0), point))
    elif r.get("batch") == "auto":
        if "batch_mean" in r:  # else no window ran (a cached table runs in order)
            autos.setdefault(name, []).append((r["batch_mean"], point))
    else:
        fixed.setdefault(name, []).append((r.get("batch", 1), point))

fig, ax = plt.subplots(figsize=(8, 5))
colours = {}
for name, pts in sorted(fixed.items()):
    pts.sort()
    (line,) = ax.plot([p[0] for _, p in pts], [p[1] for _, p in pts], marker="o", label=f"{name}, fixed batch")
    colours[name] = line.get_color()
    for batch, (x, y) in pts:
        ax.annotate(f"B={batch}", (x, y), textcoords="offset points", xytext=(4, -10), fontsize=7)
for name, pts in sorted(targets.items()):
    colour = colours.get(name)
    for k, (target, group, (x, y)) in enumerate(sorted(pts)):
        ax.scatter([x], [y], marker="*", s=140, color=colour, edgecolors="black", linewidths=0.5, zorder=3,
                   label=f"{name}, latency target" if k == 0 else None)
        ax.axvline(target, color=colour or "grey", linestyle=":", linewidth=0.8)
        ax.annotate(f"p99<={target:g} (B~{group:g})", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
for name, pts in sorted(autos.items()):
    colour = colours.get(name)
    for k, (mean, (x, y)) in enumerate(pts):
        ax.scatter([x], [y], marker="D", s=60, color=colour, edgecolors="black", linewidths=0.5, zorder=3,
                   label=f"{name}, batch auto" if k == 0 else None)
        ax.annotate(f"auto (B~{mean:g})", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
first = rows[0] if rows else {}
title = first.get("bench", "")
if first.get("bench") == "ycsb":
    title += f", {first.get('workload', '')}, {first.get('records', '')} records"
elif first.get("bench") == "tpcc":
    title += f", {first.get('warehouses', '')} warehouses"
ax.set_title(f"{title}: throughput against p99 latency")
ax.set_xscale("log")
ax.set_xlabel("p99 transaction latency (us, log scale)")
ax.set_ylabel("committed transactions per second")
ax.set_ylim(bottom=0)
ax.grid(alpha=0.3)
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
