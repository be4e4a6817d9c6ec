#!/usr/bin/env bash
# Compare stackbench load with wrk and bombardier on one tiny net/http JSON
# server: requests per generator CPU-second, throughput, and the ratio to wrk.
#
#   bash bench/load/compare.sh              # 5 rounds of 5 s each, 64 connections
#   ROUNDS=7 DURATION=10 CONNS=64 bash bench/load/compare.sh
#   RSS=1 bash bench/load/compare.sh        # also: stackbench RSS after 5 s and 60 s
#   WORK=300 bash bench/load/compare.sh     # a CPU-bound server (300 SHA-256 per
#                                           # request): the throughputs must agree
#
# The server is pinned to CPU 0 and every generator to CPU 1 (taskset), and
# the generators alternate within each round, so a noisy neighbour hurts
# them alike. Generator CPU is user+system of the generator process, from
# bash's `time` (getrusage of the child). Needs taskset; wrk and bombardier
# are used when installed (apt-get install wrk; go install
# github.com/codesenberg/bombardier@v1.2.6, or set BOMBARDIER=path). The
# shared set-up is bench/load/lib.sh.
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5}
WORK=${WORK:-0}
PORT=${PORT:-18089}
. "$(dirname "$0")/lib.sh"
URL="http://127.0.0.1:$PORT/"

build_tools

BOMBARDIER=${BOMBARDIER:-$(command -v bombardier || true)}
gens=(stackbench)
command -v wrk >/dev/null && gens+=(wrk)
[ -n "$BOMBARDIER" ] && [ -x "$BOMBARDIER" ] && gens+=(bombardier)

start_server -work "$WORK"

# run_gen NAME: runs one generator; prints "requests cpu_seconds rps".
run_gen() {
	local out="$work/out" cpu
	case "$1" in
	stackbench)
		cpu=$(run_pinned "$work/stackbench" load -c "$CONNS" -d "${DURATION}s" -o json "$URL")
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["successes"], r["throughput_rps"])' "$out" >"$out.n"
		;;
	wrk)
		cpu=$(run_pinned wrk -t1 -c "$CONNS" -d "${DURATION}s" "$URL")
		python3 - "$out" >"$out.n" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
n = int(re.search(r"(\d+) requests in", s).group(1))
rps = float(re.search(r"Requests/sec:\s*([\d.]+)", s).group(1))
print(n, rps)
PY
		;;
	bombardier)
		cpu=$(run_pinned "$BOMBARDIER" -c "$CONNS" -d "${DURATION}s" -o json -p r "$URL")
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["result"]; print(r["req2xx"], r["rps"]["mean"])' "$out" >"$out.n"
		;;
	esac
	read -r n rps <"$out.n"
	echo "$n $cpu $rps"
}

echo "server: net/http JSON on CPU $SERVER_CPU; generators on CPU $GEN_CPU; $CONNS connections, ${DURATION}s, $ROUNDS rounds"
echo "load average before: $(load_average)"
: >"$work/results"
for round in $(seq "$ROUNDS"); do
	# Rotate the order every round.
	order=("${gens[@]:$((round % ${#gens[@]}))}" "${gens[@]:0:$((round % ${#gens[@]}))}")
	for g in "${order[@]}"; do
		read -r n cpu rps < <(run_gen "$g")
		printf 'round %d  %-10s %9d req  %6.2f CPU-s  %9.0f req/CPU-s  %9.0f req/s\n' \
			"$round" "$g" "$n" "$cpu" "$(python3 -c "print($n/$cpu)")" "$rps"
		echo "$round $g $n $cpu $rps" >>"$work/results"
	done
done
echo "load average after: $(load_average)"

python3 - "$work/results" <<'PY'
import statistics, sys
rows, by_round = {}, {}
for line in open(sys.argv[1]):
    rnd, g, n, cpu, rps = line.split()
    eff = int(n) / float(cpu)
    rows.setdefault(g, []).append((eff, float(rps)))
    by_round.setdefault(rnd, {})[g] = (eff, float(rps))
med = lambda xs: statistics.median(xs)
print()
print("Medians over the rounds; 'paired' is the median of each round's own ratio to wrk,")
print("which cancels slow drifts of the shared machine better than a ratio of medians.")
print(f"{'generator':<12}{'req/CPU-s':>12}{'min..max':>20}{'vs wrk':>8}{'paired':>8}{'req/s':>10}{'vs wrk':>8}{'paired':>8}")
w = rows.get("wrk")
for g, v in rows.items():
    eff, rps = med(e for e, _ in v), med(r for _, r in v)
    lo, hi = min(e for e, _ in v), max(e for e, _ in v)
    if w:
        pe = med(r[g][0] / r["wrk"][0] for r in by_round.values() if g in r and "wrk" in r)
        pr = med(r[g][1] / r["wrk"][1] for r in by_round.values() if g in r and "wrk" in r)
        cols = f"{eff / med(e for e, _ in w):>7.2f}x{pe:>7.2f}x{rps:>10,.0f}{rps / med(r for _, r in w):>8.3f}{pr:>8.3f}"
    else:
        cols = f"{'-':>8}{'-':>8}{rps:>10,.0f}{'-':>8}{'-':>8}"
    print(f"{g:<12}{eff:>12,.0f}{f'{lo:,.0f}..{hi:,.0f}':>20}{cols}")
PY

if [ "${RSS:-0}" = 1 ]; then
	echo
	echo "stackbench RSS during one 62 s run:"
	taskset -c "$GEN_CPU" "$work/stackbench" load -c "$CONNS" -d 62s -o json "$URL" >/dev/null &
	pid=$!
	sleep 5; rss5=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
	sleep 55; rss60=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
	wait $pid
	python3 -c "print(f'  RSS after 5 s: {$rss5} KiB; after 60 s: {$rss60} KiB; ratio {$rss60/$rss5:.3f}')"
fi
