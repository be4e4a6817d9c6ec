package spawn

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/stats"
)

// TestMain makes the test binary double as the measured program: with
// HELPER_SLEEP set it sleeps STACKBENCH_SIZE milliseconds (or its first
// argument), prints metrics (the size, and the sleep as it measured it) and
// exits with HELPER_EXIT.
func TestMain(m *testing.M) {
	if os.Getenv("HELPER_SLEEP") != "" {
		size, _ := strconv.Atoi(os.Getenv(SizeEnv))
		if len(os.Args) > 1 && os.Args[1] != "env" {
			size, _ = strconv.Atoi(os.Args[1])
		}
		t0 := time.Now()
		time.Sleep(time.Duration(size) * time.Millisecond)
		fmt.Printf("some output\n%s slept_ms=%d size=%d slept_us=%d\n", MetricPrefix, size, size, time.Since(t0).Microseconds())
		code, _ := strconv.Atoi(os.Getenv("HELPER_EXIT"))
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func helper(name string, env ...string) Command {
	exe, _ := os.Executable()
	return Command{Name: name, Dir: os.TempDir(), Argv: []string{exe, "{size}"}, Env: append([]string{"HELPER_SLEEP=1"}, env...)}
}

func TestSleepMediansMatch(t *testing.T) {
	exe, _ := os.Executable()
	byEnv := Command{Name: "env", Dir: os.TempDir(), Argv: []string{exe, "env"}, Env: []string{"HELPER_SLEEP=1"}}
	// A busy host can only add time to a sleep and to a process's start,
	// in bursts. Each program reports how long its sleep really took, so
	// what is left of a measured wall — the program's start and exit — must
	// not depend on the size: the suite is right when one of up to three
	// measurements puts every cell's median of it within 4 ms of size 0's,
	// or within twice that overhead's own spread when the host makes it
	// wider. Each miss is logged.
	var res Result
	for attempt := 1; attempt <= 3; attempt++ {
		var err error
		res, err = Run(context.Background(), []Command{helper("arg"), byEnv}, Options{Sizes: []int{0, 20, 60}, Warmup: 1, Rounds: 7})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Cells) != 6 || len(res.Samples) != 42 {
			t.Fatalf("%d cells, %d samples; want 6 and 42", len(res.Cells), len(res.Samples))
		}
		misses := sleepMisses(t, res)
		if len(misses) == 0 {
			break
		}
		for _, m := range misses {
			t.Logf("attempt %d: %s", attempt, m)
		}
		if attempt == 3 {
			t.Errorf("three measurements missed the sleeps by more than 4 ms: %v", misses)
		}
	}
	for _, c := range res.Cells {
		if m := c.Metrics["slept_ms"]; m.Median != float64(c.Size) || m.N != 7 {
			t.Errorf("%s at size %d: metric slept_ms %+v", c.Command, c.Size, m)
		}
	}
	if res.Calls != nil {
		t.Errorf("Run decided calls %+v; analysis.ProcessCalls decides them", res.Calls)
	}
}

// sleepMisses lists the cells whose median overhead (a sample's wall less
// the sleep the program measured) is further from the size-0 cell's than
// 4 ms, or than twice the overheads' robust SD on a busy host (the median
// of 7 moves by about half an SD, a difference of two by two thirds): the
// wall then holds more, or less, than the program's run. A wall shorter
// than the program's own sleep is a miss whatever the host's load.
func sleepMisses(t *testing.T, res Result) []string {
	overheads := map[string][]float64{} // by command and size, in ms
	var out []string
	for _, s := range res.Samples {
		if s.Error != "" {
			t.Fatalf("%s at %d failed: %s", s.Command, s.Size, s.Error)
		}
		slept, ok := s.Metrics["slept_us"]
		if !ok {
			t.Fatalf("%s at %d: no slept_us metric in %v", s.Command, s.Size, s.Metrics)
		}
		over := float64(s.Wall)/1e6 - slept/1e3
		if over < 0 {
			out = append(out, fmt.Sprintf("%s at size %d: wall %v, shorter than the program's own sleep of %.0f µs", s.Command, s.Size, s.Wall, slept))
		}
		key := fmt.Sprintf("%s/%d", s.Command, s.Size)
		overheads[key] = append(overheads[key], over)
	}
	var dev []float64 // each overhead's distance from its own cell's median
	for _, v := range overheads {
		m := median(v)
		for _, x := range v {
			dev = append(dev, math.Abs(x-m))
		}
	}
	tol := max(4, 2*1.4826*median(dev))
	for _, c := range res.Cells {
		got, base := median(overheads[fmt.Sprintf("%s/%d", c.Command, c.Size)]), median(overheads[c.Command+"/0"])
		if math.Abs(got-base) > tol {
			out = append(out, fmt.Sprintf("%s at size %d: median wall %.2f ms, %.2f ms of it not the sleep, against %.2f ms at size 0; want within %.1f ms", c.Command, c.Size, c.Wall.Median/1e6, got, base, tol))
		}
	}
	return out
}

// median is the value of v's median sample (stats.Summarize's, as the
// suite's cells report it); NaN for none.
func median(v []float64) float64 {
	s, err := stats.Summarize(v)
	if err != nil {
		return math.NaN()
	}
	return s.Median
}

func TestRotatedOrder(t *testing.T) {
	res, err := Run(context.Background(), []Command{helper("a"), helper("b"), helper("c")}, Options{Sizes: []int{0}, Rounds: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, s := range res.Samples {
		got += s.Command
	}
	if got != "abcbcacab" {
		t.Errorf("run order %q, want abcbcacab (rotated by one per round)", got)
	}
}

func TestFailingExitFailsTheCell(t *testing.T) {
	res, err := Run(context.Background(), []Command{helper("ok"), helper("bad", "HELPER_EXIT=3")}, Options{Sizes: []int{1}, Rounds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed() {
		t.Fatal("a command exiting with status 3 did not fail the suite")
	}
	for _, c := range res.Cells {
		switch c.Command {
		case "ok":
			if c.Error != "" || c.Wall.N != 3 {
				t.Errorf("ok cell %+v", c)
			}
		case "bad":
			if c.Error == "" || c.Wall.N != 0 {
				t.Errorf("bad cell %+v: want an error and no figures", c)
			}
		}
	}
}

func TestMissingProgramFailsTheCell(t *testing.T) {
	res, err := Run(context.Background(), []Command{{Name: "x", Dir: t.TempDir(), Argv: []string{"bin/none"}}}, Options{Sizes: []int{1}, Rounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed() {
		t.Errorf("cells %+v", res.Cells)
	}
}

func TestParseMetrics(t *testing.T) {
	m, err := ParseMetrics([]byte("hello\n  stackbench-metric: container_ms=1.5 n=1000\nstackbench-metric: heap_bytes=2e6\n"))
	if err != nil || m["container_ms"] != 1.5 || m["n"] != 1000 || m["heap_bytes"] != 2e6 || len(m) != 3 {
		t.Errorf("got %v, %v", m, err)
	}
	for _, bad := range []string{"stackbench-metric: x=abc", "stackbench-metric: x", "stackbench-metric: 1x=2", "stackbench-metric: a=1 a=2", "stackbench-metric: a=NaN"} {
		if _, err := ParseMetrics([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if m, err := ParseMetrics([]byte("nothing here\n")); err != nil || m != nil {
		t.Errorf("no metric lines: %v, %v", m, err)
	}
}
