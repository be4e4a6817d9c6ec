package run

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// histOf is a histogram of n values at each of us, encoded.
func histOf(t *testing.T, n int, us ...int64) string {
	t.Helper()
	h := hist.New(time.Minute)
	for _, v := range us {
		for range n {
			h.RecordMicros(v)
		}
	}
	s, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A capacity search of a flow case reads the probe's flows as its
// requests: completed flows succeed, failed ones are errors of their
// failing step's class, unsent flows unsent, and the latency the SLO reads
// is the whole flow's; the steps are its routes, for their own SLOs.
func TestFlowProbeResultReadsFlows(t *testing.T) {
	res := &load.Result{Rate: 50, DurationSeconds: 2, Attempts: 400, Successes: 390, ThroughputRPS: 195,
		Errors: map[string]int64{"unfinished": 1, "status_401": 9}, LatencyHist: histOf(t, 10, 1000),
		Flow: &load.FlowResult{Started: 100, Completed: 90, Failed: 10, Unsent: 3, FlowsPerSecond: 45,
			Failures:      map[string]int64{"login: status_401": 9, "me: unfinished": 1},
			LatencyMicros: load.Latency{P50: 20000, P99: 80000}, LatencyHist: histOf(t, 10, 20000, 80000),
			Steps: []load.RouteResult{{Name: "login", LatencyHist: histOf(t, 10, 5000)}, {Name: "me", LatencyHist: histOf(t, 10, 9000)}}}}
	got := flowProbeResult(res)
	if got.Attempts != 100 || got.Successes != 90 || got.ThroughputRPS != 45 || got.Unsent != 3 || got.Rate != 50 ||
		got.Errors["status_401"] != 9 || got.Errors["unfinished"] != 1 || got.ErrorCount() != 10 ||
		got.LatencyHist != res.Flow.LatencyHist || got.LatencyMicros.P99 != 80000 || len(got.Routes) != 2 || got.Flow != nil {
		t.Errorf("flow as requests: %+v", got)
	}
	if res.Attempts != 400 || res.Flow == nil {
		t.Errorf("the journaled result was changed: %+v", res)
	}
	if plain := (&load.Result{Attempts: 7}); flowProbeResult(plain) != plain {
		t.Error("a request window's result is not its own")
	}
	// The steps' SLOs: login's p99 is 5 ms, me's 9 ms.
	judge := flowStepJudge([]plan.StepSLO{{Step: "login", SLO: "p99=10ms"}, {Step: "me", SLO: "p99=8ms"}})
	why := judge(got)
	if len(why) != 1 || !strings.HasPrefix(why[0], "step me p99 ") || !strings.HasSuffix(why[0], "> 8ms") {
		t.Errorf("step SLOs: %q; want me's alone to fail", why)
	}
	if why := flowStepJudge([]plan.StepSLO{{Step: "logout", SLO: "p99=8ms"}})(got); len(why) != 1 || !strings.Contains(why[0], "no latency") {
		t.Errorf("a step without figures: %q", why)
	}
	if flowStepJudge(nil) != nil {
		t.Error("no step SLOs: a judge")
	}
}

// A capacity search of a flow case on a reference server (micro, no
// database) offers flows per second: it starts from half the closed-loop
// window's completed flows per second, every probe runs the flow in the
// open model at the probe's rate, the probe's figures are the flows'
// (throughput in flows/s, latency the whole flow's), and the step SLOs
// judge each step: one no step can meet fails every probe, naming it.
func TestRunSearchesAFlowsCapacity(t *testing.T) {
	t.Parallel() // about what was measured, on a stack without a database (main_test.go)
	file := strings.Replace(flowLatencyFile(), "  latency: {rate: 50%}\n  calls: [cost]\n", "", 1)
	file = strings.Replace(file, "  rounds: 3\n", "  rounds: 1\n", 1)
	file = file[:strings.Index(file, "  - name: second")] + `capacity:
  cases:
    signup: {slo: p99=2s, steps: {read: p99=1us}}
  probe: 200ms
  warmup: 100ms
  budget: 1500ms
  confirm: 1
  retries: 0
  connections: 16
`
	path := writeFile(t, file)
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFileNoParity(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	closed := byKey["r1/first/signup/c4"].Load
	if closed == nil || closed.Flow == nil || closed.Flow.FlowsPerSecond <= 0 {
		t.Fatalf("closed-loop window %+v", closed)
	}
	key := journal.CapacitySearchKey("first", "signup", 1)
	probes := res.CapacityProbes(key)
	if len(probes) == 0 {
		t.Fatal("no probe")
	}
	if p := probes[0]; p.ClosedLoopRPS != closed.Flow.FlowsPerSecond || p.Probe.RateRPS != closed.Flow.FlowsPerSecond/2 {
		t.Errorf("first probe at %.1f from %.1f; want half the window's %.1f completed flows/s", p.Probe.RateRPS, p.ClosedLoopRPS, closed.Flow.FlowsPerSecond)
	}
	for _, p := range probes {
		w := p.Window
		if w.Load == nil || w.Load.Flow == nil || w.Load.Mode != "open" || w.Load.Rate != p.Probe.RateRPS {
			t.Fatalf("%s: load %+v; want the flow in the open model at %.1f", w.Key, w.Load, p.Probe.RateRPS)
		}
		f := w.Load.Flow
		if p.Probe.Successes != f.Completed || p.Probe.Attempts != f.Completed+f.Failed || p.Probe.ThroughputRPS != f.FlowsPerSecond {
			t.Errorf("%s: probe %d of %d at %.1f/s; want the flows' %d of %d at %.1f", w.Key, p.Probe.Successes, p.Probe.Attempts, p.Probe.ThroughputRPS, f.Completed, f.Completed+f.Failed, f.FlowsPerSecond)
		}
		if p.Probe.Pass || !strings.Contains(strings.Join(p.Probe.Reasons, "; "), "step read p99 ") {
			t.Errorf("%s: pass %v, reasons %q; want step read's SLO to fail it", w.Key, p.Probe.Pass, p.Probe.Reasons)
		}
	}
	if s, ok := res.CapacitySearch(key); !ok || s.Report.Status == capacity.StatusConfirmed {
		t.Errorf("search %+v; a 1 µs step SLO confirms nothing", s)
	}
	m, err := report.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Capacity.Cases[0]; !c.PerFlow || len(c.StepSLOs) != 1 {
		t.Errorf("report case %+v; want per flow, with its step SLO", c)
	}
	var md bytes.Buffer
	if err := report.WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "flows/s") || !strings.Contains(md.String(), "p99=2s on the whole flow; read p99=1us") {
		t.Errorf("the report's capacity section does not say flows/s and the flow's SLOs:\n%s", md.String())
	}
}
