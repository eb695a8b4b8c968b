# Prints the JSON lines of `weave bench in-predicate` / `weave bench reconstruct`
# as a markdown table, with each variant's speedup over sequential on the same
# table. Usage: python3 docs/results/column_table.py FILE.jsonl
import json
import sys

# Aggregate lines only (files from before the context line and repetition lines have neither).
rows = [r for r in (json.loads(l) for l in open(sys.argv[1]) if l.strip())
        if "context" not in r and r.get("run_type", "aggregate") == "aggregate"]
key = "ms_per_query" if "ms_per_query" in rows[0] else "us_per_query"
answer = "count" if "count" in rows[0] else "checksum"


def table_of(r):
    return (r.get("type", r.get("types")), r.get("fragment", ""), r["distinct"], r.get("columns", 1))


sequential = {table_of(r): r[key] for r in rows if r["variant"] == "sequential"}
print(f"| type | fragment | distinct | dictionary | variant | G | {key.replace('_', ' ')} | vs sequential | {answer} |")
print("| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
for r in rows:
    t = table_of(r)
    mib = r["dictionary_bytes"] / 2**20
    size = f"{mib / 1024:.2f} GiB" if mib >= 1024 else f"{mib:.1f} MiB"
    print(f"| {t[0]} | {t[1]} | {r['distinct']} | {size} | {r['variant']} | {r['group']} | "
          f"{r[key]:.2f} | {sequential[t] / r[key]:.2f}x | {r[answer]} |")
