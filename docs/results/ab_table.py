# Prints old against new JSON lines of one `weave bench ycsb|tpcc` command as a
# markdown table: each (threads, mode)'s throughput in both and their ratio.
# Usage: python3 docs/results/ab_table.py OLD.jsonl NEW.jsonl [OLD2.jsonl NEW2.jsonl ...]
# With several pairs (the same command run again), each pair is a column of ratios.
import json
import sys

pairs = [(sys.argv[i], sys.argv[i + 1]) for i in range(1, len(sys.argv), 2)]


def load(path):
    rows = (json.loads(l) for l in open(path) if l.strip())
    return {(r["threads"], r["mode"]): r for r in rows if "context" not in r and r.get("run_type", "aggregate") == "aggregate"}


runs = [(load(o), load(n)) for o, n in pairs]
head = "| threads | mode | old txn/s | new txn/s | new/old |"
if len(runs) > 1:
    head += "".join(f" new/old, run {i + 1} |" for i in range(1, len(runs)))
print(head)
print("| ---: | --- | ---: | ---: | ---: |" + " ---: |" * (len(runs) - 1))
for key, old in runs[0][0].items():
    new = runs[0][1][key]
    line = f"| {key[0]} | {key[1]} | {old['txn_per_s']:.0f} | {new['txn_per_s']:.0f} | {new['txn_per_s'] / old['txn_per_s']:.3f} |"
    for o, n in runs[1:]:
        line += f" {n[key]['txn_per_s'] / o[key]['txn_per_s']:.3f} |"
    print(line)
