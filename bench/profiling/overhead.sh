#!/usr/bin/env bash
# What do the profiling phase's samplers cost a server? For each reference
# stack and case, one server process serves ROUNDS pairs of windows of
# DURATION seconds: one plain, one with the profiling phase's samplers on
# (Go's CPU profile through /debug/pprof/profile, the allocation profile read
# before and after, perf record -e cpu-clock -F 499 -g over the server's
# process), in alternating order. It prints each pair and, per stack and case,
# the median of the pairs' throughput ratios (profiled ÷ plain).
#
#   bash bench/profiling/overhead.sh                     # 5 pairs × 5 s
#   ROUNDS=7 DURATION=5 CASES="cpu user" bash bench/profiling/overhead.sh
#
# Needs the embedded database (stackbench db up), perf, and root.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5}
CONNS=${CONNS:-32}
STACKS=${STACKS:-"nethttp-pq nethttp-pgx nethttp-pgx-pgo"}
CASES=${CASES:-"cpu user"}
work=$(mktemp -d)
chmod o+x "$work" # the database runs as postgres when this runs as root
trap 'kill $(jobs -p) 2>/dev/null || true; go run ./cmd/stackbench db down --dir "$work/db" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

go build -o "$work/sb" ./cmd/stackbench
url=$("$work/sb" db up --dir "$work/db" | grep -o 'postgres://[^ ]*' | head -1)
[ -n "$url" ] || { echo "could not start the database" >&2; exit 1; }
declare -A path=([cpu]="/cpu?n=15000" [user]="/users/4242")

rps() { "$work/sb" load -c "$CONNS" -warmup 1s -d "${DURATION}s" -o json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["throughput_rps"])'; }

for st in $STACKS; do
	(cd "apps/$st" && go build -o "$work/$st" .)
	port=$((20000 + RANDOM % 20000))
	PORT=$port DATABASE_URL=$url JWT_SECRET=bench-secret-do-not-use-in-prod STACKBENCH_WORKLOAD=saas-slice "$work/$st" &
	pid=$!
	for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
	for cs in $CASES; do
		u="http://127.0.0.1:$port${path[$cs]}"
		ratios=()
		for r in $(seq "$ROUNDS"); do
			profiled() {
				# The samplers start with the load's window, after its 1 s warm-up.
				(sleep 1; curl -fs "http://127.0.0.1:$port/debug/pprof/allocs" -o /dev/null
					curl -fs "http://127.0.0.1:$port/debug/pprof/profile?seconds=$DURATION" -o /dev/null) &
				local c=$!
				(sleep 1; perf record -q -e cpu-clock -F 499 -g -p "$pid" -o "$work/perf.data" -- sleep "$DURATION" >/dev/null 2>&1) &
				local p=$!
				rps "$u"
				wait "$c" "$p" || true
				curl -fs "http://127.0.0.1:$port/debug/pprof/allocs" -o /dev/null
			}
			if ((r % 2)); then a=$(rps "$u"); b=$(profiled); else b=$(profiled); a=$(rps "$u"); fi
			ratio=$(python3 -c "print($b/$a)")
			ratios+=("$ratio")
			printf '%s %s round %d: plain %.1f req/s, profiled %.1f req/s, ratio %.3f\n' "$st" "$cs" "$r" "$a" "$b" "$ratio"
		done
		printf '%s %s: median ratio %s\n' "$st" "$cs" "$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')"
	done
	kill "$pid"; wait "$pid" 2>/dev/null || true
done
