# bench/load/lib.sh: the set-up that ab.sh, compare.sh, mix.sh and variants.sh
# share. Sourced, not run:
#
#   ROUNDS=${ROUNDS:-9} DURATION=... PORT=${PORT:-18090}   # the script's own defaults
#   . "$(dirname "$0")/lib.sh"
#
# Sourcing it turns on `set -euo pipefail`, moves to the repository's root,
# gives CONNS (64), SERVER_CPU (0) and GEN_CPU (1) their defaults when the
# environment has not set them, and makes the scratch directory $work, which
# is removed on exit together with the server start_server started. The
# sourcing script must set PORT before calling start_server.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

CONNS=${CONNS:-64}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}

work=$(mktemp -d)
server_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

# build_tools [NAME]: builds this worktree's stackbench as $work/NAME
# (default stackbench) and bench/load/server as $work/server.
build_tools() {
	go build -o "$work/${1:-stackbench}" ./cmd/stackbench
	go build -o "$work/server" ./bench/load/server
}

# start_server [ARGS...]: starts $work/server on SERVER_CPU, listening on
# 127.0.0.1:$PORT with ARGS, and waits up to 5 s for it to answer.
start_server() {
	taskset -c "$SERVER_CPU" "$work/server" -addr "127.0.0.1:$PORT" "$@" &
	server_pid=$!
	for _ in $(seq 50); do curl -fs "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break; sleep 0.1; done
}

# run_pinned COMMAND [ARGS...]: runs COMMAND on GEN_CPU with its standard
# output in $work/out, and prints the user + system CPU seconds it used
# (bash's time keyword: getrusage of the child, the whole process). It
# returns COMMAND's exit status, so that `cpu=$(run_pinned ...)` fails as
# the command does (a command substitution does not inherit set -e).
run_pinned() {
	local TIMEFORMAT='%U %S' u s rc=0
	{ time taskset -c "$GEN_CPU" "$@" >"$work/out"; } 2>"$work/time" || rc=$?
	read -r u s <"$work/time"
	python3 -c "print($u+$s)"
	return "$rc"
}

# load_average: the host's 1-, 5- and 15-minute load averages.
load_average() {
	cut -d' ' -f1-3 /proc/loadavg
}
