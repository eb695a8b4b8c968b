# Prints the JSON lines of `weave bench tpcc` as a markdown table, with each
# mode's throughput against naive and prefetch at the same thread count.
# Usage: python3 docs/results/tpcc_table.py FILE.jsonl
import json
import sys

# Aggregate lines only (files from before the context line and repetition lines have neither).
rows = [r for r in (json.loads(l) for l in open(sys.argv[1]) if l.strip())
        if "context" not in r and r.get("run_type", "aggregate") == "aggregate"]
kinds = ["new_order", "payment", "order_status", "delivery", "stock_level", "q2"]
base = {(r["threads"], r["mode"]): r["txn_per_s"] for r in rows if r["mode"] in ("naive", "prefetch")}
print("| threads | mode | batch | txn/s | vs naive | vs prefetch | commits | aborts (by kind) | p50 us | p99 us | checks |")
print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |")
for r in rows:
    t = r["threads"]
    vs = lambda m: f"{r['txn_per_s'] / base[(t, m)]:.2f}x" if (t, m) in base else ""
    by_kind = ", ".join(f"{k} {r[k]['aborts']}" for k in kinds if k in r and r[k]["aborts"])
    checks = {True: "pass", False: "FAIL"}.get(r.get("consistent"), "")
    print(f"| {t} | {r['mode']} | {r['batch']} | {r['txn_per_s']:.0f} | {vs('naive')} | {vs('prefetch')} | "
          f"{r['commits']} | {r['aborts']} ({by_kind or 'none'}) | {r['p50_us']:.1f} | {r['p99_us']:.1f} | {checks} |")
