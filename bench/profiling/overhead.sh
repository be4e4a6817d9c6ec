#!/usr/bin/env bash
# What do the profiling phase's samplers cost a server? For each reference
# stack and case, one server process serves ROUNDS pairs of windows of
# DURATION seconds: one plain, one with the profiling phase's samplers on
# (Go's CPU profile through /debug/pprof/profile, the allocation profile read
# before and after, perf record -e cpu-clock -F 499 -g over the server's
# process), in alternating order. It prints each pair and, per stack and case,
# the medians of the pairs' ratios (profiled ÷ plain) of throughput and of
# CPU per request: the server's CPU time from /proc/<pid>/stat over the
# load's run, plus perf's own, divided by the successful requests. On a
# shared host throughput swings with the neighbours; CPU per request much
# less, so it is the figure to read there.
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
# SAMPLERS: which of the phase's samplers run in the profiled windows.
SAMPLERS=${SAMPLERS:-"go perf"}
PERF_HZ=${PERF_HZ:-499}
# PERF_TARGET: "-p" samples the server's threads (the phase's way), "-a"
# every CPU.
PERF_TARGET=${PERF_TARGET:--p}
work=$(mktemp -d)
chmod o+x "$work" # the database runs as postgres when this runs as root
trap 'kill $(jobs -p) 2>/dev/null || true; go run ./cmd/stackbench db down --dir "$work/db" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

go build -o "$work/sb" ./cmd/stackbench
url=$("$work/sb" db up --dir "$work/db" | grep -o 'postgres://[^ ]*' | head -1)
[ -n "$url" ] || { echo "could not start the database" >&2; exit 1; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {printf "%.3f", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
declare -A path=([cpu]="/cpu?n=15000" [user]="/users/4242")

ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
# rps prints "throughput server_cpu_ticks successes" of one load run on $1
# (server $2; ticks of 10 ms over the whole run, warm-up included).
rps() {
	local t0 t1 out
	t0=$(ticks "$2")
	out=$("$work/sb" load -c "$CONNS" -warmup 1s -d "${DURATION}s" -o json "$1")
	t1=$(ticks "$2")
	python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["throughput_rps"], int(sys.argv[3])-int(sys.argv[2]), r["successes"])' "$out" "$t0" "$t1"
}
# perq turns "throughput ticks successes [extra ticks]" into "throughput cpu_us_per_request".
perq() { python3 -c 'import sys; a=sys.argv[1].split(); e=float(sys.argv[2]); print(a[0], (int(a[1])+e)*1e4/max(1,int(a[2])))' "$1" "${2:-0}"; }

for st in $STACKS; do
	(cd "apps/$st" && go build $([ -f cpu.pgo ] && echo -pgo=cpu.pgo) -o "$work/$st" .)
	port=$((20000 + RANDOM % 20000))
	PORT=$port DATABASE_URL=$url JWT_SECRET=bench-secret-do-not-use-in-prod STACKBENCH_WORKLOAD=saas-slice "$work/$st" &
	pid=$!
	for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
	for cs in $CASES; do
		u="http://127.0.0.1:$port${path[$cs]}"
		ratios=() cpus=()
		for r in $(seq "$ROUNDS"); do
			profiled() {
				# The samplers start with the load's window, after its 1 s warm-up.
				local c=0 p=0
				echo "0 0" >"$work/perftime"
				if [[ $SAMPLERS == *go* ]]; then
					(sleep 1; curl -fs "http://127.0.0.1:$port/debug/pprof/allocs" -o /dev/null
						curl -fs "http://127.0.0.1:$port/debug/pprof/profile?seconds=$DURATION" -o /dev/null) &
					c=$!
				fi
				if [[ $SAMPLERS == *perf* ]]; then
					# perf starts with the load, as the profiling phase starts it
					# before the warm-up: its start (reading every process's maps)
					# is then outside the window, its CPU is not.
					(TIMEFORMAT='%U %S'; { time perf record -q -e cpu-clock -F "$PERF_HZ" -g $( [ "$PERF_TARGET" = -a ] && echo -a || echo -p "$pid") -o "$work/perf.data" -- sleep "$((DURATION + 1))" >/dev/null 2>&1; } 2>"$work/perftime") &
					p=$!
				fi
				local res
				res=$(rps "$u" "$pid")
				[ "$c" = 0 ] || wait "$c" || true
				[ "$p" = 0 ] || wait "$p" || true
				# perf's own CPU, in ticks of 10 ms, joins the profiled side.
				perq "$res" "$(awk '{printf "%.1f", ($1+$2)*100}' "$work/perftime")"
				[[ $SAMPLERS != *go* ]] || curl -fs "http://127.0.0.1:$port/debug/pprof/allocs" -o /dev/null
			}
			if ((r % 2)); then a=$(perq "$(rps "$u" "$pid")"); b=$(profiled); else b=$(profiled); a=$(perq "$(rps "$u" "$pid")"); fi
			read -r ar ac <<<"$a"
			read -r br bc <<<"$b"
			ratios+=("$(python3 -c "print($br/$ar)")")
			cpus+=("$(python3 -c "print($bc/$ac)")")
			printf '%s %s round %d: plain %.1f req/s %.1f CPU-µs/req, profiled %.1f req/s %.1f CPU-µs/req\n' "$st" "$cs" "$r" "$ar" "$ac" "$br" "$bc"
		done
		printf '%s %s: median ratios (profiled ÷ plain): throughput %s, CPU per request %s\n' "$st" "$cs" "$(median "${ratios[@]}")" "$(median "${cpus[@]}")"
	done
	kill "$pid"; wait "$pid" 2>/dev/null || true
done
