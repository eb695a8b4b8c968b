# Prints the JSON lines of `weave bench lookup` as a markdown table: one row
# per (threads, variant, group), with the speedup over naive at the same
# thread count. Usage: python3 docs/results/table.py FILE.jsonl
import json
import sys

# Aggregate lines only (files from before the context line and repetition lines have neither).
rows = [r for r in (json.loads(l) for l in open(sys.argv[1]) if l.strip())
        if "context" not in r and r.get("run_type", "aggregate") == "aggregate"]
naive = {r["threads"]: r["ns_per_lookup"] for r in rows if r["variant"] == "naive"}
print("| threads | variant | G | ns/lookup | vs naive | ceiling ns | checksum |")
print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    t = r["threads"]
    speed = f"{naive[t] / r['ns_per_lookup']:.2f}x" if t in naive else ""  # blank when naive did not run
    ceiling = r.get("ceiling_ns_per_lookup")
    ceiling = f"{ceiling:.0f}" if ceiling is not None else ""
    print(f"| {t} | {r['variant']} | {r['group']} | {r['ns_per_lookup']:.1f} | {speed} | {ceiling} | {r['checksum']} |")
