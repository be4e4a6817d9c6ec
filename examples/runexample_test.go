package examples

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run"
)

// stackbenchBin is the stackbench command, built once for the package's
// runs into binDir (removed after the tests, see TestMain).
var (
	binDir        string
	stackbenchBin = sync.OnceValues(func() (string, error) {
		bin := filepath.Join(binDir, "stackbench")
		if out, err := exec.Command("go", "build", "-o", bin, "../cmd/stackbench").CombinedOutput(); err != nil {
			return "", fmt.Errorf("build stackbench: %v\n%s", err, out)
		}
		return bin, nil
	})
)

// exampleRun is one short run of an example's stackbench.yaml.
type exampleRun struct {
	plan *plan.Plan
	out  *run.Outcome
	res  *journal.Results
	log  strings.Builder
}

// runExample runs examples/<name>/stackbench.yaml as a user would, on the
// test cluster, shortened to one round of short windows at one
// concurrency, each after a fixed warm-up of 200 ms (not until steady: up
// to 3 s a window on a busy 2-core host, and no test here judges the
// warm-up): the file must load without warnings and the run must pass
// its parity gate without a warning. The run's log is shown when the test
// fails.
func runExample(t *testing.T, name string, tweaks ...func(*plan.Overrides)) *exampleRun {
	t.Helper()
	f, err := plan.Load(filepath.Join(name, "stackbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) > 0 {
		t.Errorf("warnings: %v", f.Warnings)
	}
	f.Database = pgtest.Cluster(t).AdminURL()
	noBoot, fixed := 0, false
	p, err := resolveWith(f, plan.Overrides{Profile: "quick", Rounds: 1, Adaptive: &fixed, Concurrency: []int{4}, Warmup: 200 * time.Millisecond, WarmupMax: 200 * time.Millisecond,
		Window: 500 * time.Millisecond, BootStarts: &noBoot, Gate: "off"}, tweaks...)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := stackbenchBin()
	if err != nil {
		t.Fatal(err)
	}
	r := &exampleRun{plan: p}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("run log:\n%s", r.log.String())
		}
	})
	dir := filepath.Join(t.TempDir(), "results")
	if r.out, err = run.Run(context.Background(), run.Options{File: f, Plan: p, Dir: dir, Stackbench: bin, Log: &r.log, ToolVersion: "test"}); err != nil {
		t.Fatalf("run: %v", err)
	}
	if r.res, err = journal.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	if len(r.res.Parity) != 1 || !r.res.Parity[0].Passed || len(r.res.Parity[0].Warnings) > 0 {
		b, _ := os.ReadFile(filepath.Join(dir, run.ParityFile))
		t.Fatalf("parity %+v\n%s", r.res.Parity, b)
	}
	return r
}

// resolveWith resolves f with o changed by each tweak (an example whose
// file needs more than the shortened run's one round: latency windows).
func resolveWith(f *plan.File, o plan.Overrides, tweaks ...func(*plan.Overrides)) (*plan.Plan, error) {
	for _, tw := range tweaks {
		tw(&o)
	}
	return f.Resolve(o)
}
