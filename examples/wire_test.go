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

// wireExamples compare the wire — protocol, TLS, gRPC — on the reference
// servers of apps/, through a custom workload that writes each case for
// every wire.
var wireExamples = []string{"wire"}

// TestWireExample runs examples/wire as its README says, shortened to one
// round: the four wires pass parity together and each stack's windows go
// over its own wire.
func TestWireExample(t *testing.T) {
	f, err := plan.Load(filepath.Join("wire", "stackbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) > 0 {
		t.Errorf("warnings: %v", f.Warnings)
	}
	readme, err := os.ReadFile(filepath.Join("wire", "README.md"))
	if err != nil || !strings.Contains(string(readme), "stackbench run -f examples/wire/stackbench.yaml") {
		t.Errorf("wire/README.md must name the command that runs the example (%v)", err)
	}
	f.Database = pgtest.Cluster(t).AdminURL()
	noBoot, fixed := 0, false
	p, err := f.Resolve(plan.Overrides{Profile: "quick", Rounds: 1, Adaptive: &fixed, Concurrency: []int{4}, Warmup: 200 * time.Millisecond,
		Window: 500 * time.Millisecond, BootStarts: &noBoot, Gate: "off"})
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
	if want := len(p.Stacks) * len(p.Cases); out.Measured != want {
		t.Errorf("measured %d windows, want %d", out.Measured, want)
	}
	wire := map[string]string{"json": "http1", "json-h2c": "h2c", "grpc": "grpc", "grpc-tls": "grpc"}
	for _, w := range res.Windows {
		if !w.Final {
			continue
		}
		if w.Load == nil || w.Load.Successes == 0 || w.Load.Attempts != w.Load.Successes {
			t.Errorf("%s: %+v; want every request a success", w.Key, w.Load)
			continue
		}
		if w.Load.Protocol != wire[w.Stack] || (w.Load.TLS != nil) != (w.Stack == "grpc-tls") {
			t.Errorf("%s: protocol %q, TLS %+v", w.Key, w.Load.Protocol, w.Load.TLS)
		}
	}
	if t.Failed() {
		t.Logf("run log:\n%s", log.String())
	}
}
