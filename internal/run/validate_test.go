package run

import (
	"slices"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
)

func TestJudgeLoad(t *testing.T) {
	ok := load.Phase{Attempts: 100, Successes: 100}
	cases := []struct {
		name  string
		res   load.Result
		flags []journal.Flag
		want  string // in the reasons
	}{
		{"clean", load.Result{Attempts: 1000, Successes: 1000, WarmupSeconds: 1, Warmup: ok}, nil, ""},
		{"exactly 1 % failed is valid", load.Result{Attempts: 1000, Successes: 990, Errors: map[string]int64{"timeout": 10}, WarmupSeconds: 1, Warmup: ok}, nil, ""},
		{"just over 1 %", load.Result{Attempts: 1000, Successes: 989, Errors: map[string]int64{"reset": 7, "status_503": 4}, WarmupSeconds: 1, Warmup: ok},
			[]journal.Flag{journal.FlagInvalid}, "reset 7, status_503 4"},
		{"unfinished requests are failures", load.Result{Attempts: 100, Successes: 98, Errors: map[string]int64{"unfinished": 2}},
			[]journal.Flag{journal.FlagInvalid}, "unfinished 2"},
		{"a route slower than quick's window says which window to give it",
			load.Result{Attempts: 40, Successes: 30, DurationSeconds: 1, Errors: map[string]int64{"unfinished": 10}, LatencyMicros: load.Latency{P99: 1_400_000}},
			[]journal.Flag{journal.FlagInvalid}, "the route's p99 is 1.40 s against a 1.00 s window, so requests still open at its end fail it: give it a window of 7 s or more (--window 7s"},
		{"a fast route's unfinished requests say nothing of the window",
			load.Result{Attempts: 1000, Successes: 980, DurationSeconds: 1, Errors: map[string]int64{"unfinished": 20}, LatencyMicros: load.Latency{P99: 2_000}},
			[]journal.Flag{journal.FlagInvalid}, "unfinished 20)"},
		{"unsent requests are failures", load.Result{Attempts: 100, Successes: 100, Unsent: 5, Errors: map[string]int64{}},
			[]journal.Flag{journal.FlagInvalid}, "unsent 5"},
		{"nothing completed", load.Result{}, []journal.Flag{journal.FlagInvalid}, "no request completed"},
		{"warm-up failed", load.Result{Attempts: 10, Successes: 10, WarmupSeconds: 1, Warmup: load.Phase{Attempts: 50, Successes: 0, Errors: 50}},
			[]journal.Flag{journal.FlagInvalid}, "warm-up failed"},
		{"no warm-up asked", load.Result{Attempts: 10, Successes: 10}, nil, ""},
		{"client bound", load.Result{Attempts: 10, Successes: 10, ClientBound: true, GeneratorCPUSeconds: 1.8, DurationSeconds: 1, CoresAvailable: 2},
			[]journal.Flag{journal.FlagClientBound}, "generator used 1.80 CPU-s"},
		{"a shared host's usual wait: not starved", load.Result{Attempts: 10, Successes: 10, DurationSeconds: 2, GeneratorCPUSeconds: 0.31, GeneratorWaitSeconds: 1.40}, nil, ""},
		{"waited 80 % of the window: not yet starved", load.Result{Attempts: 10, Successes: 10, DurationSeconds: 2, GeneratorCPUSeconds: 0.3, GeneratorWaitSeconds: 1.6}, nil, ""},
		{"waited past 80 % of the window: starved", load.Result{Attempts: 10, Successes: 10, DurationSeconds: 2, GeneratorCPUSeconds: 0.2, GeneratorWaitSeconds: 1.7},
			[]journal.Flag{journal.FlagClientStarved}, "waited 1.70 s for a CPU in a 2.00 s window"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &journal.Window{Flags: []journal.Flag{}}
			judgeLoad(w, &c.res)
			if !slices.Equal(w.Flags, c.flags) {
				t.Fatalf("flags %v, want %v (reasons %v)", w.Flags, c.flags, w.Reasons)
			}
			if c.want != "" && !strings.Contains(strings.Join(w.Reasons, "; "), c.want) {
				t.Errorf("reasons %v do not say %q", w.Reasons, c.want)
			}
		})
	}
}

func TestJudgeDBFlagsACheckpointInTheWindow(t *testing.T) {
	w := &journal.Window{DBBefore: &journal.DBStats{Checkpoints: 7}, DBAfter: &journal.DBStats{Checkpoints: 7}}
	judgeDB(w)
	if len(w.Flags) != 0 {
		t.Fatalf("no checkpoint, flags %v", w.Flags)
	}
	w.DBAfter.Checkpoints = 8
	judgeDB(w)
	if !w.HasFlag(journal.FlagCheckpoint) || !strings.Contains(w.Reasons[0], "1 checkpoint") {
		t.Fatalf("flags %v reasons %v", w.Flags, w.Reasons)
	}
}
