package load

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
)

// part is one generator's result with the given latencies recorded.
func part(t *testing.T, lat []int64, errs map[string]int64, timeline []Second, startNS int64) *Result {
	t.Helper()
	h, e := hist.New(10*time.Second), hist.New(10*time.Second)
	for _, v := range lat {
		h.RecordMicros(v)
	}
	e.RecordMicros(5000)
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	encE, _ := e.Encode()
	r := &Result{SchemaVersion: SchemaVersion, Mode: "closed", DurationSeconds: 2, Successes: int64(len(lat)), Errors: errs,
		LatencyHist: enc, ErrorLatencyHist: encE, LatencyMicros: summarize(h), Timeline: timeline, Connections: 8,
		CoresAvailable: 2, GeneratorCPUSeconds: 0.5, MeasureStartUnixNano: startNS, MeasureEndUnixNano: startNS + 2e9}
	r.Attempts = r.Successes + r.ErrorCount()
	r.ThroughputRPS = float64(r.Successes) / r.DurationSeconds
	return r
}

// Merged counts are the sums of the generators' own, and the percentiles
// are those of one histogram holding every latency (not averages of the
// generators' percentiles).
func TestMergeSumsCountsAndMergesHistograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fast, slow := make([]int64, 3000), make([]int64, 1000)
	all := hist.New(10 * time.Second)
	for i := range fast {
		fast[i] = 200 + rng.Int64N(300)
		all.RecordMicros(fast[i])
	}
	for i := range slow {
		slow[i] = 20000 + rng.Int64N(30000)
		all.RecordMicros(slow[i])
	}
	a := part(t, fast, map[string]int64{"timeout": 1, "status_500": 2}, []Second{{1, 1500, 1}, {2, 1500, 2}}, 1000)
	b := part(t, slow, map[string]int64{"timeout": 3, "reset": 4}, []Second{{1, 500, 3}, {2, 500, 4}}, 900)
	b.ClientBound = true
	m, err := Merge([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.Successes != 4000 || m.Attempts != a.Attempts+b.Attempts || m.ErrorCount() != 10 ||
		m.Errors["timeout"] != 4 || m.Errors["status_500"] != 2 || m.Errors["reset"] != 4 {
		t.Fatalf("counts: successes %d, attempts %d, errors %v", m.Successes, m.Attempts, m.Errors)
	}
	if m.ThroughputRPS != 2000 || m.Connections != 16 || m.CoresAvailable != 4 || m.GeneratorCPUSeconds != 1 || !m.ClientBound {
		t.Fatalf("rates and generators: %+v", m)
	}
	if len(m.Timeline) != 2 || m.Timeline[0] != (Second{1, 2000, 4}) || m.Timeline[1] != (Second{2, 2000, 6}) {
		t.Fatalf("timeline %+v", m.Timeline)
	}
	if m.MeasureStartUnixNano != 900 || m.MeasureEndUnixNano != 1000+2e9 {
		t.Fatalf("window %d..%d", m.MeasureStartUnixNano, m.MeasureEndUnixNano)
	}
	if want := summarize(all); m.LatencyMicros != want {
		t.Fatalf("merged latency %+v; want the merged histogram's %+v", m.LatencyMicros, want)
	}
	// Averaging the parts' p50 would say about 17 ms; three quarters of
	// the requests took under 0.5 ms.
	if m.LatencyMicros.P50 > 600 || m.LatencyMicros.P90 < 20000 {
		t.Fatalf("p50 %d µs, p90 %d µs", m.LatencyMicros.P50, m.LatencyMicros.P90)
	}
	d, err := hist.Decode(m.LatencyHist)
	if err != nil || d.Count() != 4000 {
		t.Fatalf("merged histogram holds %d values (%v)", d.Count(), err)
	}
	if a.Successes != 3000 || a.Errors["timeout"] != 1 {
		t.Fatal("Merge changed a part")
	}
}

func TestMergeRefusesMixedModes(t *testing.T) {
	a := part(t, []int64{1}, map[string]int64{}, nil, 0)
	b := part(t, []int64{1}, map[string]int64{}, nil, 0)
	b.Mode = "open"
	if _, err := Merge([]*Result{a, b}); err == nil || !strings.Contains(err.Error(), "mode open") {
		t.Fatalf("mixed modes: %v", err)
	}
	if _, err := Merge(nil); err == nil {
		t.Fatal("merged nothing")
	}
}
