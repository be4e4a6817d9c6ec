package run

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

func TestSetupCapturesFeedTheVariantsOfEachProcess(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	path := writeFile(t, bins.OwnAppFile(`  - name: two
    dir: .
    start: `+ownAppBin+"\n"))
	dir := filepath.Join(t.TempDir(), "results")
	pools := t.TempDir()
	f, err := plan.LoadEnv(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(plan.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if _, err := Run(context.Background(), Options{File: f, Plan: p, Dir: dir, Stackbench: stackbenchBin, Log: &log, ToolVersion: "test", PoolDir: pools}); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	byKey, res := runtest.Finals(t, dir)
	if len(res.Parity) != 1 || !res.Parity[0].Passed || len(res.Parity[0].Warnings) != 0 {
		t.Fatalf("parity %+v: createdAt and at differ between the stacks and are ignored", res.Parity)
	}
	variants := map[string]int{}
	for _, c := range res.Plan.Cases {
		variants[c.Name] = c.Variants
	}
	if variants["article"] != 20 || variants["page"] != 1000 {
		t.Errorf("journaled variants %v, want article 20 and page 1000", variants)
	}
	if len(byKey) != 8 {
		t.Fatalf("%d windows, want 8", len(byKey))
	}
	for k, w := range byKey {
		want := map[string]int{"article": 20, "page": 1000}[w.Case]
		// An article of another process (or none) would answer 404: the
		// window would fail.
		if !w.Valid() || w.Load.Successes == 0 || w.Load.PoolSize != want {
			t.Errorf("%s: valid %v reasons %v, pool %d (want %d)", k, w.Valid(), w.Reasons, w.Load.PoolSize, want)
		}
	}
	// Process-scoped captures: one pool per process; each lists its own
	// 20 articles, in order.
	files, _ := filepath.Glob(filepath.Join(pools, "one", "article.p*.jsonl"))
	if len(files) != 2 {
		t.Fatalf("pools of stack one: %v, want one per process", files)
	}
	b, _ := os.ReadFile(files[0])
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 20 || !strings.Contains(lines[0], `"/articles/bench-1"`) || !strings.Contains(lines[19], `"/articles/bench-20"`) {
		t.Errorf("pool %s: %d lines, first %s", files[0], len(lines), lines[0])
	}
	one, _ := os.ReadFile(filepath.Join(pools, "one", "page.p1.jsonl"))
	two, _ := os.ReadFile(filepath.Join(pools, "two", "page.p1.jsonl"))
	if len(one) == 0 || string(one) != string(two) {
		t.Errorf("the ${rand} draws differ between stacks")
	}
}

func TestSetupFailureNamesStepAndPath(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	src := strings.Replace(bins.OwnAppFile(""), "capture: {token: body.user.token,", "capture: {token: body.user.jwt,", 1)
	path := writeFile(t, src)
	dir := filepath.Join(t.TempDir(), "results")
	_, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false)
	if err == nil {
		t.Fatal("the run went on without its token")
	}
	b, _ := os.ReadFile(filepath.Join(dir, ParityFile))
	if !strings.Contains(string(b), `setup step login: token: capture body.user.jwt found nothing in the body: "{\"user\":{\"email\"`) {
		t.Errorf("parity report:\n%s", b)
	}
}

// TestServicesAreMeasuredNotForeign: a process the stack relies on but the
// run does not start (here a listener that burns CPU) is named by its port
// and measured with the window, not left to foreign CPU.
func TestServicesAreMeasuredNotForeign(t *testing.T) {
	port := runtest.SpinningListenerIn(t, "")
	src := strings.Replace(bins.OwnAppFile(""), "  rounds: 2\n", "  rounds: 1\n  cases: [page]\n", 1) +
		fmt.Sprintf("    services: [%d]\n", port)
	path := writeFile(t, src)
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, _ := runtest.Finals(t, dir)
	w := byKey["r1/one/page/c4"]
	// How much CPU the spinning listener gets depends on the host's load
	// (on a busy 2-core host, a few percent of a core): any is enough to
	// show it was measured.
	if w.Services == nil || w.Services.CPUSeconds <= 0 || w.Services.Processes != 1 {
		t.Fatalf("services %+v, want the spinning listener's CPU", w.Services)
	}
	if w.ForeignCores > w.HostBusyCores-w.Services.Cores+0.01 {
		t.Errorf("foreign %.2f cores of %.2f busy includes the service's %.2f", w.ForeignCores, w.HostBusyCores, w.Services.Cores)
	}
	// And the stack pays for its services: they are in its cost (issue
	// 43, item 2), so a stack that brings its own cache is not cheaper by
	// that whole tier.
	_, res := runtest.Finals(t, dir)
	m, err := analysis.FromResults(res, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.Cell("one", "page", 4)
	db := w.Database.Cores
	if w.DatabaseOwn != nil {
		db = w.DatabaseOwn.Cores
	}
	want := (w.Server.Cores + db + w.Services.Cores) * 1e6 / w.Load.ThroughputRPS
	if len(c.PerWindow) != 1 || c.PerWindow[0].ServicesCores != w.Services.Cores || math.Abs(c.PerWindow[0].CostMicros/want-1) > 1e-9 {
		t.Errorf("cost %+v; want %.2f µs per request with the services' %.3f cores", c.PerWindow, want, w.Services.Cores)
	}
}
