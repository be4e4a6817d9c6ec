#!/usr/bin/env bash
# Flows per generator CPU-second over h2c against HTTP/1.1: stackbench load
# --flow running the same four-step flow with captures (bench/flow/flow.json)
# against the same server process (bench/flow/server -h2c, which speaks both
# on one port), the same number of users each way: USERS connections over
# HTTP/1.1, USERS/STREAMS connections of STREAMS streams over h2c (a user
# per stream), and USERS connections of one stream over h2c. The order
# rotates every round.
#
#   bash bench/flow/h2c.sh                        # 5 rounds of 5 s
#   ROUNDS=7 DURATION=10 USERS=32 STREAMS=8 bash bench/flow/h2c.sh
#
# Server on CPU 0, the generator on CPU 1 (taskset). Generator CPU is
# user+system of the generator's process (bash time). Flows counted: the
# completed flows of the window (a run with a failed flow says so).
set -euo pipefail
cd "$(dirname "$0")/../.."

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5}
USERS=${USERS:-32}
STREAMS=${STREAMS:-8}
PORT=18094
URL="http://127.0.0.1:$PORT"

work=$(mktemp -d)
server_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/stackbench" ./cmd/stackbench
go build -o "$work/server" ./bench/flow/server
taskset -c 0 "$work/server" -h2c -addr "127.0.0.1:$PORT" &
server_pid=$!
for _ in $(seq 50); do curl -fs "$URL/" >/dev/null 2>&1 && break; sleep 0.1; done

# run_wire NAME: prints "flows cpu_seconds" for one run.
run_wire() {
	local t="$work/time" out="$work/out" args
	case "$1" in
	http1) args=(-c "$USERS") ;;
	h2c-streams) args=(--h2c -c "$((USERS / STREAMS))" --streams "$STREAMS") ;;
	h2c-conns) args=(--h2c -c "$USERS") ;;
	esac
	TIMEFORMAT='%U %S'
	{ time taskset -c 1 "$work/stackbench" load "${args[@]}" -d "${DURATION}s" -o json --flow bench/flow/flow.json "$URL" >"$out"; } 2>"$t"
	flows=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); f=r["flow"]; print(f["completed"]) if f["failed"] == 0 else print(f["completed"], "failed", f["failures"], file=sys.stderr) or print(f["completed"])' "$out")
	read -r u s <"$t"
	echo "$flows $(python3 -c "print($u+$s)")"
}

wires=(http1 h2c-streams h2c-conns)
echo "server (HTTP/1.1 and h2c) on CPU 0, generator on CPU 1; ${DURATION}s a run, $ROUNDS rounds; $USERS users each: http1 -c $USERS, h2c-streams -c $((USERS / STREAMS)) --streams $STREAMS, h2c-conns -c $USERS"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$work/results"
for round in $(seq "$ROUNDS"); do
	n=${#wires[@]}
	for k in $(seq 0 $((n - 1))); do
		g=${wires[$(((k + round) % n))]}
		read -r flows cpu < <(run_wire "$g")
		printf 'round %d  %-12s %8d flows  %6.2f CPU-s  %8.0f flows/CPU-s  %7.1f flows/s\n' "$round" "$g" "$flows" "$cpu" \
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
    extra = "" if g == "http1" else f"   {g} ÷ http1: {med[g] / med['http1']:.2f}×"
    print(f"{g:<12} flows per generator CPU-second, median {med[g]:>9,.0f}  (min {min(v):,.0f}, max {max(v):,.0f}){extra}")
PY
