package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/suite/spawn"
)

// processSuite is a suite of commands measured at one size, each with the
// given wall times in milliseconds; a command with an error failed.
func processSuite(walls map[string][]float64, errs map[string]string, names ...string) spawn.Result {
	res := spawn.Result{Sizes: []int{10}, Commands: names}
	for _, name := range names {
		c := spawn.Cell{Command: name, Size: 10, Error: errs[name]}
		for _, ms := range walls[name] {
			res.Samples = append(res.Samples, spawn.Sample{Command: name, Size: 10, Wall: time.Duration(ms * float64(time.Millisecond))})
		}
		if c.Error == "" {
			c.Wall = spawn.Spread{Median: walls[name][len(walls[name])/2] * 1e6, N: len(walls[name])}
		}
		res.Cells = append(res.Cells, c)
	}
	return res
}

// TestProcessCallsDecideOnWallTimes: a command clearly faster than the
// first is a gain with a negative wall-time change and its interval; one
// whose cell failed has no comparison; one command has no call at all.
func TestProcessCallsDecideOnWallTimes(t *testing.T) {
	base := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7}
	fast := make([]float64, len(base))
	for i, v := range base {
		fast[i] = v * 0.7
	}
	res := processSuite(map[string][]float64{"base": base, "fast": fast, "broken": base}, map[string]string{"broken": "exit status 1"}, "base", "fast", "broken")
	calls := ProcessCalls(res)
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2: %+v", len(calls), calls)
	}
	f, b := calls[0], calls[1]
	if f.From != "base" || f.To != "fast" || f.Size != 10 || !f.Defined || f.Verdict != "gain (faster)" || f.Change > -0.29 || f.Change < -0.31 || !strings.Contains(f.Detail, "interval") {
		t.Errorf("fast against base: %+v; want a gain near −30 %% wall time with its interval", f)
	}
	if b.Defined || b.Verdict != "invalid" || b.Detail == "" {
		t.Errorf("a failed cell: %+v; want no comparison, invalid with its reason", b)
	}
	if got := ProcessCalls(processSuite(map[string][]float64{"only": base}, nil, "only")); got != nil {
		t.Errorf("one command: %+v, want no call", got)
	}
}
