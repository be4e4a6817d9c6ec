package run

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/run/runtest"
	"github.com/stackbench/stackbench/internal/stats"
)

// judgeBehind judges a flow case's latency window on its flows, whose
// rate was offered: unsent, unfinished or failed flows, or completed
// flows per second short of the rate — never on the steps' requests,
// which run at a multiple of it.
func TestJudgeFlowsBehind(t *testing.T) {
	base := func() *load.Result {
		// 100 flows/s of two steps for 2 s: 200 flows, 400 requests. The
		// request-level figures say nothing of the flows' rate (the
		// request throughput is twice the offered rate).
		return &load.Result{Rate: 100, DurationSeconds: 2, ThroughputRPS: 200, Attempts: 400, Successes: 400, Connections: 4,
			Errors: map[string]int64{"unfinished": 0},
			Flow:   &load.FlowResult{Started: 200, Completed: 200, FlowsPerSecond: 100, Failures: map[string]int64{}}}
	}
	for _, c := range []struct {
		name  string
		edit  func(*load.Result)
		flag  bool
		words string
	}{
		{"kept up", func(*load.Result) {}, false, ""},
		{"a little short", func(r *load.Result) { r.Flow.FlowsPerSecond = 98 }, false, ""},
		{"short", func(r *load.Result) { r.Flow.FlowsPerSecond = 95 }, true, "completed 95.0 of 100.0 flows/s"},
		{"requests short, flows not", func(r *load.Result) { r.ThroughputRPS = 150 }, false, ""},
		{"one unsent per user", func(r *load.Result) { r.Flow.Unsent = 4 }, false, ""},
		{"unsent", func(r *load.Result) { r.Flow.Unsent = 10 }, true, "never started"},
		{"unfinished", func(r *load.Result) {
			r.Flow.Failures["me: unfinished"], r.Flow.Failed = 2, 2
		}, true, "still unanswered"},
		{"failed", func(r *load.Result) {
			r.Flow.Failures["login: status_401"], r.Flow.Failed = 3, 3
		}, true, "flows failed (login: status_401"},
		{"none started", func(r *load.Result) { r.Flow.Started, r.Flow.Completed, r.Flow.FlowsPerSecond = 0, 0, 0 }, true, "no flow was started"},
	} {
		res := base()
		c.edit(res)
		rec := &journal.Window{}
		judgeBehind(rec, res)
		if rec.HasFlag(journal.FlagBehind) != c.flag || c.flag && !strings.Contains(strings.Join(rec.Reasons, "; "), c.words) {
			t.Errorf("%s: flags %v, reasons %v", c.name, rec.Flags, rec.Reasons)
		}
	}
}

// flowLatencyFile is two reference servers (the micro workload, no
// database) on a two-step flow — create a user, read it back by the name
// the first step's answer gave — with latency windows at 50 % and only
// the cost called (closed_loop: first), in 3 rounds: round 1's
// closed-loop windows fix the rate, each round has a latency window a
// stack.
func flowLatencyFile() string {
	return `
workload:
  name: micro-flow
  cases:
    - flow:
        name: signup
        steps:
          - {name: create, method: POST, path: /users, body: '{"name":"u${rand:1..99}"}', expect: [201], capture: {name: body.created.name}}
          - {name: read, path: "/users/${name}"}
profile: quick
protocol:
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms
  window: 500ms
  rounds: 3
  boot_starts: 0
  gate: off
  latency: {rate: 50%}
  calls: [cost]
stacks:
  - name: first
    dir: ` + refServerDir + `
    start: env STACKBENCH_WORKLOAD=micro ` + refServerBin + `
  - name: second
    dir: ` + refServerDir + `
    start: env STACKBENCH_WORKLOAD=micro ` + refServerBin + `
`
}

