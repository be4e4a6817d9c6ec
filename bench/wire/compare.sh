#!/usr/bin/env bash
# Requests per generator CPU-second on each wire, stackbench side by side
# with the usual single-protocol tool, against one fixed-response server
# (bench/wire/server), in one run:
#
#   h2c      stackbench load --h2c --streams 100   vs  h2load -m 100 (nghttp2-client)
#   grpc     stackbench load --grpc --streams 100  vs  ghz (100 calls at once on one connection)
#   tls      stackbench load https:// (HTTP/1.1)   vs  stackbench load http:// (the same, cleartext)
#
#   bash bench/wire/compare.sh                 # 5 rounds of 5 s, 1 connection
#   ROUNDS=7 DURATION=10 CONNS=2 bash bench/wire/compare.sh
#   PAIRS="sb-h2c h2load" bash bench/wire/compare.sh   # one pair only
#   STACKBENCH=/tmp/old/stackbench bash bench/wire/compare.sh   # a binary built before
#   STD_SERVER=1 bash bench/wire/compare.sh    # net/http and grpc-go as the server (server-bound)
#   BASE_STACKBENCH=/tmp/old/stackbench PAIRS="sb-h2c h2load,base-h2c h2load" bash bench/wire/compare.sh
#       # base-h2c, base-tls, base-http1: the same runs with an older binary,
#       # before and after side by side in one run
#   PAIRS="sb-tls sb-http1" ROUNDS=7 PROFILE=1 bash bench/wire/compare.sh
#       # the TLS figure: TLS HTTP/1.1 against cleartext (also over the
#       # measured window alone: the engine's generator_cpu_s), then one profiled
#       # run of each stackbench generator (pprof, STACKBENCH_LOAD_CPUPROFILE)
#       # split into kernel, AES-GCM, crypto/tls and the rest, per request
#
# The server (bench/wire/server) answers on raw frames, one write per read,
# so that on HTTP/2 the generator, not the server, sets the pace (a
# generator held back by its server is measured on how it waits, not on what
# it costs); each line shows the generator's and the server's share of a
# CPU over the run.
#
# The server is pinned to CPU 0 and every generator to CPU 1 (taskset); the
# generators of a pair alternate within each round, so a noisy neighbour
# hurts both alike, and the figure to read is each round's own ratio (the
# "paired" column). Generator CPU is user+system of the generator process,
# from bash's `time`. Needs taskset, h2load (apt-get install nghttp2-client)
# and ghz (go install github.com/bojand/ghz/cmd/ghz@v0.93.0, or GHZ=path).
set -euo pipefail
cd "$(dirname "$0")/../.."

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5}
CONNS=${CONNS:-1}
STREAMS=${STREAMS:-100}
HTTP_CONNS=${HTTP_CONNS:-64}
BASE=${BASE:-18090}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
GHZ=${GHZ:-$(command -v ghz || echo "$(go env GOPATH)/bin/ghz")}

work=$(mktemp -d)
server_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${STACKBENCH:-}" ]; then cp "$STACKBENCH" "$work/stackbench"; else go build -o "$work/stackbench" ./cmd/stackbench; fi
if [ -n "${BASE_STACKBENCH:-}" ]; then cp "$BASE_STACKBENCH" "$work/base"; fi
go build -o "$work/server" ./bench/wire/server

HTTP=127.0.0.1:$BASE TLS=127.0.0.1:$((BASE + 1)) H2C=127.0.0.1:$((BASE + 2)) GRPC=127.0.0.1:$((BASE + 3))
# Another run's server on these ports (another worktree's compare.sh, or one
# stopped by the host) would answer this run's generators: refuse to start.
for port in $BASE $((BASE + 1)) $((BASE + 2)) $((BASE + 3)); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		echo "port $port is in use (another compare.sh?); run with BASE set to four free ports, e.g. BASE=$((BASE + 100))" >&2
		exit 1
	fi
