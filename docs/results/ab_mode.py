# The name a row of run-ab.sh's tables gives a JSON line's mode, shared by
# ab_rounds_table.py and ab_latency_table.py so that their rows match: the
# pipeline and a batch of auto are named beside the mode, since one process
# may run them next to strict or fixed batches.


def mode_of(r):
    mode = r["mode"] + (f" ({r['scheduler']})" if r.get("scheduler") == "pipeline" else "")
    if r.get("batch") == "auto":
        mode += " (batch auto)"
    return mode
