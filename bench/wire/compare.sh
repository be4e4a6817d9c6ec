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

go build -o "$work/stackbench" ./cmd/stackbench
go build -o "$work/server" ./bench/wire/server
command -v h2load >/dev/null || { echo "h2load not found: apt-get install nghttp2-client" >&2; exit 1; }
[ -x "$GHZ" ] || { echo "ghz not found: go install github.com/bojand/ghz/cmd/ghz@v0.93.0, or set GHZ" >&2; exit 1; }

HTTP=127.0.0.1:$BASE TLS=127.0.0.1:$((BASE + 1)) H2C=127.0.0.1:$((BASE + 2)) GRPC=127.0.0.1:$((BASE + 3))
taskset -c "$SERVER_CPU" "$work/server" -http "$HTTP" -tls "$TLS" -tlsdir "$work" -h2c "$H2C" -grpc "$GRPC" &
server_pid=$!
for _ in $(seq 50); do curl -fs "http://$HTTP/" >/dev/null 2>&1 && break; sleep 0.1; done
PROTO=bench/wire/saas.proto
MSG='{"id":4242}'

# run_gen NAME: runs one generator; prints "successes cpu_seconds".
run_gen() {
	local out="$work/out" t="$work/time" sb=(taskset -c "$GEN_CPU" "$work/stackbench" load -d "${DURATION}s" -o json)
	TIMEFORMAT='%U %S'
	case "$1" in
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
if name.startswith("sb-"):
    r = json.loads(text)
    print(r["successes"])
elif name == "h2load":
    print(re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", text).group(1))
else:
    print(json.loads(text).get("statusCodeDistribution", {}).get("OK", 0))
PY
	read -r u s <"$t"
	python3 -c "print($u+$s)"
}

IFS=, read -r -a pairs <<<"${PAIRS:-sb-h2c h2load,sb-grpc ghz,sb-tls sb-http1}"
echo "server on CPU $SERVER_CPU, generators on CPU $GEN_CPU; h2c and gRPC: $CONNS connection(s) × $STREAMS streams; HTTP/1.1: $HTTP_CONNS connections; ${DURATION}s × $ROUNDS rounds"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$work/results"
for round in $(seq "$ROUNDS"); do
	for pair in "${pairs[@]}"; do
		read -r a b <<<"$pair"
		order=("$a" "$b")
		[ $((round % 2)) = 0 ] && order=("$b" "$a")
		for g in "${order[@]}"; do
			{ read -r n; read -r cpu; } < <(run_gen "$g")
			printf 'round %d  %-9s %9d ok  %6.2f CPU-s  %9.0f req/CPU-s\n' "$round" "$g" "$n" "$cpu" "$(python3 -c "print($n/max($cpu,1e-9))")"
			echo "$round $g $n $cpu" >>"$work/results"
		done
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$work/results" <<'PY'
import statistics, sys
eff = {}
for line in open(sys.argv[1]):
    rnd, g, n, cpu = line.split()
    eff.setdefault(g, {})[rnd] = int(n) / float(cpu)
print()
print("Requests per generator CPU-second, medians over the rounds; 'paired' is the median")
print("of each round's own ratio, which cancels the shared host's drifts better.")
print(f"{'pair':<20}{'stackbench':>12}{'other':>12}{'ratio':>8}{'paired':>8}")
for a, b in (("sb-h2c", "h2load"), ("sb-grpc", "ghz"), ("sb-tls", "sb-http1")):
    if a not in eff or b not in eff:
        continue
    ma, mb = statistics.median(eff[a].values()), statistics.median(eff[b].values())
    paired = statistics.median(eff[a][r] / eff[b][r] for r in eff[a] if r in eff[b])
    print(f"{a + ' / ' + b:<20}{ma:>12,.0f}{mb:>12,.0f}{ma / mb:>7.2f}x{paired:>7.2f}x")
PY
