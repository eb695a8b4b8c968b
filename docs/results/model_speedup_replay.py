# Replays Formula 3.4's memory cap on the summary lines of `weave bench model`
# files: the speedup each file predicted (every stage charged a whole miss at
# the memory's ceiling) against the one the current rule gives (a stage
# charged the share of a miss it stalls for, stall_ns / miss_ns), both from
# the file's own inputs, and each one's error against the measured speedup.
# Only files whose inputs come from cold runs (2026-12-03 on) say anything
# about the current model. Usage: python3 docs/results/model_speedup_replay.py FILE...
import json
import sys

print("| file | structure | measured | predicted (whole miss) | error | replayed (share of a miss) | error |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for path in sys.argv[1:]:
    for line in open(path):
        if '"predicted_speedup"' not in line:
            continue
        r = json.loads(line)
        c, s, sw = r["compute_ns"], r["stall_ns"], r["switch_ns"]
        miss, cap, measured = r["miss_ns"], r["ns_per_miss_ceiling"], r["measured_speedup"]
        share = min(max(s / miss, 0.0), 1.0) if miss > 0 else 1.0
        old = (c + s) / max(c + sw, cap, 1e-3)
        new = (c + s) / max(c + sw, cap * share, 1e-3)
        name = path.split("raw/")[-1]
        print(f"| {name} | {r['structure']} | {measured:.2f} | {old:.2f} | {old / measured - 1:+.0%} | "
              f"{new:.2f} | {new / measured - 1:+.0%} |")
