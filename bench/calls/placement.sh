#!/usr/bin/env bash
# Does placement: lanes change the spread? Runs bench/calls/stackbench.yaml
# (an A/A pair and a known slowdown) alternately with --placement shared and
# --placement lanes, PAIRS times each (shared first), same profile, then
# prints per run its wall time, the robust dispersion of the windows (the
# report header's median robust CV over the cells) and each A/A case's
# interval width, and the medians per placement. Run from the repository
# root:
#   bash bench/calls/placement.sh [PAIRS] [extra run flags...]
# e.g. bash bench/calls/placement.sh 2 --rounds 10 --boot-starts 0
# (a fixed number of rounds, so that every run's intervals rest on as many
# windows and their widths compare).
# docs/placement.md has the figures measured with it.
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs="${1:-2}"
shift || true
base="$(mktemp -d /tmp/stackbench-placement-XXXX)"
go build -o "$base/stackbench" ./cmd/stackbench
dirs=()
for i in $(seq 1 "$pairs"); do
	for mode in shared lanes; do
		out="$base/$i-$mode"
		start=$(date +%s)
		"$base/stackbench" run -f bench/calls/stackbench.yaml --placement "$mode" --out "$out" "$@" >"$base/$i-$mode.log" 2>&1 || true
		echo "$(( $(date +%s) - start ))" >"$out.wall_s"
		dirs+=("$out")
		echo "run $i $mode: $(cat "$out.wall_s") s, $(grep -c '"kind":"window"' "$out/journal.jsonl" || true) window records, in $out" >&2
	done
done
python3 - "${dirs[@]}" <<'PY'
import json, os, statistics, sys
rows = {"shared": [], "lanes": []}
for d in sys.argv[1:]:
    mode = d.rsplit("-", 1)[1]
    m = json.load(open(os.path.join(d, "report.json")))
    h = m["header"]
    wall = int(open(d + ".wall_s").read())
    aa = {}
    burn = {}
    for s in m["steps"]:
        t = s["throughput"]
        lo, hi = t.get("ci_low_pct"), t.get("ci_high_pct")
        width = hi - lo if lo is not None and hi is not None else float("inf")  # no finite interval
        if s["from"] == "pgx-a" and s["to"] == "pgx-b":
            aa[s["case"]] = (t["call"], t.get("estimate_pct", float("nan")), width)
        if s["from"] == "pgx-a" and s["to"] == "pgx-burn":
            burn[s["case"]] = (t["call"], t.get("estimate_pct", float("nan")), width)
    cv = h["dispersion"]["median_cv"] if h["dispersion"].get("known") else float("nan")
    rps, starved = {}, 0
    for line in open(os.path.join(d, "journal.jsonl")):
        r = json.loads(line)
        r = r.get("data", r)
        if r.get("kind") != "window" or not r.get("final") or r.get("load") is None:
            continue
        flags = set(r.get("flags") or [])
        starved += "client_starved" in flags
        if flags & {"invalid", "failed", "contended", "suspended", "host_slow", "server_died"}:
            continue  # not counted by the report either
        rps.setdefault((r["stack"], r["case"]), []).append(r["load"]["throughput_rps"])
    pl = h.get("placement", {})
    print("%-7s %-40s wall %4d s, %3d windows, robust CV median %.1f %%, placement %s" % (
        mode, os.path.basename(d), wall, h["windows_recorded"], 100 * cv,
        pl.get("mode", "?") + (" server %s database %s generator %s" % (pl.get("server_cpus"), pl.get("database_cpus"), pl.get("generator_cpus")) if pl.get("mode") == "lanes" else "")))
    disp = h["dispersion"]
    waits = [c["generator_wait_cores"] for c in m["cells"] if c.get("generator_wait_cores") is not None]
    print("        between-process CV median %s; generator waiting for a CPU: median %.2f cores over the cells" % (
        "%.1f %%" % (100 * disp["median_between_process_cv"]) if disp.get("median_between_process_cv") else "n/a",
        statistics.median(waits) if waits else float("nan")))
    print("        median req/s of counted windows: " + "; ".join("%s %s %.0f" % (k[0], k[1], statistics.median(v)) for k, v in sorted(rps.items())) + "; %d window(s) client_starved" % starved)
    for name, steps in (("A/A", aa), ("burn", burn)):
        print("        %-4s " % name + "; ".join("%s %s %+.1f %% (width %.1f pts)" % (c, v[0], v[1], v[2]) for c, v in sorted(steps.items())))
    rows[mode].append((wall, cv, [v[2] for v in aa.values()], h["windows_recorded"]))
for mode, rs in rows.items():
    if not rs:
        continue
    widths = [w for r in rs for w in r[2]]
    print("%-7s median over %d runs: wall %.0f s, windows %.0f, robust CV %.1f %%, A/A interval width %.1f points (median over %d A/A intervals)" % (
        mode, len(rs), statistics.median(r[0] for r in rs), statistics.median(r[3] for r in rs),
        100 * statistics.median(r[1] for r in rs), statistics.median(widths), len(widths)))
PY
