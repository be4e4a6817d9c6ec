#!/usr/bin/env bash
# Does a weighted mix of routes cost the generator more per request than one
# route? stackbench load against one tiny net/http server, alternating:
#
#   single  one route: a pool of 1,000 requests of /users/N
#   mix3    a three-route mix (user=60, list=30, create-order=10) over pools
#           of the same shape, each request naming its route, so that the
#           generator picks each request by the mix's table and counts it
#           in its route's histograms as well as the whole's
#
# and prints requests per generator CPU-second for each, their medians and
# the median of each round's ratio (mix3 ÷ single).
#
#   bash bench/load/mix.sh                # 9 rounds of 4 s, 64 connections
#   ROUNDS=15 DURATION=5 bash bench/load/mix.sh
#
# Server on CPU 0, generator on CPU 1 (taskset), the order swapped every
# round. Generator CPU is user+system of the generator process (bash time).
# The shared set-up is bench/load/lib.sh.
ROUNDS=${ROUNDS:-9}
DURATION=${DURATION:-4}
PORT=${PORT:-18091}
. "$(dirname "$0")/lib.sh"
URL="http://127.0.0.1:$PORT"

build_tools
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
with open(f"{work}/single.jsonl", "w") as f:
    for k in range(1000):
        print(json.dumps({"method": "GET", "path": f"/users/{k + 1}"}), file=f)
with open(f"{work}/mix.jsonl", "w") as f:
    for k in range(1000):
        print(json.dumps({"method": "GET", "path": f"/users/{k + 1}", "route": "user"}), file=f)
        print(json.dumps({"method": "GET", "path": f"/list?page={k % 50}", "route": "list"}), file=f)
        print(json.dumps({"method": "GET", "path": f"/orders/{k + 1}", "route": "create-order", "expect": [200]}), file=f)
PY

start_server

# run_gen single|mix3: prints "requests cpu_seconds rps routes".
run_gen() {
	local src= cpu
	case "$1" in
	single) src=(--requests "$work/single.jsonl" "$URL") ;;
	mix3) src=(--requests "$work/mix.jsonl" --mix user=60,list=30,create-order=10 --seed 1 "$URL") ;;
	esac
	cpu=$(run_pinned "$work/stackbench" load -c "$CONNS" -d "${DURATION}s" -o json "${src[@]}")
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["successes"], sys.argv[2], r["throughput_rps"], len(r.get("routes") or [1]))' "$work/out" "$cpu"
}

echo "server on CPU $SERVER_CPU, generator on CPU $GEN_CPU; $CONNS connections, ${DURATION}s, $ROUNDS rounds"
echo "load average before: $(load_average)"
: >"$work/results"
for round in $(seq "$ROUNDS"); do
	order=(single mix3)
	[ $((round % 2)) = 0 ] && order=(mix3 single)
	for g in "${order[@]}"; do
		read -r n cpu rps routes < <(run_gen "$g")
		printf 'round %d  %-6s routes %d  %9d req  %6.2f CPU-s  %9.0f req/CPU-s  %9.0f req/s\n' \
			"$round" "$g" "$routes" "$n" "$cpu" "$(python3 -c "print($n/$cpu)")" "$rps"
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
    print(f"{g:<6} req/CPU-s median {med(e for e, _ in v):>10,.0f}  min..max {min(e for e, _ in v):,.0f}..{max(e for e, _ in v):,.0f}  req/s median {med(r for _, r in v):,.0f}")
ratios = [r["mix3"] / r["single"] for r in by_round.values()]
print(f"mix3 ÷ single, req/CPU-s: ratio of medians {med(e for e, _ in rows['mix3']) / med(e for e, _ in rows['single']):.3f}, paired median {med(ratios):.3f} (rounds: {', '.join(f'{x:.3f}' for x in ratios)})")
PY
