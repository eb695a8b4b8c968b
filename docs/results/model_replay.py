#!/usr/bin/env python3
"""Replays the out-of-cache model (bench/model_bench.hpp, 2026-12-03) on the
sweeps of earlier `weave bench model` files, which ran the cached-input model.

The probe groups' times are read off each file's own sweep (the nearest swept
group at or above each probe group), so this checks the rule, not a run of it:
    stage = min(time at the probe groups) / stages
    G     = Formula 3.2 in whole slots with one miss alone, capped as in model.hpp
    speedup = sequential / min(time at the probe groups)

    python3 docs/results/model_replay.py docs/results/raw
"""
import glob
import json
import math
import sys


def whole(x, w):
    return int(math.ceil(x / w) * w)


def main():
    hits_g = hits_s = old_g = old_s = n = 0
    print("| file | width | probe groups | predicted G (new) | predicted G (file's) | knee | speedup error (new) | speedup error (file's) |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for path in sorted(glob.glob(sys.argv[1] + "/**/model*.jsonl", recursive=True)):
        lines = [json.loads(l) for l in open(path) if l.strip().startswith("{")]
        summaries = [r for r in lines if "predicted_group" in r]
        if not summaries or not summaries[-1].get("misses_in_flight") or "probe_groups" in summaries[-1]:
            continue  # no memory limits recorded, or already the new model
        s = summaries[-1]
        sweep = {r["group"]: r["ns_per_lookup"] for r in lines if "group" in r and "predicted_group" not in r}
        groups = sorted(sweep)
        best = min(sweep.values())
        knee = next(g for g in groups if sweep[g] <= best * 1.05)
        width = s.get("lookups_per_slot", 1)
        in_flight = s["misses_in_flight"]

        def at(g):
            above = [x for x in groups if x >= g]
            return above[0] if above else groups[-1]

        probes = sorted({at(whole(in_flight // 2 + width, width)), at(whole(in_flight + width, width))})
        probe_ns = min(sweep[p] for p in probes)
        stage = probe_ns / s["stages_per_lookup"]
        switch = s["switch_ns"]
        target = max(s["miss_ns"], 0) - switch
        slots = math.ceil(target / (width * stage)) + 1 if target > 0 else 1
        slots = min(slots, max(math.ceil(in_flight / width), 2))
        g = slots * width
        err = s["sequential_ns_per_lookup"] / probe_ns / s["measured_speedup"] - 1
        old_err = s["predicted_speedup"] / s["measured_speedup"] - 1
        n += 1
        hits_g += abs(g - knee) <= 2 or (width > 2 and g == knee)
        hits_s += abs(err) <= 0.15
        old_g += abs(s['predicted_group'] - knee) <= 2 or (width > 2 and s['predicted_group'] == knee)
        old_s += abs(old_err) <= 0.15
        print(f"| {path.split('raw/')[-1]} | {width} | {probes} | {g} | {s['predicted_group']} | {knee} |"
              f" {err:+.0%} | {old_err:+.0%} |")
    print(f"\n{n} files: the group within 2 of the knee (the same whole slot where slots hold more than 2) "
          f"in {hits_g}, the speedup within 15% in {hits_s}; the files' own predictions: {old_g} and {old_s}")


if __name__ == "__main__":
    main()
