#!/usr/bin/env bash
# The README demo beside an ordinary neighbour (issue 43's acceptance run):
# stress-ng holding 10 % of one core (--cpu 1 --cpu-load 10) for the whole
# run, as a CI VM's background has. Run from the repository root:
#   bash bench/calls/neighbour.sh [FILE] [LOAD_PERCENT]
# FILE defaults to stackbench.yaml (the demo); stackbench.aa.yaml is the
# A/A check. It prints the run's wall time, its verdict lines, how many
# windows were flagged contended, and the foreign CPU the windows saw
# (median and 90th percentile), from the run's journal.
set -euo pipefail
cd "$(dirname "$0")/../.."
file="${1:-stackbench.yaml}"
load="${2:-10}"
command -v stress-ng >/dev/null || { echo "stress-ng is missing: apt-get install stress-ng" >&2; exit 2; }
out="$(mktemp -d)/results"
stress-ng --cpu 1 --cpu-load "$load" --timeout 20m >/dev/null 2>&1 &
neighbour=$!
trap 'kill $neighbour 2>/dev/null || true' EXIT
start=$(date +%s)
go run ./cmd/stackbench run -f "$file" --out "$out" 2>&1 | tee "$out.log" | grep -E '^(Decided|Not decided|To decide):' || true
echo "wall: $(( $(date +%s) - start )) s (go run included), neighbour: stress-ng --cpu 1 --cpu-load $load"
python3 - "$out/journal.jsonl" <<'PY'
import json, sys, statistics
foreign, contended, final = [], 0, 0
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("kind") not in ("window", "latency"):
        continue
    if "foreign_cores" in r:
        foreign.append(r["foreign_cores"])
    if r.get("final"):
        final += 1
        contended += "contended" in (r.get("flags") or [])
if foreign:
    foreign.sort()
    print("windows: %d final, %d final flagged contended; foreign CPU over all tries: median %.3f, p90 %.3f cores" %
          (final, contended, statistics.median(foreign), foreign[int(0.9 * (len(foreign) - 1))]))
PY
