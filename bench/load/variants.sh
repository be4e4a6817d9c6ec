#!/usr/bin/env bash
# Does cycling over request variants cost the generator anything? stackbench
# load against one tiny net/http server, alternating two request sources:
#
#   fixed     one request: GET /articles/bench-1 with an Authorization header
#   variants  a pool of 1,000 pre-encoded requests of the same shape
#             (GET /articles/bench-N?offset=M, each with its own header value),
#             as a templated case of a custom workload sends them
#
# and prints requests per generator CPU-second for each, their medians and
# the median of each round's own ratio (variants ÷ fixed).
#
#   bash bench/load/variants.sh               # 9 rounds of 4 s, 64 connections
#   ROUNDS=15 DURATION=5 bash bench/load/variants.sh
#
# Server on CPU 0, generator on CPU 1 (taskset), the order swapped every
# round. Generator CPU is user+system of the generator process (bash time).
# The shared set-up is bench/load/lib.sh.
ROUNDS=${ROUNDS:-9}
DURATION=${DURATION:-4}
PORT=${PORT:-18090}
N=${VARIANTS:-1000}
. "$(dirname "$0")/lib.sh"
URL="http://127.0.0.1:$PORT"

build_tools
python3 - "$N" >"$work/pool.jsonl" <<'PY'
import json, sys
n = int(sys.argv[1])
for k in range(n):
    print(json.dumps({"method": "GET", "path": f"/articles/bench-{k % 200 + 1}?offset={(k * 7919) % 191}",
                      "headers": {"Authorization": f"Token tok-{k:04d}"}}))
PY
echo '{"method":"GET","path":"/articles/bench-1","headers":{"Authorization":"Token tok-0000"}}' >"$work/one.jsonl"

start_server

# run_gen fixed|variants: prints "requests cpu_seconds rps pool_size".
run_gen() {
	local src= cpu
	case "$1" in
	fixed) src=(-H "Authorization: Token tok-0000" "$URL/articles/bench-1") ;;
	variants) src=(--requests "$work/pool.jsonl" "$URL") ;;
	esac
	cpu=$(run_pinned "$work/stackbench" load -c "$CONNS" -d "${DURATION}s" -o json "${src[@]}")
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["successes"], sys.argv[2], r["throughput_rps"], r.get("pool_size", 1))' "$work/out" "$cpu"
}

echo "server on CPU $SERVER_CPU, generator on CPU $GEN_CPU; $CONNS connections, ${DURATION}s, $ROUNDS rounds; $N variants"
echo "load average before: $(load_average)"
: >"$work/results"
for round in $(seq "$ROUNDS"); do
	order=(fixed variants)
	[ $((round % 2)) = 0 ] && order=(variants fixed)
	for g in "${order[@]}"; do
		read -r n cpu rps pool < <(run_gen "$g")
		printf 'round %d  %-9s pool %5d  %9d req  %6.2f CPU-s  %9.0f req/CPU-s  %9.0f req/s\n' \
			"$round" "$g" "$pool" "$n" "$cpu" "$(python3 -c "print($n/$cpu)")" "$rps"
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
    by_round.setdefault(rnd, {})[g] = eff
med = statistics.median
print()
for g, v in rows.items():
    print(f"{g:<9} req/CPU-s median {med(e for e, _ in v):>10,.0f}  min..max {min(e for e, _ in v):,.0f}..{max(e for e, _ in v):,.0f}  req/s median {med(r for _, r in v):,.0f}")
ratios = [r["variants"] / r["fixed"] for r in by_round.values()]
print(f"variants ÷ fixed, req/CPU-s: ratio of medians {med(e for e, _ in rows['variants']) / med(e for e, _ in rows['fixed']):.3f}, paired median {med(ratios):.3f} (rounds: {', '.join(f'{x:.3f}' for x in ratios)})")
PY