done
taskset -c "$SERVER_CPU" "$work/server" ${STD_SERVER:+-std} -http "$HTTP" -tls "$TLS" -tlsdir "$work" -h2c "$H2C" -grpc "$GRPC" &
server_pid=$!
for _ in $(seq 50); do curl -fs --max-time 1 "http://$HTTP/" >/dev/null 2>&1 && break; sleep 0.1; done
kill -0 "$server_pid" 2>/dev/null && curl -fs --max-time 1 "http://$HTTP/" >/dev/null 2>&1 || { echo "the server did not start (see its message above)" >&2; exit 1; }
PROTO=bench/wire/saas.proto
MSG='{"id":4242}'

# server_cpu_seconds: the server's user+system CPU so far.
server_cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$server_pid/stat"; }

# run_gen NAME: runs one generator; prints its successes, its own CPU
# seconds over the measured window (stackbench's generator_cpu_s; 0 for the
# other tools), its CPU seconds (whole process), its wall seconds, the
# server's CPU seconds meanwhile, and its user and system CPU seconds, one a
# line.
run_gen() {
	local out="$work/out" t="$work/time" sb=(taskset -c "$GEN_CPU" "$work/stackbench" load -d "${DURATION}s" -o json)
	TIMEFORMAT='%U %S %R'
	local name=$1 server_before
	server_before=$(server_cpu_seconds)
	if [[ $name == base-* ]]; then
		[ -x "$work/base" ] || { echo "$name needs BASE_STACKBENCH=path" >&2; exit 1; }
		sb[3]="$work/base"
		name=sb-${name#base-}
	fi
	case "$name" in
	sb-h2c) { time "${sb[@]}" -c "$CONNS" --h2c --streams "$STREAMS" "http://$H2C/" >"$out"; } 2>"$t" ;;
	sb-grpc) { time "${sb[@]}" -c "$CONNS" --streams "$STREAMS" --grpc saas.Users/GetUser --proto "$PROTO" --message "$MSG" "http://$GRPC/" >"$out"; } 2>"$t" ;;
	sb-http1) { time "${sb[@]}" -c "$HTTP_CONNS" "http://$HTTP/" >"$out"; } 2>"$t" ;;
	sb-tls) { time "${sb[@]}" -c "$HTTP_CONNS" --cacert "$work/ca.pem" "https://$TLS/" >"$out"; } 2>"$t" ;;
	h2load) { time taskset -c "$GEN_CPU" h2load -t 1 -c "$CONNS" -m "$STREAMS" -D "$DURATION" "http://$H2C/" >"$out"; } 2>"$t" ;;
	ghz) { time taskset -c "$GEN_CPU" "$GHZ" --insecure --proto "$PROTO" --call saas.Users.GetUser -d "$MSG" \
		--connections "$CONNS" -c "$((CONNS * STREAMS))" -z "${DURATION}s" --cpus 1 -O json "$GRPC" >"$out"; } 2>"$t" ;;
	esac
	python3 - "$1" "$out" <<'PY'
import json, re, sys
name, path = sys.argv[1], sys.argv[2]
text = open(path).read()
window_cpu = 0  # the generator's own CPU over the measured window (stackbench only)
if name.startswith(("sb-", "base-")):
    r = json.loads(text)
    print(r["successes"])
    window_cpu = r.get("generator_cpu_s", 0)
elif name == "h2load":
    print(re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", text).group(1))
else:
    print(json.loads(text).get("statusCodeDistribution", {}).get("OK", 0))
print(window_cpu)
PY
	read -r u s real <"$t"
	python3 -c "print($u+$s)"
	echo "$real"
	python3 -c "print($(server_cpu_seconds) - $server_before)"
	echo "$u"
	echo "$s"
}

