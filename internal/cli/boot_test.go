package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/suite/boot"
)

// TestBootCommandEndToEnd cold-starts the reference server twice per
// stack against a real embedded PostgreSQL and checks the JSON result.
func TestBootCommandEndToEnd(t *testing.T) {
	bin := buildRefServer(t)
	dir := writeComparison(t, `workload: saas-slice
database: embedded
stacks:
  - name: a
    dir: apps/a
    start: exec '`+bin+`'
  - name: b
    dir: apps/b
    start: exec '`+bin+`'
    env: {GOMAXPROCS: "1"}
`)
	code, out, errOut := runMain(t, dir, nil, "boot", "-n", "2", "-o", "json")
	if code != 0 {
		t.Fatalf("boot: exit %d\n%s\n%s", code, out, errOut)
	}
	var res boot.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("boot -o json: %v\n%s", err, out)
	}
	var order []string
	for _, st := range res.Starts {
		order = append(order, st.Stack)
		if !st.FirstOK || st.FirstStatus != 200 || st.Boot <= 0 || st.FirstRequest <= 0 || st.IdleRSSBytes < 1<<20 {
			t.Errorf("start %+v", st)
		}
	}
	if strings.Join(order, ",") != "a,b,b,a" || res.Case != "user" || len(res.Stacks) != 2 {
		t.Errorf("result %+v", res)
	}
	if !strings.Contains(errOut, "warm-up start done") || !strings.Contains(errOut, "embedded PostgreSQL") {
		t.Errorf("progress on stderr:\n%s", errOut)
	}
	if pids := processesRunning(bin); len(pids) > 0 {
		t.Errorf("servers still running after boot: pids %v", pids)
	}
}

// processesRunning lists the processes whose command line mentions path.
func processesRunning(path string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(path)) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func TestBootText(t *testing.T) {
	res := boot.Result{Case: "user", Stacks: []boot.Summary{
		{Stack: "gin", Starts: 3, Boot: boot.Spread[boot.Nanoseconds]{Median: 12.5e6, IQR: 1e6, N: 3}, FirstRequest: boot.Spread[boot.Nanoseconds]{Median: 3e6, IQR: 0.5e6, N: 3}, IdleRSS: boot.Spread[boot.Bytes]{Median: 20 << 20, N: 3}},
		{Stack: "broken", Starts: 3, FirstFailed: 3, Boot: boot.Spread[boot.Nanoseconds]{Median: 1e6, N: 3}, FirstError: "GET /users/4242 answered 404, not 200: {}"},
	}}
	var b bytes.Buffer
	printBoot(&b, res, "GET /users/4242", 3)
	for _, want := range []string{"3 per stack", "GET /users/4242 (case user)", "gin     12.50 ms (1.00 ms)  3.00 ms (0.50 ms)  20.0 MiB (0.0)", "—", "3 of 3"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, b.String())
		}
	}
	err := firstFailures(res)
	if ee, ok := err.(*ExitError); !ok || ee.Code != 1 || !strings.Contains(ee.Msg, "broken (3 of 3): GET /users/4242 answered 404, not 200: {}") {
		t.Errorf("firstFailures = %v", err)
	}
}

func TestBootUsage(t *testing.T) {
	dir := writeComparison(t, "stacks:\n  - name: a\n    dir: apps/a\n    start: ./server\n")
	for _, args := range [][]string{{"boot", "-o", "xml"}, {"boot", "-n", "-1"}, {"boot", "-n", "0"}, {"boot", "extra"}} {
		if code, _, errOut := runMain(t, dir, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errOut)
		}
	}
}
