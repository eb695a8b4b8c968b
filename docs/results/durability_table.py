#!/usr/bin/env python3
"""Markdown table of weave bench ycsb/tpcc aggregate lines (durability runs).

usage: durability_table.py FILE.jsonl ...   (the first file of each bench is its `off` reference)
"""
import json
import sys

print("| bench | threads | durability | window us | mode | txn/s (median) | vs off | p50 us | p99 us | log B/txn | groups/s | write+sync us/group |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
off = {}
for name in sys.argv[1:]:
    with open(name) as f:
        for line in f:
            d = json.loads(line)
            if d.get("run_type") != "aggregate":
                continue
            key = (d["bench"], d["threads"], d["mode"])
            tps = d["txn_per_s"]
            if d["durability"] == "off":
                off[key] = tps
            ref = off.get(key)
            seconds = d["seconds"] * d["repeat"]
            groups = d.get("log_groups")
            print("| {} | {} | {} | {} | {} | {:,.0f} | {} | {:.0f} | {:.0f} | {} | {} | {} |".format(
                d["bench"], d["threads"], d["durability"], d.get("group_commit_us", "-"), d["mode"], tps,
                "{:.2f}x".format(tps / ref) if ref else "-", d["p50_us"], d["p99_us"],
                "{:.0f}".format(d["log_bytes_per_txn"]) if "log_bytes_per_txn" in d else "-",
                "{:.0f}".format(groups / seconds) if groups is not None else "-",
                "{:.0f}".format(d["log_write_us"]) if "log_write_us" in d else "-"))