IFS=, read -r -a pairs <<<"${PAIRS:-sb-h2c h2load,sb-grpc ghz,sb-tls sb-http1}"
case ",${PAIRS:-ghz}," in
*ghz*) [ -x "$GHZ" ] || { echo "ghz not found: go install github.com/bojand/ghz/cmd/ghz@v0.93.0, or set GHZ" >&2; exit 1; } ;;
esac
case ",${PAIRS:-h2load}," in
*h2load*) command -v h2load >/dev/null || { echo "h2load not found: apt-get install nghttp2-client" >&2; exit 1; } ;;
esac
echo "server on CPU $SERVER_CPU, generators on CPU $GEN_CPU; h2c and gRPC: $CONNS connection(s) × $STREAMS streams; HTTP/1.1: $HTTP_CONNS connections; ${DURATION}s × $ROUNDS rounds"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$work/results"
: >"$work/pair"
for round in $(seq "$ROUNDS"); do
	for pi in "${!pairs[@]}"; do
		read -r a b <<<"${pairs[$pi]}"
		order=("$a" "$b")
		[ $((round % 2)) = 0 ] && order=("$b" "$a")
		# A pair whose generator took far longer than its run (the host
		# stopped the process: a SIGSTOP freeze, a suspended VM) is retaken:
		# its window and its CPU no longer describe the same stretch of time.
		for try in 1 2 3; do
			lines=() stopped=""
			for g in "${order[@]}"; do
				{ read -r n; read -r wcpu; read -r cpu; read -r wall; read -r scpu; read -r ucpu; read -r kcpu; } < <(run_gen "$g")
				lines+=("$(printf 'round %d  %-10s %9d ok  %6.2f CPU-s  %9.0f req/CPU-s  %5.1f s wall  generator %3.0f %%, server %3.0f %% of a CPU' "$round" "$g" "$n" "$cpu" "$(python3 -c "print($n/max($cpu,1e-9))")" "$wall" "$(python3 -c "print(100*$cpu/$wall)")" "$(python3 -c "print(100*$scpu/$wall)")")")
				echo "$round $pi $g $n $cpu $ucpu $kcpu $wcpu" >>"$work/pair"
				if python3 -c "import sys; sys.exit(0 if $wall > $DURATION * 1.5 + 3 else 1)"; then stopped="$g took ${wall}s"; fi
			done
			if [ -z "$stopped" ]; then
				printf '%s\n' "${lines[@]}"
				cat "$work/pair" >>"$work/results"
				: >"$work/pair"
				break
			fi
			echo "round $round: $stopped for a ${DURATION}s run (stopped by the host?): retaking the pair" >&2
			: >"$work/pair"
		done
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$work/results" "${pairs[@]}" <<'PY'
import statistics, sys
eff = {}  # (pair index, generator) -> round -> requests per CPU-second
split = {}  # generator -> [(user µs, system µs) per request, one per round]
window = {}  # (pair index, generator) -> round -> requests per CPU-second of the window
for line in open(sys.argv[1]):
    rnd, pi, g, n, cpu, user, system, wcpu = line.split()
    eff.setdefault((int(pi), g), {})[rnd] = int(n) / float(cpu)
    split.setdefault(g, []).append((1e6 * float(user) / int(n), 1e6 * float(system) / int(n)))
    if float(wcpu) > 0:
        window.setdefault((int(pi), g), {})[rnd] = int(n) / float(wcpu)
print()
print("Generator CPU per request, medians over the rounds (bash time: user, system):")
for g, us in split.items():
    print(f"  {g:<12} user {statistics.median(u for u, _ in us):6.2f} µs   system {statistics.median(k for _, k in us):6.2f} µs")
