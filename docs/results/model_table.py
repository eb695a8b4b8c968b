#!/usr/bin/env python3
"""One row per `weave bench model` file: the predicted group against the
sweep's knee and fastest group, the time at the predicted group against the
best, and the predicted speedup against the measured one.

    python3 docs/results/model_table.py DIR   (every model-*.jsonl in DIR)
"""
import glob
import json
import sys


def rows(path):
    lines = [json.loads(l) for l in open(path) if l.strip().startswith("{")]
    summary = [r for r in lines if "predicted_group" in r][-1]
    sweep = {r["group"]: r["ns_per_lookup"] for r in lines if "group" in r and "predicted_group" not in r}
    return summary, sweep


def main():
    print("| file | predicted G | knee | fastest | time at predicted G vs best | speedup predicted / measured |"
          " stage out of cache, one miss alone (ns) | sweep (G: ns a lookup) |")
    print("| --- | ---: | ---: | ---: | ---: | --- | --- | --- |")
    for path in sorted(glob.glob(sys.argv[1] + "/model-*.jsonl")):
        s, sweep = rows(path)
        stage = s["compute_ns"] + s["switch_ns"]
        err = s["predicted_speedup"] / s["measured_speedup"] - 1
        print(f"| {path.split('/')[-1][6:-6]} | {s['predicted_group']} | {s['knee_group']} | {s['measured_group']} |"
              f" {s['predicted_group_vs_best']:.2f}x | {s['predicted_speedup']:.2f} / {s['measured_speedup']:.2f}"
              f" ({err:+.0%}) | {stage:.1f}, {s['miss_ns']:.0f} |"
              f" {', '.join(f'{g}: {sweep[g]:.0f}' for g in sorted(sweep))} |")


if __name__ == "__main__":
    main()
