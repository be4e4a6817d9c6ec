#!/usr/bin/env bash
# Compare two revisions of this repository in ONE stackbench run, so that
# their windows interleave on the same host (docs/ci.md), and fail on a
# loss from the first to the second.
#
#   ci/stackbench-compare.sh BASE HEAD [more stackbench run flags]
#
# It checks BASE and HEAD out as two git worktrees, .stackbench-ci/base and
# .stackbench-ci/head, which stackbench.ci.yaml names as the stacks base and
# head (once stackbench's git: stacks land, the file can name the revisions
# itself and this script is no longer needed). The results, the HTML
# report and junit.xml go to .stackbench-ci/results (or $STACKBENCH_OUT).
# Exit status: stackbench's own (docs/ci.md): 0 passed, 1 a loss, 2 bad
# input, 4 could not measure.
set -euo pipefail

base=${1:?usage: $0 BASE-REVISION HEAD-REVISION [stackbench run flags]}
head=${2:?usage: $0 BASE-REVISION HEAD-REVISION [stackbench run flags]}
shift 2
work=.stackbench-ci
out=${STACKBENCH_OUT:-$work/results}
file=${STACKBENCH_FILE:-stackbench.ci.yaml}

cleanup() {
	git worktree remove --force "$work/base" >/dev/null 2>&1 || true
	git worktree remove --force "$work/head" >/dev/null 2>&1 || true
}
cleanup
trap cleanup EXIT
rm -rf "$out"
mkdir -p "$work"
git worktree add --quiet --detach "$work/base" "$base"
git worktree add --quiet --detach "$work/head" "$head"

stackbench version
stackbench run -f "$file" --out "$out" \
	--fail-on loss --steps base..head \
	--junit "$out/junit.xml" --history "$out/history.json" "$@"
