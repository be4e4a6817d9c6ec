package cli

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// TestDIReference generates the apps/di project at a small size, builds
// every variant with the file's own commands (wire's generation included),
// runs each through the process suite and times its generate and build
// through the DX suite.
func TestDIReference(t *testing.T) {
	if testing.Short() {
		t.Skip("builds four Go programs")
	}
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
	res, err := runProcess(ctx, &ps, logs, func(line string) { t.Log(line) })
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
	d, err := runDX(ctx, &small, logs, func(line string) { t.Log(line) })
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

func TestProcessOnlyFileRefusedByRun(t *testing.T) {
	f, err := plan.Load(filepath.Join("..", "..", "apps", "di", "stackbench.di.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resolvePlan(f, plan.Overrides{}); err == nil {
		t.Error("a file without stacks resolved to a run plan")
	}
}

// TestProcessCommandOutputsAndFails runs `stackbench process` on two tiny
// commands: JSON with both cells, then a failing command's exit status 1
// with the text table still printed.
func TestProcessCommandOutputsAndFails(t *testing.T) {
	file := "process:\n  sizes: [1]\n  warmup: 0\n  rounds: 2\n  commands:\n    - {name: yes, dir: ., run: /bin/true}\n    - {name: also, dir: ., run: /bin/true}\n"
	dir := writeComparison(t, file)
	code, out, errOut := runMain(t, dir, nil, "process", "-o", "json")
	if code != 0 || !strings.Contains(out, `"command": "yes"`) || !strings.Contains(out, `"command": "also"`) {
		t.Errorf("json: code %d, stderr %q:\n%s", code, errOut, out)
	}
	dir = writeComparison(t, strings.Replace(file, "{name: also, dir: ., run: /bin/true}", "{name: also, dir: ., run: /bin/false}", 1))
	code, out, errOut = runMain(t, dir, nil, "process")
	if code != 1 || !strings.Contains(out, "Process suite") || !strings.Contains(errOut, "a command failed") {
		t.Errorf("failing command: code %d, stderr %q:\n%s", code, errOut, out)
	}
}

// TestProcessPhaseIsJournaled runs the process phase of a run into a
// results directory: its results are a journal record (no process.json),
// and a resume that finds the record does not measure again.
func TestProcessPhaseIsJournaled(t *testing.T) {
	dir := writeComparison(t, "process:\n  sizes: [1]\n  warmup: 0\n  rounds: 2\n  commands:\n    - {name: yes, dir: ., run: /bin/true}\n")
	f, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := appendRecord(out, journal.KindPlan, journal.Plan{RunID: "t"}); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	env := Env{Stdout: io.Discard, Stderr: &stderr}
	for range 2 {
		if err := runSuitePhases(context.Background(), env, f, out); err != nil {
			t.Fatal(err)
		}
	}
	res, err := journal.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Process == nil || len(res.Process.Cells) != 1 || res.Process.Cells[0].Command != "yes" || res.Process.Cells[0].Wall.N != 2 {
		t.Fatalf("journaled process suite %+v", res.Process)
	}
	if n := strings.Count(stderr.String(), "process phase:"); n != 1 {
		t.Errorf("the process phase ran %d times, want once (the resume keeps the journaled one):\n%s", n, stderr.String())
	}
	if exists(filepath.Join(out, processResultFile)) {
		t.Errorf("%s written beside the journal", processResultFile)
	}
}
