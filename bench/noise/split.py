#!/usr/bin/env python3
"""Where a run's fixed-rate cost noise lives: for each adjacent step and case,
the robust SD (1.4826 x MAD) of the per-round log-ratio of the step's two
latency windows, for the server's CPU per request, the database's, and both.

Usage: python3 bench/noise/split.py RESULTS_DIR [RESULTS_DIR ...]
(RESULTS_DIR holds the run's journal.jsonl; only final latency windows count.)
"""
import json
import math
import statistics
import sys
from collections import defaultdict


def robust_sd(xs):
    if len(xs) < 3:
        return float("nan")
    m = statistics.median(xs)
    return 1.4826 * statistics.median([abs(x - m) for x in xs])


def split(results_dir):
    stacks, cells = [], defaultdict(dict)
    with open(results_dir + "/journal.jsonl") as f:
        for line in f:
            r = json.loads(line)
            if r.get("kind") == "plan":
                stacks = [s["name"] for s in r["plan"]["stacks"]]
            if r.get("kind") != "latency" or not r.get("final"):
                continue
            n = r["load"]["successes"]
            if n == 0:
                continue
            cells[(r["stack"], r["case"])][r["round"]] = (
                r["server"]["cpu_s"] / n, r["database"]["cpu_s"] / n)
    print(results_dir)
    print(f"  {'case':8} {'step':40} {'pairs':>5} {'server':>8} {'database':>9} {'both':>7}")
    for case in sorted({c for _, c in cells}):
        for a, b in zip(stacks, stacks[1:]):
            A, B = cells.get((a, case), {}), cells.get((b, case), {})
            rounds = sorted(set(A) & set(B))
            server = [100 * math.log(B[r][0] / A[r][0]) for r in rounds]
            both = [100 * math.log(sum(B[r]) / sum(A[r])) for r in rounds]
            db = [100 * math.log(B[r][1] / A[r][1]) for r in rounds if A[r][1] > 0 and B[r][1] > 0]
            # A route with no database work has only PostgreSQL's background
            # CPU in its database column (under 5 % of the server's): not a
            # figure of the route.
            med = lambda i: statistics.median([A[r][i] for r in rounds]) if rounds else 0
            dbs = robust_sd(db) if med(1) > 0.05 * med(0) else float("nan")
            print(f"  {case:8} {a + ' -> ' + b:40} {len(rounds):5} {robust_sd(server):7.1f}% {dbs:8.1f}% {robust_sd(both):6.1f}%")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for d in sys.argv[1:]:
        split(d)
