// Package e2e drives real runs of the stackbench binary to test what a
// user watches: the live page in headless Chromium (run --live, and
// report --live from another process) and the terminal's status under
// tmux. The runs are short: the flaky test server as two identical
// stacks, one case, three rounds of 500 ms windows, no database.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/run/runtest"
)

var bins *runtest.Binaries

func TestMain(m *testing.M) {
	b, err := runtest.Build("../../..", "live")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins = b
	code := m.Run()
	b.Remove()
	os.Exit(code)
}

// comparison writes the run's comparison file into a fresh directory and
// returns its path: two identical stacks of the flaky server's ok case,
// in rounds rounds (the step between them stays open for the first few;
// its interval is finite from 6 pairs of windows). Each answer takes
// 20 ms (OK_DELAY), so two connections ask about 100 requests a second:
// at the flaky server's full speed (25,000 a second) the generator, on a
// busy 2-core host, waited for a CPU through most windows, which were
// flagged client_starved, and cells with more than a quarter of such
// windows are insufficient, leaving the step without an interval.
func comparison(t *testing.T, rounds int) string {
	t.Helper()
	dir := t.TempDir()
	yaml := `
workload:
  name: flaky
  cases:
    - {name: ok, method: GET, path: /ok}
profile: quick
protocol:
  concurrency: [2]
  warmup: 100ms
  warmup_max: 100ms
  window: 500ms
  rounds: ` + fmt.Sprint(rounds) + `
  boot_starts: 0
  gate: off
stacks:
  - name: flaky
    dir: .
    start: ` + bins.Flaky + `
    env: {OK_DELAY: 20ms}
  - name: flaky-b
    dir: .
    start: ` + bins.Flaky + `
    env: {OK_DELAY: 20ms}
`
	path := filepath.Join(dir, "stackbench.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// tool returns the path of a program the test needs. In CI (CI set) a
// missing one fails the test; elsewhere it skips, since it is a system
// package (.ci/run installs it).
func tool(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed; CI needs it (.ci/run installs Debian's package)", strings.Join(names, " or "))
	}
	t.Skipf("%s not installed (apt-get install %s); CI runs this test", names[0], names[0])
	return ""
}