// A flow case in the latency windows is offered flows: the rate is half
// the slower stack's closed-loop median of completed flows per second
// (not of its requests, twice as many), each latency window runs the flow
// in the open model at that rate (load --flow -R), and the journal and
// the model carry flow-level figures: the latency cell's latency is the
// whole flow's, its cost is CPU per completed flow, each step keeps its
// own latency, and the step's cost call and cost loads are per flow, so
// named in the JSON.
func TestRunFlowAtAFixedRate(t *testing.T) {
	t.Parallel() // about what was measured, on stacks without a database (main_test.go)
	path := writeFile(t, flowLatencyFile())
	dir := filepath.Join(t.TempDir(), "results")
	out, err := runFileNoParity(t, context.Background(), path, dir, plan.Overrides{}, false)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if out.Latency != 6 {
		t.Errorf("%d latency windows; want 6 (2 stacks × 3 rounds)", out.Latency)
	}
	byKey, res := runtest.Finals(t, dir)
	if len(res.LatencyRates) != 1 {
		t.Fatalf("latency rates %+v", res.LatencyRates)
	}
	rate := res.LatencyRates[0]
	slowest := 0.0
	for _, s := range []string{"first", "second"} {
		w := byKey["r1/"+s+"/signup/c4"]
		if w.Load == nil || w.Load.Flow == nil || w.Load.Flow.FlowsPerSecond <= 0 {
			t.Fatalf("%s's closed-loop window has no flows: %+v", s, w.Load)
		}
		if fps := w.Load.Flow.FlowsPerSecond; slowest == 0 || fps < slowest {
			slowest = fps
		}
	}
	// One window a stack in round 1: the median is that window's.
	if math.Abs(rate.RateRPS-0.5*slowest) > 1e-9*slowest {
		t.Errorf("offered %.2f; want half the slower stack's %.2f completed flows/s", rate.RateRPS, slowest)
	}
	for _, w := range res.FinalLatencyWindows() {
		l := w.Load
		if l == nil || l.Flow == nil || l.Rate != rate.RateRPS || l.Flow.Completed == 0 || len(l.Flow.Steps) != 2 {
			t.Fatalf("%s: load %+v; want the flow at %.2f flows/s", w.Key, l, rate.RateRPS)
		}
		// Two requests per completed flow: the request rate is about
		// twice the offered flows; the judgement is on the flows.
		if l.ThroughputRPS < 1.5*l.Flow.FlowsPerSecond {
			t.Errorf("%s: %.1f req/s for %.1f flows/s", w.Key, l.ThroughputRPS, l.Flow.FlowsPerSecond)
		}
	}
	m, err := analysis.FromResults(res, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.LatencyCells) != 2 {
		t.Fatalf("%d latency cells", len(m.LatencyCells))
	}
	latency := map[string]journal.Window{}
	for _, w := range res.FinalLatencyWindows() {
		latency[w.Key] = w
	}
	for _, c := range m.LatencyCells {
		if c.Flow == nil || len(c.Flow.Steps) != 2 || c.Flow.Steps[0].Latency.P50 <= 0 || c.Flow.Steps[1].Latency.P50 <= 0 {
			t.Fatalf("%s: flow figures %+v; want each step's latency", c.Stack, c.Flow)
		}
		// The cell's latency is the whole flow's: above each step's.
		if c.Counted > 0 && c.Latency.P50 < c.Flow.Steps[0].Latency.P50 {
			t.Errorf("%s: cell p50 %.0f µs below step create's %.0f µs: not the whole flow's", c.Stack, c.Latency.P50, c.Flow.Steps[0].Latency.P50)
		}
		for _, wf := range c.PerWindow {
			jw := latency[plan.LatencyKey(plan.Window{Round: wf.Round, Stack: c.Stack, Case: c.Case, Concurrency: c.Concurrency})]
			if jw.Load == nil {
				continue
			}
			own := jw.Database.Cores
			if jw.DatabaseOwn != nil {
				own = jw.DatabaseOwn.Cores
			}
			want := (jw.Server.Cores + own) * 1e6 / jw.Load.Flow.FlowsPerSecond
			if !wf.PerFlow || wf.CostMicrosPerFlow <= 0 || diffRel(wf.CostMicrosPerFlow, want) > 1e-9 || wf.CostMicrosPerFlow <= wf.CostMicros {
				t.Errorf("%s r%d: %.1f CPU-µs per flow (%.1f per request); want server + own backends ÷ completed flows = %.1f",
					c.Stack, wf.Round, wf.CostMicrosPerFlow, wf.CostMicros, want)
			}
		}
	}
	if len(m.Steps) == 0 || m.Steps[0].Cost == nil {
		t.Fatalf("no cost call: %+v", m.Steps)
	}
	s := m.Steps[0]
	if s.Cost.Call != stats.CallInvalid && (s.CostLoads == nil || !s.CostLoads.PerFlow || s.CostLoads.FromFixedMicros <= 0) {
		t.Errorf("cost loads %+v; want per flow", s.CostLoads)
	}
	if s.CostLoads != nil {
		data, _ := json.Marshal(s.CostLoads)
		if !strings.Contains(string(data), `"from_fixed_us_per_flow"`) || strings.Contains(string(data), "per_req") || !strings.Contains(string(data), `"rate_flows_per_s"`) {
			t.Errorf("cost loads JSON %s; want names per flow", data)
		}
	}
	if r := m.Header.Latency.Rates; len(r) != 1 || !r[0].PerFlow {
		t.Errorf("rates %+v; want per flow", r)
	}
	// The report says flows: the offered rate, the cost per completed
	// flow, and each step's figures at the rate.
	rm, err := report.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := report.WriteMarkdown(&md, rm); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{" flows/s | 50% of ", "Flows of signup at the fixed rate", "create ", "read "} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report's latency section lacks %q:\n%s", want, md.String())
		}
	}
	if lines := strings.Join(report.LatencyLines(rm), "\n"); !strings.Contains(lines, "cost per completed flow") || !strings.Contains(lines, "flows/s") {
		t.Errorf("terminal lines:\n%s", lines)
	}
}
