#!/usr/bin/env python3
"""What a run's fixed-rate cost noise moves with: for each case, over the
final latency windows of every stack (each window's deviation from its
cell's median, on the log scale), the correlation of PostgreSQL's CPU per
request with the server's CPU per request, the generator's CPU per request
and the window's median latency; and of the server's with the generator's.

Usage: python3 bench/noise/corr.py RESULTS_DIR [RESULTS_DIR ...]
(RESULTS_DIR holds the run's journal.jsonl; see docs/methodology.md.)
"""
import json
import math
import statistics
import sys


def corr(a, b):
    ma, mb = statistics.mean(a), statistics.mean(b)
    sa = math.sqrt(sum((x - ma) ** 2 for x in a))
    sb = math.sqrt(sum((y - mb) ** 2 for y in b))
    if sa == 0 or sb == 0:
        return float("nan")
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (sa * sb)


def figures(r):
    n = r["load"]["successes"]
    return {
        "db": r["database"]["cpu_s"] / n,
        "server": r["server"]["cpu_s"] / n,
        "generator": r["generator"]["cpu_s"] / n,
        "p50": r["load"]["latency_us"]["p50"],
    }


def report(results_dir):
    with open(results_dir + "/journal.jsonl") as f:
        rows = [json.loads(line) for line in f]
    windows = [r for r in rows if r.get("kind") == "latency" and r.get("final") and r["load"]["successes"] > 0]
    print(results_dir)
    for case in sorted({r["case"] for r in windows}):
        dev = {k: [] for k in ("db", "server", "generator", "p50")}
        for stack in sorted({r["stack"] for r in windows}):
            cell = [figures(r) for r in windows if r["case"] == case and r["stack"] == stack]
            if len(cell) < 3:
                continue
            for k in dev:
                logs = [math.log(max(w[k], 1e-12)) for w in cell]
                m = statistics.median(logs)
                dev[k] += [x - m for x in logs]
        if len(dev["db"]) < 3:
            continue
        print(f"  {case:8} windows {len(dev['db']):3}  db~server {corr(dev['db'], dev['server']):+.2f}  "
              f"db~generator {corr(dev['db'], dev['generator']):+.2f}  db~p50 {corr(dev['db'], dev['p50']):+.2f}  "
              f"server~generator {corr(dev['server'], dev['generator']):+.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for d in sys.argv[1:]:
        report(d)
