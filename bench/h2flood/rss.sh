#!/usr/bin/env bash
# The generator's memory under a hostile HTTP/2 server (issue 49, item 3):
# stackbench load --h2c against bench/h2flood/server in each of its flood
# modes, one window of DURATION seconds each; prints the generator's peak
# RSS (GNU time's maximum resident set size) and the failure classes of the
# window, which say how the engine ended each connection.
#
#   bash bench/h2flood/rss.sh                  # 30 s per mode, 4 connections × 8 streams
#   DURATION=10 MODES="ping settings" bash bench/h2flood/rss.sh
#   STACKBENCH=/path/to/stackbench bash bench/h2flood/rss.sh   # another build (careful: a build
#   without the bounds, before issue 49, took 1 to 23 GB within 2 s per mode)
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-30}
CONNS=${CONNS:-4}
STREAMS=${STREAMS:-8}
PORT=${PORT:-18090}
MODES=${MODES:-literal fields empty ping settings}

work=$(mktemp -d)
server_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${STACKBENCH:-}" ]; then cp "$STACKBENCH" "$work/stackbench"; else go build -o "$work/stackbench" ./cmd/stackbench; fi
go build -o "$work/server" ./bench/h2flood/server

printf '%-9s %14s  %s\n' mode "peak RSS (MB)" "errors, first protocol error"
for mode in $MODES; do
	"$work/server" -addr "127.0.0.1:$PORT" -mode "$mode" &
	server_pid=$!
	sleep 0.3
	/usr/bin/time -f '%M' -o "$work/rss" "$work/stackbench" load --h2c -c "$CONNS" --streams "$STREAMS" \
		-d "${DURATION}s" -t 5s -o json "http://127.0.0.1:$PORT/" >"$work/out.json" 2>/dev/null || true
	kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
	summary=$(jq -c '[(.errors | with_entries(select(.value > 0))), .h2.first_protocol_error]' "$work/out.json")
	printf '%-9s %14.1f  %s\n' "$mode" "$(echo "$(tail -1 "$work/rss") / 1024" | bc -l)" "$summary"
done
