#!/usr/bin/env bash
# Flows per generator CPU-second: stackbench load --flow, Locust (Debian's
# python3-locust, FastHttpUser) and Artillery (npm), each running the same
# four-step flow with captures (bench/flow/flow.json: log in → list → read
# one item → like it, the token and an id captured) against the same
# server (bench/flow/server), one after another, the order rotating every
# round.
#
#   bash bench/flow/compare.sh                  # 3 rounds of 10 s
#   ROUNDS=5 DURATION=10 USERS=32 ARRIVAL=300 bash bench/flow/compare.sh
#
# Server on CPU 0, each generator on CPU 1 (taskset). Generator CPU is
# user+system of the generator's whole process tree (bash time). Flows
# counted: stackbench's completed flows in its window; Locust's successful
# "like" requests (the flow's last step); Artillery's vusers.completed.
# stackbench and Locust run closed (USERS users, no think time); Artillery
# is open (ARRIVAL users a second, each running the flow once). Needs
# locust on PATH (apt-get install python3-locust) and ARTILLERY (a path to
# its bin, e.g. after npm install artillery) — a missing one is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
USERS=${USERS:-32}
ARRIVAL=${ARRIVAL:-300}
PORT=18093
URL="http://127.0.0.1:$PORT"
ARTILLERY=${ARTILLERY:-$(command -v artillery || true)}
LOCUST=${LOCUST:-$(command -v locust || true)}

work=$(mktemp -d)
server_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/stackbench" ./cmd/stackbench
go build -o "$work/server" ./bench/flow/server
taskset -c 0 "$work/server" -addr "127.0.0.1:$PORT" &
server_pid=$!
for _ in $(seq 50); do curl -fs "$URL/" >/dev/null 2>&1 && break; sleep 0.1; done

# run_gen NAME: prints "flows cpu_seconds" for one run.
run_gen() {
	local t="$work/time" out="$work/out"
	TIMEFORMAT='%U %S'
	case "$1" in
	stackbench)
		{ time taskset -c 1 "$work/stackbench" load -c "$USERS" -d "${DURATION}s" -o json --flow bench/flow/flow.json "$URL" >"$out"; } 2>"$t"
		flows=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); f=r["flow"]; print(f["completed"]) if f["failed"] == 0 else print(f["completed"], "failed", f["failures"], file=sys.stderr) or print(f["completed"])' "$out") ;;
	locust)
		{ time taskset -c 1 "$LOCUST" -f bench/flow/locustfile.py --headless -u "$USERS" -r "$USERS" -t "${DURATION}s" \
			--host "$URL" --csv "$work/locust" --only-summary >/dev/null 2>"$work/locust.log"; } 2>"$t"
		flows=$(python3 -c 'import csv,sys
for row in csv.DictReader(open(sys.argv[1])):
    if row["Name"] == "like": print(int(row["Request Count"]) - int(row["Failure Count"]))' "$work/locust_stats.csv") ;;
	artillery)
		{ time DURATION="$DURATION" ARRIVAL="$ARRIVAL" taskset -c 1 "$ARTILLERY" run --quiet --output "$work/art.json" bench/flow/artillery.yml >/dev/null 2>"$work/art.log"; } 2>"$t"
		flows=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["aggregate"]["counters"]; print(c.get("vusers.completed", 0))' "$work/art.json") ;;
	esac
	read -r u s <"$t"
	echo "$flows $(python3 -c "print($u+$s)")"
}

gens=(stackbench)
[ -n "$LOCUST" ] && gens+=(locust) || echo "locust not found: skipped (apt-get install python3-locust)"
[ -n "$ARTILLERY" ] && gens+=(artillery) || echo "artillery not found: skipped (npm install artillery; ARTILLERY=path/to/bin/artillery)"
echo "server on CPU 0, generators on CPU 1; ${DURATION}s a run, $ROUNDS rounds; $USERS users (stackbench, locust), $ARRIVAL users/s (artillery)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$work/results"
for round in $(seq "$ROUNDS"); do
	n=${#gens[@]}
	for k in $(seq 0 $((n - 1))); do
		g=${gens[$(((k + round) % n))]}
		read -r flows cpu < <(run_gen "$g")
		printf 'round %d  %-10s %8d flows  %6.2f CPU-s  %8.0f flows/CPU-s  %7.1f flows/s\n' "$round" "$g" "$flows" "$cpu" \
			"$(python3 -c "print($flows/$cpu)")" "$(python3 -c "print($flows/$DURATION)")"
		echo "$g $flows $cpu" >>"$work/results"
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    g, flows, cpu = line.split()
    rows.setdefault(g, []).append(int(flows) / float(cpu))
med = {g: statistics.median(v) for g, v in rows.items()}
print()
for g, v in rows.items():
    extra = "" if g == "stackbench" else f"   stackbench ÷ {g}: {med['stackbench'] / med[g]:.1f}×"
    print(f"{g:<10} flows per generator CPU-second, median {med[g]:>9,.0f}  (min {min(v):,.0f}, max {max(v):,.0f}){extra}")
PY
