package cli

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
)

// stallingMixDir is a results directory of a closed-loop run of stacks a
// and b on a mix "shop" (list 3 : create 1) over 8 rounds, with a p99
// limit of 25 ms on the mix's list route: b's list stalls at 80 ms in
// every other round, a's answers in about 2 ms.
func stallingMixDir(t *testing.T) string {
	t.Helper()
	route := func(name string, n int64, p50Us float64) load.RouteResult {
		h := hist.New(time.Minute)
		for i := range n {
			q := (float64(i) + 0.5) / float64(n)
			h.RecordMicros(int64(p50Us * math.Exp(0.15*math.Sqrt2*math.Erfinv(2*q-1))))
		}
		enc, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return load.RouteResult{Name: name, Attempts: n, Successes: n, ThroughputRPS: float64(n), LatencyHist: enc}
	}
	pr := plan.Protocol{Concurrency: []int{4}, Cases: []string{"shop"}, Rounds: 8, Layout: plan.LayoutInterleaved, Order: plan.OrderWilliams,
		MinEffect: 0.05, Timeout: time.Second}
	pl := plan.Plan{WorkloadName: "shop", Protocol: pr, Stacks: []plan.Stack{{Name: "a"}, {Name: "b"}},
		Thresholds: []plan.CaseThresholds{{Case: "shop", Route: "list", Thresholds: plan.Thresholds{P99: 25 * time.Millisecond}}}}
	var windows []journal.Window
	for r := 1; r <= 8; r++ {
		for _, s := range []string{"a", "b"} {
			list := 2000.0
			if s == "b" && r%2 == 0 {
				list = 80_000
			}
			routes := []load.RouteResult{route("list", 1200, list), route("create", 400, 6000)}
			pw := plan.Window{Key: plan.WindowKey(r, s, "shop", 4), Round: r, Stack: s, Case: "shop", Concurrency: 4}
			pl.Windows = append(pl.Windows, pw)
			windows = append(windows, journal.Window{Key: pw.Key, Index: len(windows) + 1, Round: r, Stack: s, Case: "shop", Concurrency: 4,
				Final: true, Attempt: 1, Process: journal.ProcessInfo{Seq: r}, Server: journal.Usage{Cores: 1},
				Load: &load.Result{ThroughputRPS: 1600, Successes: 1600, Attempts: 1600, DurationSeconds: 1, TimeoutSeconds: 1,
					LatencyHist: routes[0].LatencyHist, Routes: routes}})
		}
	}
	dir := t.TempDir()
	w, _, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Append(journal.KindPlan, journal.Plan{RunID: "mix", Plan: pl, Cases: []journal.Case{{Name: "shop"}}}); err != nil {
		t.Fatal(err)
	}
	for _, win := range windows {
		if err := w.Append(journal.KindWindow, win); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// --fail-on threshold fails on a limit set on a mix's route, judged on
// that route's requests: b's stalling list fails it, a's passes.
func TestGateFailsOnAMixRouteThreshold(t *testing.T) {
	dir := stallingMixDir(t)
	code, _, stderr := runMain(t, dir, nil, "report", dir, "-o", "json", "--fail-on", "threshold")
	if code != ExitGateFailed {
		t.Fatalf("exit %d, want %d (gate failed); stderr:\n%s", code, ExitGateFailed, stderr)
	}
	if !strings.Contains(stderr, "threshold b shop/list c=4 p99 ≤ 25.0 ms: fail") || strings.Contains(stderr, "threshold a shop/list") {
		t.Errorf("stderr names the wrong checks:\n%s", stderr)
	}
}
