# Prints the JSON lines of `weave bench blink` as markdown tables: M ops/s
# per (workers, synchronization) and prefetch distance, the best distance
# against prefetching off, and the baselines beside the best task figure.
# Usage: python3 docs/results/tasks_table.py FILE.jsonl
import json
import sys

# Aggregate lines only (files from before the context line and repetition lines have neither).
rows = [r for r in (json.loads(l) for l in open(sys.argv[1]) if l.strip())
        if "context" not in r and r.get("run_type", "aggregate") == "aggregate"]
tasks = [r for r in rows if r["variant"] == "tasks"]
distances = sorted({r["prefetch_distance"] for r in tasks})
mops = lambda r: r["ops_per_s"] / 1e6
print("| workers | sync | " + " | ".join(f"d={d}" for d in distances) + " | best / off | reruns at best |")
print("| ---: | --- | " + " | ".join("---:" for _ in distances) + " | ---: | ---: |")
best = {}
for w in sorted({r["workers"] for r in tasks}):
    for s in ["latch", "rwlatch", "schedule", "optimistic"]:
        line = {r["prefetch_distance"]: r for r in tasks if r["workers"] == w and r["sync"] == s}
        if not line:
            continue
        top = max(line.values(), key=mops)
        best[(w, s)] = top
        off = line.get(0)
        ratio = f"{mops(top) / mops(off):.2f}x (d={top['prefetch_distance']})" if off else ""
        cells = " | ".join(f"{mops(line[d]):.2f}" if d in line else "" for d in distances)
        print(f"| {w} | {s} | {cells} | {ratio} | {top['reruns']} |")
others = [r for r in rows if r["variant"] != "tasks"]
if others:
    print()
    print("| workers | tasks, best (sync, d) | threads baseline | coro baseline |")
    print("| ---: | ---: | ---: | ---: |")
    for w in sorted({r["workers"] for r in rows}):
        cands = [r for (ww, _), r in best.items() if ww == w]
        top = max(cands, key=mops)
        base = {r["variant"]: r for r in others if r["workers"] == w}
        cell = lambda v: f"{mops(base[v]):.2f} ({mops(top) / mops(base[v]):.2f}x)" if v in base else ""
        print(f"| {w} | {mops(top):.2f} ({top['sync']}, {top['prefetch_distance']}) | {cell('threads')} | {cell('coro')} |")
print()
print(f"checksum {rows[0]['checksum']}, count {rows[0]['count']}, the same on every line: "
      f"{all(r['checksum'] == rows[0]['checksum'] and r['count'] == rows[0]['count'] for r in rows)}")
