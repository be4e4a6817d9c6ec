package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/load"
)

// Each condition of a pass, broken alone, fails the probe with its reason.
func TestJudge(t *testing.T) {
	cfg, err := withDefaults(Config{SLO: slo20ms})
	if err != nil {
		t.Fatal(err)
	}
	good := func() *load.Result { return fakeResult(1000, 2*time.Second, 5*time.Millisecond, 0) }
	cases := []struct {
		name   string
		edit   func(r *load.Result)
		ignore bool
		want   string // in the one reason; "" = pass
	}{
		{"clean", func(*load.Result) {}, false, ""},
		{"slow", func(r *load.Result) { *r = *fakeResult(1000, 2*time.Second, 21*time.Millisecond, 0) }, false, "p99 21.0"},
		{"errors", func(r *load.Result) { r.Errors["reset"] = 3; r.Successes -= 3; r.ThroughputRPS = 998.5 }, false, "errors 0.15 % > 0.10 %"},
		{"unfinished", func(r *load.Result) { r.Errors["unfinished"] = 3; r.Successes -= 3; r.ThroughputRPS = 998.5 }, false, "unfinished 0.15 %"},
		{"unsent", func(r *load.Result) { r.Unsent = 3 }, false, "unsent 0.15 %"},
		{"short", func(r *load.Result) { r.ThroughputRPS = 985 }, false, "served 985.0 of 1000.0"},
		{"short by a request is a whole count", func(r *load.Result) {
			*r = *fakeResult(10.4, 2*time.Second, 5*time.Millisecond, 0)
			r.Successes, r.ThroughputRPS = 20, 10
		}, false, ""},
		{"client bound", func(r *load.Result) { r.ClientBound = true }, false, "client-bound"},
		{"starved", func(r *load.Result) { r.GeneratorWaitSeconds = 1.1 }, false, "generator starved"},
		{"starvation ignored", func(r *load.Result) { r.GeneratorWaitSeconds = 1.1 }, true, ""},
		{"nothing succeeded", func(r *load.Result) {
			r.Errors["refused"], r.Successes, r.ThroughputRPS, r.LatencyHist = r.Attempts, 0, 0, ""
		}, false, "no request succeeded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := good()
			c.edit(res)
			cfg := cfg
			cfg.IgnoreStarvation = c.ignore
			p := newProbe(res, PhaseClimb, res.Rate, cfg.SLO)
			judge(&p, cfg)
			switch {
			case c.want == "" && !p.Pass:
				t.Errorf("failed: %q", p.Reasons)
			case c.want != "" && (p.Pass || len(p.Reasons) == 0 || !strings.Contains(p.Reasons[0], c.want)):
				t.Errorf("pass %v, reasons %q; want one saying %q", p.Pass, p.Reasons, c.want)
			}
		})
	}
}

func TestParseSLO(t *testing.T) {
	for in, want := range map[string]string{"p99=20ms": "p99=20ms", "P99.9=1.5ms": "p99.9=1.5ms", " p50 = 300µs": "p50=300µs"} {
		got, err := ParseSLO(in)
		if err != nil || got.String() != want || got.LatencyMicros != got.Latency.Microseconds() {
			t.Errorf("ParseSLO(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "p99", "99=20ms", "p100=20ms", "p0=1ms", "p99=20", "p99=-1ms", "px=1ms"} {
		if _, err := ParseSLO(in); err == nil {
			t.Errorf("ParseSLO(%q) accepted", in)
		}
	}
}

func TestParseShare(t *testing.T) {
	for in, want := range map[string]float64{"0.1%": 0.001, "1 %": 0.01, "0.001": 0.001, "0": 0, "100%": 1} {
		if got, err := ParseShare(in); err != nil || got < want*(1-1e-12) || got > want*(1+1e-12) {
			t.Errorf("ParseShare(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "-1%", "101%", "2"} {
		if _, err := ParseShare(in); err == nil {
			t.Errorf("ParseShare(%q) accepted", in)
		}
	}
}
