# Prints run-ab.sh's raw lines of `weave bench lookup` as a markdown table:
# for each configuration and thread count, process by process (side and
# round), each variant's best group (medians of its repetitions), coro
# against the best hand-written variant (GP or AMAC) and auto against coro's
# best; then the median of those ratios per side. Stops if the variants of a
# process disagree on the checksum.
# Usage: python3 docs/results/lookup_ab_table.py RUNS.jsonl
import collections
import json
import statistics
import sys

# (label, threads) -> (side, round) -> variant -> (ns, group)
best = collections.defaultdict(lambda: collections.defaultdict(dict))
checksums = collections.defaultdict(set)
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "context" in r or r.get("run_type") != "aggregate":
        continue
    process = (r["side"], r["round"])
    checksums[(r["label"], process)].add(r["checksum"])
    variants = best[(r["label"], r["threads"])][process]
    ns = r["ns_per_lookup"]
    if r["variant"] not in variants or ns < variants[r["variant"]][0]:
        variants[r["variant"]] = (ns, r["group"])
for key, sums in checksums.items():
    if len(sums) != 1:
        sys.exit(f"{key}: the variants disagree on the checksum: {sorted(sums)}")


def ratio(into, slower, faster):
    """faster's speed against slower's (their ns the other way round), kept in `into`."""
    if not (slower and faster):
        return "-"
    into.append(slower[0] / faster[0])
    return f"{slower[0] / faster[0]:.2f}x"


for (label, threads), processes in sorted(best.items()):
    print(f"\n{label}, {threads} thread(s): ns per lookup, best group in brackets\n")
    print("| binary | round | naive | best hand-written | coro | coro against it | auto | auto against coro |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios = collections.defaultdict(lambda: collections.defaultdict(list))
    for (side, rnd), v in sorted(processes.items()):
        hand = min((v[k] + (k,) for k in ("gp", "amac") if k in v), default=None)
        coro = v.get("coro")
        auto = v.get("auto")
        naive = v.get("naive")
        cells = [side, str(rnd), f"{naive[0]:.1f}" if naive else "-"]
        cells.append(f"{hand[0]:.1f} ({hand[2]}, {hand[1]})" if hand else "-")
        cells.append(f"{coro[0]:.1f} ({coro[1]})" if coro else "-")
        cells.append(ratio(ratios[side]["coro"], hand, coro))
        cells.append(f"{auto[0]:.1f} ({auto[1]})" if auto else "-")
        cells.append(ratio(ratios[side]["auto"], coro, auto))
        print("| " + " | ".join(cells) + " |")
    for side, r in sorted(ratios.items()):
        parts = [f"{what} median {statistics.median(x):.2f}x ({min(x):.2f}-{max(x):.2f})" for what, x in sorted(r.items())]
        print(f"\n{side}: " + "; ".join(parts))
