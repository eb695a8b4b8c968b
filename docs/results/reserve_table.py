# The table of tpcc.md's "Fresh memory" part: python3 docs/results/reserve_table.py docs/results/raw/reserve-ab/runs.jsonl
import json, sys, statistics
from collections import defaultdict
runs = defaultdict(list)  # (threads, scheduler, mode, side) -> [median txn/s per process]
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get('run_type') != 'aggregate': continue
    runs[(r['threads'], r['scheduler'], r['mode'], r['side'])].append(r['txn_per_s'])
keys = sorted({k[:3] for k in runs})
print('| threads | mode | old k txn/s | new k txn/s | new, --reserve-mib k txn/s | new/old | reserve/new |')
print('| ---: | --- | --- | --- | --- | ---: | ---: |')
for k in keys:
    o, n, r = (runs.get(k + (s,), []) for s in ('old', 'new', 'reserve'))
    f = lambda v: ', '.join(f'{x/1000:.1f}' for x in v)
    m = lambda v: statistics.median(v) if v else float('nan')
    name = k[2] + (' (pipeline)' if k[1] == 'pipeline' else '')
    print(f'| {k[0]} | {name} | {f(o)} | {f(n)} | {f(r)} | {m(n)/m(o):.2f} | **{m(r)/m(n):.2f}** |')
