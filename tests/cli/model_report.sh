#!/usr/bin/env bash
# `bench model` on each structure: the inputs come from probe groups of
# whole slots, the predicted group is whole slots within the memory's cap and
# was swept, and the reported figures agree with the sweep they came from.
set -u
weave=$1
status=0
for structure in binary-search hash btree; do
  out=$("$weave" bench model --structure "$structure" --keys 20000 --lookups 20000 --group 1,4,16 --repeat 1 \
        --quiet 2>&1)
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: bench model --structure $structure exited $rc: $out"
    status=1
    continue
  fi
  printf '%s\n' "$out" | /usr/bin/python3 -c '
import json, math, sys
lines = [json.loads(l) for l in sys.stdin if l.startswith("{")]
rows = [r for r in lines if r.get("bench") == "model" and "predicted_group" not in r]
s = [r for r in lines if "predicted_group" in r][-1]
w = s["lookups_per_slot"]
errors = []
def check(ok, what):
    if not ok: errors.append(what)
groups = [r["group"] for r in rows]
check(groups == sorted(set(groups)), f"swept groups not ascending and unique: {groups}")
check(all(g % w == 0 for g in groups), f"swept groups not whole slots of {w}: {groups}")
check(len(s["probe_groups"]) in (1, 2) and all(g % w == 0 and g > 0 for g in s["probe_groups"]),
      "probe groups not whole slots of %d: %s" % (w, s["probe_groups"]))
check(len(s["probe_ns_per_lookup"]) == len(s["probe_groups"]), "a probe group without its time")
g = s["predicted_group"]
check(g % w == 0 and g in groups, f"predicted group {g} not whole slots of {w} or not swept")
cap = max(math.ceil(s["misses_in_flight"] / w), 2) * w
check(g <= cap, f"predicted group {g} above the cap {cap}")
best = min(r["ns_per_lookup"] for r in rows)
check(abs(s["measured_speedup"] - s["sweep_sequential_ns_per_lookup"] / best) <= 1e-9 * s["measured_speedup"],
      "measured speedup is not the sequential time of the sweep over its best")
stage = min(s["probe_ns_per_lookup"]) / s["stages_per_lookup"]
check(abs(s["compute_ns"] + s["switch_ns"] - stage) <= 1e-6 * stage or s["compute_ns"] == 0,
      "compute + switch is not the time per stage of the faster probe")
knee = s["knee_group"]
check(knee <= s["measured_group"] and knee in groups, f"knee {knee} after the fastest group or not swept")
for e in errors: print("FAIL: " + s["structure"] + ": " + e)
sys.exit(1 if errors else 0)
' || status=1
done
exit $status