print()
print("Requests per generator CPU-second, medians over the rounds; 'paired' is the median")
print("of each round's own ratio, which cancels the shared host's drifts better.")
print(f"{'pair':<22}{'first':>12}{'second':>12}{'ratio':>8}{'paired':>8}")
for pi, pair in enumerate(sys.argv[2:]):
    a, b = pair.split()
    ea, eb = eff.get((pi, a)), eff.get((pi, b))
    if not ea or not eb:
        continue
    ma, mb = statistics.median(ea.values()), statistics.median(eb.values())
    paired = statistics.median(ea[r] / eb[r] for r in ea if r in eb)
    print(f"{a + ' / ' + b:<22}{ma:>12,.0f}{mb:>12,.0f}{ma / mb:>7.2f}x{paired:>7.2f}x")
    wa, wb = window.get((pi, a)), window.get((pi, b))
    if wa and wb:
        # stackbench against stackbench: the same over the measured window
        # only (generator_cpu_s), without start-up, handshakes and drain.
        ma, mb = statistics.median(wa.values()), statistics.median(wb.values())
        paired = statistics.median(wa[r] / wb[r] for r in wa if r in wb)
        print(f"{'  window only':<22}{ma:>12,.0f}{mb:>12,.0f}{ma / mb:>7.2f}x{paired:>7.2f}x")
PY

# PROFILE=1: one more run of each stackbench generator of the pairs with its
# CPU profile, split per request into the kernel (system calls), AES-GCM
# (crypto/internal/fips140/aes), crypto/tls's record layer (outside those
# two), the engine's TLS code outside those three (its record layer, or its
# glue around crypto/tls's: tlsSession, trafficKeys, fdConn) and the rest
# (the rest of the engine, the Go runtime).
if [ -n "${PROFILE:-}" ]; then
	echo
	echo "Profiled runs (${DURATION}s each), generator CPU per request:"
	for g in $(printf '%s\n' "${pairs[@]}" | tr ' ' '\n' | grep -E '^(sb|base)-' | sort -u); do
		{ read -r n; read -r wcpu; read -r cpu; read -r wall; read -r scpu; read -r ucpu; read -r kcpu; } < <(STACKBENCH_LOAD_CPUPROFILE="$work/prof-$g.out" run_gen "$g")
		bin="$work/stackbench"
		[[ $g == base-* ]] && bin="$work/base"
		share() { # share FOCUS [IGNORE]: the profile's share of samples with FOCUS in their stack
			go tool pprof -top -nodecount=100000 -nodefraction=0 -focus="$1" ${2:+-ignore="$2"} "$bin" "$work/prof-$g.out" 2>/dev/null |
				sed -n 's/^Showing nodes accounting for [^,]*, \([0-9.]*\)% of .*/\1/p'
		}
		kernel=$(share 'Syscall6$') aes=$(share 'crypto/internal/fips140/aes' 'Syscall6$') tlsrec=$(share '^crypto/tls\.' 'Syscall6$|crypto/internal/fips140')
		engine=$(share 'internal/load\.\(\*(tlsSession|trafficKeys|fdConn)\)' 'Syscall6$|crypto/internal/fips140|^crypto/tls\.')
		python3 - "$g" "$n" "$cpu" "$ucpu" "$kcpu" "${kernel:-0}" "${aes:-0}" "${tlsrec:-0}" "${engine:-0}" <<'PY'
import sys
g, n, cpu, user, system = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
kernel, aes, tlsrec, engine = (float(x) / 100 for x in sys.argv[6:10])
us = 1e6 * cpu / n
rest = 1 - kernel - aes - tlsrec - engine
print(f"  {g:<12} {n / cpu:9.0f} req/CPU-s = {us:5.2f} µs (user {1e6 * user / n:.2f}, system {1e6 * system / n:.2f}): "
      f"system calls {kernel * us:5.2f} µs ({100 * kernel:.1f} %), AES-GCM {aes * us:4.2f} µs ({100 * aes:.1f} %), "
      f"crypto/tls {tlsrec * us:4.2f} µs ({100 * tlsrec:.1f} %), engine TLS {engine * us:4.2f} µs ({100 * engine:.1f} %), "
      f"the rest {rest * us:4.2f} µs ({100 * rest:.1f} %)")
PY
	done
fi
