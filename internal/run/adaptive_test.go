package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/run/runtest"
	"github.com/stackbench/stackbench/internal/stats"
)

// adaptiveFile is the flaky workload's ok case served by two identical
// stacks, with rounds: auto from 2 to 4: two windows a side can never
// decide a step, so the run must measure rounds 3 and 4, each of only the
// two cells of the undecided step, and stop at max_rounds.
func adaptiveFile() string {
	f := flakyFile("[ok]", "  gate: off")
	f = strings.Replace(f, "  rounds: 1\n", "  rounds: auto\n  min_rounds: 2\n  max_rounds: 4\n  budget: 5m\n", 1)
	i := strings.Index(f, "stacks:")
	stacks := f[i:]
	second := strings.Replace(stacks[len("stacks:\n"):], "name: flaky", "name: flaky-b", 1)
	return f[:i] + stacks + second
}

func TestAdaptiveRoundsMeasureOnlyWhatIsUndecided(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	path := writeFile(t, adaptiveFile())
	dir := filepath.Join(t.TempDir(), "results")
	out, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	// 2 stacks × 1 case × 4 rounds.
	if len(byKey) != 8 || out.Planned != 8 || out.Measured != 8 {
		t.Fatalf("%d final windows, planned %d, measured %d; want 8 each", len(byKey), out.Planned, out.Measured)
	}
	for _, k := range []string{"r3/flaky/ok/c4", "r3/flaky-b/ok/c4", "r4/flaky/ok/c4", "r4/flaky-b/ok/c4"} {
		if _, ok := byKey[k]; !ok {
			t.Errorf("extra round window %s missing", k)
		}
	}
	if len(res.Rounds) != 3 {
		t.Fatalf("%d round records, want rounds 3 and 4 and the stop: %+v", len(res.Rounds), res.Rounds)
	}
	for i, want := range []int{3, 4} {
		rd := res.Rounds[i]
		// Interleaved (quick's layout), so paired: no look of 2 to 4 pairs
		// can decide (2/2⁴ > 0.05), and α is split over all three.
		if rd.Round != want || len(rd.Windows) != 2 || len(rd.Undecided) != 1 || !strings.Contains(rd.Undecided[0], "flaky → flaky-b ok c=4") || rd.Alpha != stats.SequentialAlpha(stats.Paired, 0.05, 2, 4) {
			t.Errorf("round record %d: %+v", i, rd)
		}
	}
	stop, ok := res.Stopped()
	if !ok || stop.Round != 4 || !strings.Contains(stop.Stop, "max_rounds (4) reached with 1 step(s) undecided") {
		t.Errorf("stop record: %+v", stop)
	}
	if got := len(res.PlannedWindows()); got != 8 {
		t.Errorf("planned windows from the journal: %d, want 8", got)
	}
	// The report counts the extra rounds as planned and says why they ran.
	m, err := report.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := m.Header
	if h.State != "finished" || h.WindowsPlanned != 8 || h.Rounds == nil || h.Rounds.Measured != 4 || len(h.Rounds.Extra) != 2 || !strings.Contains(h.Rounds.Stop, "max_rounds") {
		t.Errorf("report header: state %s, %d planned, rounds %+v", h.State, h.WindowsPlanned, h.Rounds)
	}
}

// A run killed right after it journaled its first extra round resumes with
// that round in its plan, measures it, and goes on under the same rule.
func TestAdaptiveRoundsResume(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	path := writeFile(t, adaptiveFile())
	dir := filepath.Join(t.TempDir(), "results")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	journaled := make(chan struct{})
	go func() {
		defer close(journaled)
		for ctx.Err() == nil {
			data, _ := os.ReadFile(filepath.Join(dir, journal.FileName))
			if strings.Contains(string(data), `"kind":"round"`) {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, err := runFile(t, ctx, path, dir, plan.Overrides{}, false)
	<-journaled
	if err == nil {
		t.Fatal("the run ended before it journaled an extra round: the test did not interrupt it")
	}
	res, rerr := journal.ReadDir(dir)
	if rerr != nil || len(res.Rounds) == 0 {
		t.Fatalf("no round record before the interruption: %v", rerr)
	}
	out, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, true)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	if len(byKey) != 8 || out.Planned != 8 {
		t.Fatalf("after the resume: %d final windows, planned %d; want 8", len(byKey), out.Planned)
	}
	rounds := map[int]int{}
	for _, rd := range res.Rounds {
		if rd.Stop == "" {
			rounds[rd.Round]++
		}
	}
	if rounds[3] != 1 || rounds[4] != 1 {
		t.Errorf("extra rounds journaled %v; want round 3 and round 4 once each", rounds)
	}
	if _, ok := res.Stopped(); !ok {
		t.Error("the resumed run did not journal why it stopped")
	}
	// A third invocation has nothing left to do.
	out, err = runFile(t, context.Background(), path, dir, plan.Overrides{}, true)
	if err != nil || out.Measured != 0 {
		t.Errorf("resuming a finished adaptive run: measured %d, %v", out.Measured, err)
	}
}
