package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// TestSuitesAreJournaledBeforeResults runs a file with a process: section
// whose command has a dx: key: the dx and process phases are journaled by
// the run itself, before results.json, which holds both; a resume of the
// finished run measures neither again, and no dx.json or process.json is
// written.
func TestSuitesAreJournaledBeforeResults(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go: it counts records, never times them
	path := writeFile(t, flakyFile("[ok]", "  gate: off")+`
process:
  sizes: [1]
  warmup: 0
  rounds: 2
  commands:
    - {name: yes, dir: ., build: "true", run: /bin/true, dx: {rounds: 1}}
`)
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, journal.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var res journal.Results
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Process == nil || len(res.Process.Cells) != 1 || res.Process.Cells[0].Command != "yes" || res.Process.Cells[0].Wall.N != 2 {
		t.Errorf("results.json's process: %+v", res.Process)
	}
	if res.DX == nil || len(res.DX.Targets) != 1 || res.DX.Targets[0].Name != "yes" || res.DX.Targets[0].Build == nil {
		t.Errorf("results.json's dx: %+v", res.DX)
	}
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, true); err != nil {
		t.Fatalf("resume: %v", err)
	}
	lines, _, err := journal.ReadFile(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	count := map[journal.Kind]int{}
	for _, l := range lines {
		count[l.Kind]++
	}
	if count[journal.KindDX] != 1 || count[journal.KindProcess] != 1 {
		t.Errorf("the journal holds %d dx and %d process records after a run and its resume, want 1 each", count[journal.KindDX], count[journal.KindProcess])
	}
	for _, f := range []string{journal.DXFile, journal.ProcessFile} {
		if exists(filepath.Join(dir, f)) {
			t.Errorf("%s written beside the journal", f)
		}
	}
}

// TestDIReference generates the apps/di project at a small size, builds
// every variant with the file's own commands (wire's generation included),
// runs each through the process suite and times its generate and build
// through the DX suite.
func TestDIReference(t *testing.T) {
	if testing.Short() {
		t.Skip("builds four Go programs")
	}
	// Parallel (see main_test.go): it asserts what each program printed
	// and that every build made an artifact, never a time, and its
	// builds (wire's generator compiles golang.org/x/tools from an empty
	// cache) overlap another test's waits instead of holding the package.
	t.Parallel()
	f, err := plan.Load(filepath.Join("..", "..", "apps", "di", "stackbench.di.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Process == nil || len(f.Process.Commands) != 4 || !f.HasDX() {
		t.Fatalf("stackbench.di.yaml: process %+v", f.Process)
	}
	ps := *f.Process
	ps.Sizes, ps.Warmup, ps.Rounds = []int{30}, 0, 2
	small := *f
	small.Process = &ps
	for i := range ps.Commands {
		d := *ps.Commands[i].DX
		d.Rounds = 1
		ps.Commands[i].DX = &d
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	logs := t.TempDir()
	res, err := Process(ctx, &ps, logs, func(line string) { t.Log(line) })
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		if c.Error != "" {
			t.Errorf("%s: %s", c.Command, c.Error)
			continue
		}
		if m := c.Metrics["providers"]; m.Median != 30 {
			t.Errorf("%s printed providers=%v, want 30", c.Command, m.Median)
		}
		if _, ok := c.Metrics["container_ms"]; !ok {
			t.Errorf("%s printed no container_ms", c.Command)
		}
		t.Logf("%s: wall %.2f ms, container %.4f ms", c.Command, c.Wall.Median/1e6, c.Metrics["container_ms"].Median)
	}
	d, err := DX(ctx, &small, logs, func(line string) { t.Log(line) })
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Targets) != 4 {
		t.Fatalf("%d DX targets, want 4", len(d.Targets))
	}
	for _, tr := range d.Targets {
		if tr.Error != "" || tr.Build == nil || tr.Generate == nil || tr.ArtifactBytes < 1<<20 {
			t.Errorf("%s: %+v", tr.Name, tr)
		}
		if tr.Name == "hand" && (tr.Deps == nil || tr.Deps.Ecosystem != "go" || tr.Deps.Packages < 3) {
			t.Errorf("hand deps %+v: want the apps/di module's requirements", tr.Deps)
		}
	}
}
