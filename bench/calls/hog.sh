#!/usr/bin/env bash
# The busy-start check of docs/traps.md (T15): a one-core CPU hog runs
# through the gate's calibration and the first windows of a short run of
# bench/calls/stackbench.yaml; then no window that counts may have had a
# quarter core or more of foreign CPU. Run from the repository root:
#   bash bench/calls/hog.sh [HOG_SECONDS]
# It prints the gate the run chose and, per window, the foreign CPU and
# whether the window counts, and exits 1 if a counted window had 0.25 cores
# or more of foreign CPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
hog_s="${1:-60}"
out="$(mktemp -d)/results"
go build -o /tmp/stackbench-hog ./cmd/stackbench
timeout "$hog_s" sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null || true' EXIT
/tmp/stackbench-hog run -f bench/calls/stackbench.yaml --rounds 4 --boot-starts 0 --out "$out" 2>&1 |
	grep -E 'contention gate|warning: the host|stopped|measured [0-9]+ windows' || true
python3 - "$out/journal.jsonl" <<'PY'
import json, sys
bad = counted = flagged = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("kind") == "environment":
        print("gate %.2f cores, host at rest %.2f, busy at start: %s" % (r.get("gate_threshold_cores", 0), r.get("gate_baseline_cores", 0), r.get("gate_busy_at_start", False)))
    if r.get("kind") != "window" or not r.get("final"):
        continue
    flags = set(r.get("flags") or [])
    counts = r.get("load") is not None and not flags & {"invalid", "failed", "contended", "suspended", "host_slow"}
    f = r.get("foreign_cores", 0)
    counted += counts
    flagged += not counts
    if counts and f >= 0.25:
        bad += 1
    print("%-28s foreign %.2f  %s" % (r["key"], f, "counts" if counts else "not counted: " + ",".join(sorted(flags))))
print("%d counted, %d not counted; %d counted with 0.25 cores or more of foreign CPU" % (counted, flagged, bad))
sys.exit(1 if bad else 0)
PY
