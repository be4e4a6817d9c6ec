#!/usr/bin/env bash
# Did a change slow the generator's single-route path? Two builds of
# stackbench — A (a git revision, default main) and B (this worktree) — load
# one tiny net/http server in turn with one fixed request, the order
# swapped every round, and the script prints requests per generator
# CPU-second for each, their medians and the median of each round's ratio
# (B ÷ A). Side by side in one run, so a noisy host hurts both alike.
#
#   bash bench/load/ab.sh                     # A = main, 9 rounds of 4 s
#   A=HEAD~3 ROUNDS=15 bash bench/load/ab.sh
#
# Server on CPU 0, generator on CPU 1 (taskset; SERVER_CPU and GEN_CPU move
# them). The shared set-up is bench/load/lib.sh.
A=${A:-main}
ROUNDS=${ROUNDS:-9}
DURATION=${DURATION:-4}
PORT=${PORT:-18092}
. "$(dirname "$0")/lib.sh"
URL="http://127.0.0.1:$PORT"

mkdir "$work/a-src"
git archive "$A" | tar -x -C "$work/a-src"
(cd "$work/a-src" && go build -o "$work/A" ./cmd/stackbench)
build_tools B
start_server

# run_gen A|B: prints "requests cpu_seconds".
run_gen() {
	local cpu
	cpu=$(run_pinned "$work/$1" load -c "$CONNS" -d "${DURATION}s" -o json "$URL/users/1")
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["successes"], sys.argv[2])' "$work/out" "$cpu"
}

echo "A = $A ($(git rev-parse --short "$A")), B = this worktree; $CONNS connections, ${DURATION}s, $ROUNDS rounds"
echo "load average before: $(load_average)"
: >"$work/results"
for round in $(seq "$ROUNDS"); do
	order=(A B)
	[ $((round % 2)) = 0 ] && order=(B A)
	for g in "${order[@]}"; do
		read -r n cpu < <(run_gen "$g")
		printf 'round %d  %s  %9d req  %6.2f CPU-s  %9.0f req/CPU-s\n' "$round" "$g" "$n" "$cpu" "$(python3 -c "print($n/$cpu)")"
		echo "$round $g $n $cpu" >>"$work/results"
	done
done
echo "load average after: $(load_average)"
python3 - "$work/results" <<'PY'
import statistics, sys
rows, by_round = {}, {}
for line in open(sys.argv[1]):
    rnd, g, n, cpu = line.split()
    eff = int(n) / float(cpu)
    rows.setdefault(g, []).append(eff)
    by_round.setdefault(rnd, {})[g] = eff
med = statistics.median
for g in ("A", "B"):
    print(f"{g} req/CPU-s median {med(rows[g]):>10,.0f}  min..max {min(rows[g]):,.0f}..{max(rows[g]):,.0f}")
ratios = [r["B"] / r["A"] for r in by_round.values()]
print(f"B ÷ A: ratio of medians {med(rows['B']) / med(rows['A']):.3f}, paired median {med(ratios):.3f} (rounds: {', '.join(f'{x:.3f}' for x in ratios)})")
PY
