#!/usr/bin/env python3
"""Tables of latency-target.md from the JSON lines of one run:

  weave bench ycsb|tpcc ... --batch 1,2,...,32 --latency-target-us P1,P2,... --repeat N > FILE
  python3 docs/results/latency_target_table.py FILE

Reads the "aggregate" lines (median throughput, p99 over all repetitions)
and prints the fixed batches (or depths), then each target against the
fastest fixed batch whose p99 met the same target.
"""
import json
import sys


def main(path):
    fixed, targets = {}, {}
    for line in open(path):
        if not line.startswith("{"):
            continue
        x = json.loads(line)
        if x.get("run_type") != "aggregate":
            continue
        if "latency_target_us" in x:
            targets[x["latency_target_us"]] = x
        else:
            fixed[x["batch"]] = x
    if not fixed or not targets:
        sys.exit(f"{path}: needs aggregate lines for fixed batches and for targets")
    pipeline = next(iter(fixed.values())).get("scheduler") == "pipeline"
    size = "depth" if pipeline else "batch"
    print(f"| {size} | txn/s | p50 us | p99 us |")
    print("| --- | ---: | ---: | ---: |")
    for b in sorted(fixed):
        x = fixed[b]
        print(f"| {b} | {x['txn_per_s']:,.0f} | {x['p50_us']:,.1f} | {x['p99_us']:,.1f} |")
    print()
    print(f"| target p99 | txn/s | p99 us | mean {size} | windows over target "
          f"| best fixed {size} under the target | against it |")
    print("| --- | ---: | ---: | ---: | ---: | --- | ---: |")
    for p in sorted(targets):
        x = targets[p]
        meeting = [f for f in fixed.values() if f["p99_us"] <= p]
        if meeting:
            best = max(meeting, key=lambda f: f["txn_per_s"])
            against = f"{best['batch']}: {best['txn_per_s']:,.0f} | {x['txn_per_s'] / best['txn_per_s']:.2f}x"
        else:
            against = "none | -"
        print(f"| {p:g} us | {x['txn_per_s']:,.0f} | {x['p99_us']:,.1f} | {x['group_mean']:.1f} "
              f"| {x['windows_missed']} of {x['windows']:,} | {against} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: latency_target_table.py FILE")
    main(sys.argv[1])
