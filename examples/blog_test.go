package examples

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run"
)

// ownApps are the examples of an app of one's own: a custom workload with
// its own database, setup steps and templated cases, not a built-in
// workload's contract.
var ownApps = []string{"blog"}

// TestBlogExample runs examples/blog as a user would (its own schema,
// seed and reset; a login captured by a setup step; a list of articles
// created per stack; json parity with ignored ids and timestamps) in one
// short run on a real PostgreSQL.
func TestBlogExample(t *testing.T) {
	f, err := plan.Load(filepath.Join("blog", "stackbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) > 0 {
		t.Errorf("warnings: %v", f.Warnings)
	}
	f.Database = pgtest.Cluster(t).AdminURL()
	gate := "off"
	noBoot := 0
	fixed := false
	p, err := f.Resolve(plan.Overrides{Profile: "quick", Rounds: 1, Adaptive: &fixed, Concurrency: []int{4}, Warmup: 200 * time.Millisecond,
		Window: 500 * time.Millisecond, BootStarts: &noBoot, Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "stackbench")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/stackbench").CombinedOutput(); err != nil {
		t.Fatalf("build stackbench: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "results")
	var log strings.Builder
	out, err := run.Run(context.Background(), run.Options{File: f, Plan: p, Dir: dir, Stackbench: bin, Log: &log, ToolVersion: "test"})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	res, err := journal.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Parity) != 1 || !res.Parity[0].Passed || len(res.Parity[0].Warnings) > 0 {
		b, _ := os.ReadFile(filepath.Join(dir, run.ParityFile))
		t.Fatalf("parity %+v\n%s", res.Parity, b)
	}
	if out.Measured != 8 {
		t.Errorf("measured %d windows, want 8", out.Measured)
	}
	for _, w := range res.Windows {
		if !w.Final {
			continue
		}
		if !w.Valid() || w.Load == nil || w.Load.Successes == 0 {
			t.Errorf("%s: valid %v, reasons %v", w.Key, w.Valid(), w.Reasons)
		}
		if want := map[string]int{"article": 50, "page": 1000, "me": 1, "comment": 1}[w.Case]; w.Load != nil && w.Load.PoolSize != want {
			t.Errorf("%s: %d requests in the pool, want %d", w.Key, w.Load.PoolSize, want)
		}
		if w.Case == "comment" && w.Timings.ResetSeconds <= 0 {
			t.Errorf("%s: the database was not reset before an inserting window", w.Key)
		}
	}
	if t.Failed() {
		t.Logf("run log:\n%s", log.String())
	}
}
