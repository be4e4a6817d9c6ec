package load

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
)

// flowPart is one generator's result of a two-step flow (login, read):
// whole flows of the given latencies completed, login failures by class,
// and each step's successes at its own latency.
func flowPart(t *testing.T, flowLat []int64, fails map[string]int64, stepLat [2]int64, cpuSeconds float64) *Result {
	t.Helper()
	r := part(t, nil, map[string]int64{}, nil, 0)
	r.GeneratorCPUSeconds = cpuSeconds
	h := hist.New(10 * time.Second)
	for _, v := range flowLat {
		h.RecordMicros(v)
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	f := &FlowResult{Name: "session", Completed: int64(len(flowLat)), Failures: fails, LatencyMicros: summarize(h), LatencyHist: enc}
	for _, n := range fails {
		f.Failed += n
	}
	f.Started = f.Completed + f.Failed + 1
	f.FlowsPerSecond = float64(f.Completed) / r.DurationSeconds
	for i, name := range []string{"login", "read"} {
		s, e := hist.New(10*time.Second), hist.New(10*time.Second)
		for range f.Completed {
			s.RecordMicros(stepLat[i])
		}
		rr := RouteResult{Name: name, Attempts: f.Completed, Successes: f.Completed, ThroughputRPS: f.FlowsPerSecond, Errors: map[string]int64{}}
		if i == 0 {
			for k, n := range fails {
				class := strings.TrimPrefix(k, "login: ")
				rr.Errors[class] += n
				rr.Attempts += n
				e.RecordMicros(9000)
			}
		}
		if err := rr.finish(s, e, 0); err != nil {
			t.Fatal(err)
		}
		f.Steps = append(f.Steps, rr)
		r.Attempts += rr.Attempts
		r.Successes += rr.Successes
	}
	r.Flow = f
	return r
}

// Two generators' flows merge into one flow result: counts and failures
// by "step: class" summed, flows per second summed, the whole-flow
// percentiles those of one histogram holding every flow (not averages of
// the parts'), each step merged like a route, and the CPU per flow the
// summed CPU over the summed flows.
func TestMergeFlows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fast, slow := make([]int64, 1500), make([]int64, 500)
	all := hist.New(10 * time.Second)
	for i := range fast {
		fast[i] = 1000 + rng.Int64N(1000)
		all.RecordMicros(fast[i])
	}
	for i := range slow {
		slow[i] = 40000 + rng.Int64N(20000)
		all.RecordMicros(slow[i])
	}
	a := flowPart(t, fast, map[string]int64{"login: status_401": 3, "login: timeout": 1}, [2]int64{300, 500}, 0.6)
	b := flowPart(t, slow, map[string]int64{"login: status_401": 2}, [2]int64{20000, 30000}, 0.4)
	m, err := Merge([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	f := m.Flow
	if f == nil {
		t.Fatal("the merged result has no flow figures")
	}
	if f.Name != "session" || f.Completed != 2000 || f.Failed != 6 || f.Started != 2008 ||
		len(f.Failures) != 2 || f.Failures["login: status_401"] != 5 || f.Failures["login: timeout"] != 1 {
		t.Fatalf("counts: %+v", f)
	}
	if f.FlowsPerSecond != 1000 || f.GeneratorCPUMicrosPerFlow != 500 {
		t.Fatalf("flows/s %v, CPU per flow %v µs; want 1000 and 500 (1 CPU-s over 2000 flows)", f.FlowsPerSecond, f.GeneratorCPUMicrosPerFlow)
	}
	if want := summarize(all); f.LatencyMicros != want {
		t.Fatalf("merged flow latency %+v; want the merged histogram's %+v", f.LatencyMicros, want)
	}
	// Three quarters of the flows took under 2 ms; the parts' p50s
	// averaged would say about 25 ms.
	if f.LatencyMicros.P50 > 2100 || f.LatencyMicros.P90 < 40000 {
		t.Fatalf("p50 %d µs, p90 %d µs", f.LatencyMicros.P50, f.LatencyMicros.P90)
	}
	if d, err := hist.Decode(f.LatencyHist); err != nil || d.Count() != 2000 || d.PercentileMicros(99) != all.PercentileMicros(99) {
		t.Fatalf("merged flow histogram: %v", err)
	}
	if len(f.Steps) != 2 || f.Steps[0].Name != "login" || f.Steps[1].Name != "read" {
		t.Fatalf("steps %+v", f.Steps)
	}
	login, read := f.Steps[0], f.Steps[1]
	if login.Attempts != 2006 || login.Successes != 2000 || login.Errors["status_401"] != 5 || login.Errors["timeout"] != 1 || read.Attempts != 2000 {
		t.Fatalf("login %+v, read %+v", login, read)
	}
	if m.Attempts != 4006 || login.Share != 2006.0/4006 || read.Share != 2000.0/4006 {
		t.Fatalf("attempts %d; shares %v and %v", m.Attempts, login.Share, read.Share)
	}
	// The read step: 1500 at 500 µs and 500 at 30 ms.
	if read.LatencyMicros.P50 > 510 || read.LatencyMicros.P90 < 29000 || read.LatencyMicros.P90 > 31000 {
		t.Fatalf("read step latency %+v", read.LatencyMicros)
	}
	if a.Flow.Completed != 1500 || a.Flow.Failures["login: status_401"] != 3 {
		t.Fatal("Merge changed a part's flow")
	}
}

// Parts of different flows, or a flow and a plain run, are not merged.
func TestMergeFlowsRefusesOtherFlows(t *testing.T) {
	a := flowPart(t, []int64{1000}, nil, [2]int64{1, 1}, 0.1)
	b := flowPart(t, []int64{1000}, nil, [2]int64{1, 1}, 0.1)
	b.Flow.Steps[1].Name = "write"
	if _, err := Merge([]*Result{a, b}); err == nil || !strings.Contains(err.Error(), "other steps") {
		t.Fatalf("other steps: %v", err)
	}
	plain := part(t, []int64{1}, map[string]int64{}, nil, 0)
	if _, err := Merge([]*Result{a, plain}); err == nil || !strings.Contains(err.Error(), "ran a flow") {
		t.Fatalf("a flow and a plain run: %v", err)
	}
}
