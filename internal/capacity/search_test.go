package capacity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/load"
)

// fakeProber answers each probe from a pure function of the rate and the
// probe's number, and advances a fake clock by the probe's warm-up, window
// and overhead: the search's decisions, tested without a clock or a server.
type fakeProber struct {
	now      time.Time
	overhead time.Duration
	// outcome gives a probe's latency and error share at a rate; n counts
	// open-loop probes from 1.
	outcome func(rate float64, n int) (latency time.Duration, errShare float64)
	closed  float64 // the closed-loop throughput
	rates   []float64
}

func (f *fakeProber) clock() time.Time { return f.now }

func (f *fakeProber) Open(ctx context.Context, rate float64, warmup, window time.Duration) (*load.Result, error) {
	f.rates = append(f.rates, rate)
	f.now = f.now.Add(warmup + window + f.overhead)
	lat, errShare := f.outcome(rate, len(f.rates))
	return fakeResult(rate, window, lat, errShare), nil
}

func (f *fakeProber) Closed(ctx context.Context, warmup, window time.Duration) (*load.Result, error) {
	f.now = f.now.Add(warmup + window + f.overhead)
	return fakeResult(f.closed, window, time.Millisecond, 0), nil
}

// fakeResult is a window at rate: every request answered after latency,
// a share of them failed with a 503.
func fakeResult(rate float64, window time.Duration, latency time.Duration, errShare float64) *load.Result {
	attempts := int64(math.Round(rate * window.Seconds()))
	failed := int64(math.Round(errShare * float64(attempts)))
	h := hist.New(time.Minute)
	for range 200 {
		h.Record(latency)
	}
	enc, _ := h.Encode()
	return &load.Result{Mode: "open", Rate: rate, DurationSeconds: window.Seconds(),
		Attempts: attempts, Successes: attempts - failed, ThroughputRPS: float64(attempts-failed) / window.Seconds(),
		Errors: map[string]int64{"status_503": failed, "unfinished": 0}, LatencyHist: enc}
}

// cliff is a server that meets a 20 ms SLO up to capRPS and misses it
// beyond.
func cliff(capRPS float64) func(float64, int) (time.Duration, float64) {
	return func(rate float64, _ int) (time.Duration, float64) {
		if rate <= capRPS {
			return 5 * time.Millisecond, 0
		}
		return 80 * time.Millisecond, 0
	}
}

var slo20ms = SLO{Percentile: 99, Latency: 20 * time.Millisecond, LatencyMicros: 20000}

func fakeSearch(t *testing.T, cfg Config, f *fakeProber) *Report {
	t.Helper()
	cfg.SLO = slo20ms
	cfg.Now = f.clock
	rep, err := Search(context.Background(), cfg, f)
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	return rep
}

func rateList(rs []float64) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%g", r)
	}
	return strings.Join(parts, " ")
}

// The whole sequence on a 300 req/s cliff from 100: climb ×2 to the first
// fail, bisect to within 2 %, confirm three times.
func TestSearchSequence(t *testing.T) {
	f := &fakeProber{outcome: cliff(300)}
	rep := fakeSearch(t, Config{StartRPS: 200, Retries: -1}, f)
	want := "100 200 400 300 350 325 312.5 306.25 303.125 300 300 300"
	if got := rateList(f.rates); got != want {
		t.Errorf("rates %s\nwant  %s", got, want)
	}
	var phases []string
	for _, p := range rep.Probes {
		phases = append(phases, p.Phase)
	}
	if got := strings.Join(phases, " "); got != "climb climb climb bisect bisect bisect bisect bisect bisect confirm confirm confirm" {
		t.Errorf("phases %s", got)
	}
	if rep.Status != StatusConfirmed || rep.CapacityRPS != 300 || rep.LastPassRPS != 300 || rep.FirstFailRPS != 303.125 {
		t.Errorf("status %s, capacity %v, bracket %v–%v; want confirmed 300, bracket 300–303.125",
			rep.Status, rep.CapacityRPS, rep.LastPassRPS, rep.FirstFailRPS)
	}
	if a := rep.AtCapacity; a == nil || a.Windows != 3 || a.LatencyMicros.P99 < 4900 || a.LatencyMicros.P99 > 5100 || a.ThroughputRPS != 300 {
		t.Errorf("at capacity %+v; want 3 windows at 300 req/s, p99 5 ms", a)
	}
	if rep.StartFrom != "given" || rep.ClosedLoopRPS != 200 || rep.StartRPS != 100 {
		t.Errorf("start %s %v → %v", rep.StartFrom, rep.ClosedLoopRPS, rep.StartRPS)
	}
}

// Wherever the cliff and the start, the capacity found lies within the
// resolution below it, and every probe after the climb lies inside the
// bracket known when it was chosen.
func TestSearchFindsTheCliffWithinTheResolution(t *testing.T) {
	for _, c := range []struct{ cliff, start, res float64 }{
		{800, 800, 0.02}, {800, 100, 0.02}, {800, 5000, 0.02}, {12345, 1000, 0.01}, {3, 1000, 0.05}, {1000, 1000, 0.02},
	} {
		t.Run(fmt.Sprintf("cliff %g from %g", c.cliff, c.start), func(t *testing.T) {
			f := &fakeProber{outcome: cliff(c.cliff)}
			rep := fakeSearch(t, Config{StartRPS: c.start, StartFraction: 1, Resolution: c.res}, f)
			if rep.Status != StatusConfirmed || rep.CapacityRPS > c.cliff || rep.CapacityRPS < c.cliff*(1-c.res) {
				t.Fatalf("status %s, capacity %v; want within %g %% under %g (rates %s)", rep.Status, rep.CapacityRPS, 100*c.res, c.cliff, rateList(f.rates))
			}
			if rep.FirstFailRPS <= rep.LastPassRPS || rep.FirstFailRPS-rep.LastPassRPS > c.res*rep.LastPassRPS {
				t.Errorf("bracket %v–%v wider than the resolution", rep.LastPassRPS, rep.FirstFailRPS)
			}
		})
	}
}

// A confirmation that fails steps down by the resolution and confirms
// again; the failed rate becomes the first fail.
func TestFailedConfirmationStepsDown(t *testing.T) {
	confirmAt := 0
	f := &fakeProber{}
	f.outcome = func(rate float64, n int) (time.Duration, float64) {
		if rate == 300 && n > 10 && confirmAt == 0 { // the second window at 300 fails
			confirmAt = n
			return 30 * time.Millisecond, 0
		}
		return cliff(300)(rate, n)
	}
	rep := fakeSearch(t, Config{StartRPS: 200, Retries: -1}, f)
	want := "100 200 400 300 350 325 312.5 306.25 303.125 300 300 294 294 294"
	if got := rateList(f.rates); got != want {
		t.Errorf("rates %s\nwant  %s", got, want)
	}
	if rep.Status != StatusConfirmed || rep.CapacityRPS != 294 || rep.FirstFailRPS != 300 || rep.LastPassRPS != 294 {
		t.Errorf("status %s, capacity %v, bracket %v–%v; want 294 confirmed, bracket 294–300", rep.Status, rep.CapacityRPS, rep.LastPassRPS, rep.FirstFailRPS)
	}
	if r := rep.Probes[confirmAt-1].Reasons; len(r) != 1 || !strings.Contains(r[0], "p99 30.") {
		t.Errorf("failed confirmation's reasons %q", r)
	}
}

// A first probe that fails makes the search go down by the growth factor
// until one passes; none passing down to the floor is no capacity.
func TestSearchGoesDownWhenTheStartFails(t *testing.T) {
	f := &fakeProber{outcome: cliff(150)}
	rep := fakeSearch(t, Config{StartRPS: 2000, Retries: -1}, f)
	if got := rateList(f.rates[:4]); got != "1000 500 250 125" {
		t.Errorf("first rates %s, want 1000 500 250 125", got)
	}
	if rep.Status != StatusConfirmed || rep.CapacityRPS > 150 || rep.CapacityRPS < 147 {
		t.Errorf("status %s, capacity %v; want about 150", rep.Status, rep.CapacityRPS)
	}

	f = &fakeProber{outcome: func(float64, int) (time.Duration, float64) { return time.Second, 0 }}
	rep = fakeSearch(t, Config{StartRPS: 20, Retries: -1}, f)
	if rep.Status != StatusNoPass || rep.CapacityRPS != 0 || rep.LastPassRPS != 0 || rep.FirstFailRPS != 1.25 {
		t.Errorf("status %s, capacity %v, bracket %v–%v, rates %s; want no_pass after 10 5 2.5 1.25",
			rep.Status, rep.CapacityRPS, rep.LastPassRPS, rep.FirstFailRPS, rateList(f.rates))
	}
}

// Errors beyond the limit stop the climb like latency does.
func TestErrorsStopTheClimb(t *testing.T) {
	f := &fakeProber{outcome: func(rate float64, _ int) (time.Duration, float64) {
		if rate > 500 {
			return 5 * time.Millisecond, 0.01
		}
		return 5 * time.Millisecond, 0
	}}
	rep := fakeSearch(t, Config{StartRPS: 400, StartFraction: 1}, f)
	if rep.Status != StatusConfirmed || rep.CapacityRPS > 500 || rep.CapacityRPS < 490 {
		t.Fatalf("status %s, capacity %v; want about 500", rep.Status, rep.CapacityRPS)
	}
	if r := rep.Probes[1].Reasons; rep.Probes[1].Pass || len(r) != 1 || !strings.HasPrefix(r[0], "errors 1.00 % > 0.10 %") {
		t.Errorf("probe at %v: pass %v, reasons %q", rep.Probes[1].RateRPS, rep.Probes[1].Pass, r)
	}
}

// A search that runs out of budget starts no probe that would end past it
// and reports its bracket.
func TestBudgetEndsTheSearchWithABracket(t *testing.T) {
	f := &fakeProber{outcome: cliff(300), overhead: 100 * time.Millisecond}
	// Each probe takes 0.5 + 2 + 0.1 s: 5 fit in 14 s, a sixth would end at 15.6 s.
	rep := fakeSearch(t, Config{StartRPS: 200, Budget: 14 * time.Second, Retries: -1}, f)
	if rep.Status != StatusBudget || len(rep.Probes) != 5 || rep.CapacityRPS != 0 || rep.AtCapacity != nil {
		t.Fatalf("status %s after %d probes, capacity %v; want budget after 5, no capacity", rep.Status, len(rep.Probes), rep.CapacityRPS)
	}
	if rep.LastPassRPS != 300 || rep.FirstFailRPS != 350 {
		t.Errorf("bracket %v–%v, want 300–350 (rates %s)", rep.LastPassRPS, rep.FirstFailRPS, rateList(f.rates))
	}
	if rep.ElapsedSeconds > 14 {
		t.Errorf("elapsed %.1f s, over the 14 s budget", rep.ElapsedSeconds)
	}
}

// With the default retry, a failure is believed only when its repeat
// fails too: a lone failed window (a stall of the host) is overturned, in
// the climb as in the confirmation, and is counted apart from the figures
// at capacity; a failure that repeats is believed.
func TestAFailureIsBelievedWhenItRepeats(t *testing.T) {
	f := &fakeProber{}
	f.outcome = func(rate float64, n int) (time.Duration, float64) {
		if n == 2 || n == 18 { // the climb's 200, and a confirmation window at 300
			return time.Second, 0
		}
		return cliff(300)(rate, n)
	}
	rep := fakeSearch(t, Config{StartRPS: 200}, f)
	want := "100 200 200 400 400 300 350 350 325 325 312.5 312.5 306.25 306.25 303.125 303.125 300 300 300 300"
	if got := rateList(f.rates); got != want {
		t.Errorf("rates %s\nwant  %s", got, want)
	}
	if rep.Status != StatusConfirmed || rep.CapacityRPS != 300 || rep.LastPassRPS != 300 || rep.FirstFailRPS != 303.125 {
		t.Errorf("status %s, capacity %v, bracket %v–%v; want 300 confirmed, bracket 300–303.125", rep.Status, rep.CapacityRPS, rep.LastPassRPS, rep.FirstFailRPS)
	}
	if a := rep.AtCapacity; a == nil || a.Windows != 3 || a.Overturned != 1 || a.LatencyMicros.Max > 10_000 {
		t.Errorf("at capacity %+v; want the 3 passing confirmation windows, the overturned one counted apart", a)
	}
	if !rep.Probes[2].Repeat || rep.Probes[3].Repeat {
		t.Errorf("repeat marks: probe 3 %v, probe 4 %v; want the repeat of the failed 200 only", rep.Probes[2].Repeat, rep.Probes[3].Repeat)
	}
}

// Without a start rate, a closed-loop probe measures one; it is recorded,
// not judged.
func TestClosedLoopEstimateSetsTheStart(t *testing.T) {
	f := &fakeProber{outcome: cliff(700), closed: 800}
	rep := fakeSearch(t, Config{}, f)
	if rep.StartFrom != "measured" || rep.ClosedLoopRPS != 800 || rep.StartRPS != 400 || f.rates[0] != 400 {
		t.Errorf("start from %s %v → %v, first rate %v; want measured 800 → 400", rep.StartFrom, rep.ClosedLoopRPS, rep.StartRPS, f.rates[0])
	}
	if p := rep.Probes[0]; p.Phase != PhaseEstimate || !p.Pass || p.RateRPS != 0 {
		t.Errorf("first probe %+v; want the unjudged estimate", p)
	}
	if rep.Status != StatusConfirmed || rep.CapacityRPS > 700 || rep.CapacityRPS < 686 {
		t.Errorf("status %s, capacity %v; want about 700", rep.Status, rep.CapacityRPS)
	}
}

// A prober's error stops the search; the probes so far are kept.
func TestProberErrorStopsTheSearch(t *testing.T) {
	f := &errProber{fakeProber: fakeProber{outcome: cliff(300)}, failAt: 3}
	rep, err := Search(context.Background(), Config{SLO: slo20ms, StartRPS: 200, Now: f.clock}, f)
	if err == nil || !strings.Contains(err.Error(), "probe 3") || rep == nil || len(rep.Probes) != 2 || rep.Status != StatusFailed {
		t.Fatalf("err %v, report %+v", err, rep)
	}
}

type errProber struct {
	fakeProber
	failAt int
}

func (e *errProber) Open(ctx context.Context, rate float64, warmup, window time.Duration) (*load.Result, error) {
	if len(e.rates)+1 == e.failAt {
		return nil, errors.New("socket: too many open files")
	}
	return e.fakeProber.Open(ctx, rate, warmup, window)
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		field string
	}{
		{Config{}, "slo"},
		{Config{SLO: slo20ms, Growth: 1}, "growth"},
		{Config{SLO: slo20ms, Resolution: 0.6}, "resolution"},
		{Config{SLO: slo20ms, Confirmations: -1}, "confirm"},
		{Config{SLO: slo20ms, StartRPS: -5}, "start-rps"},
		{Config{SLO: slo20ms, MaxErrorShare: 2}, "limits"},
	} {
		_, err := Search(context.Background(), c.cfg, &fakeProber{})
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field {
			t.Errorf("%+v: err %v, want a ConfigError on %s", c.cfg, err, c.field)
		}
	}
}

// A cancelled search (Ctrl-C) says so and keeps the probes it finished.
func TestCancelledSearchIsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &cancelProber{fakeProber: fakeProber{outcome: cliff(300)}, cancel: cancel, at: 3}
	rep, err := Search(ctx, Config{SLO: slo20ms, StartRPS: 200, Now: f.clock}, f)
	if !errors.Is(err, context.Canceled) || rep == nil || rep.Status != StatusInterrupted || len(rep.Probes) != 2 || rep.LastPassRPS != 200 {
		t.Fatalf("err %v, report %+v; want interrupted with the 2 probes before", err, rep)
	}
}

type cancelProber struct {
	fakeProber
	cancel func()
	at     int
}

func (c *cancelProber) Open(ctx context.Context, rate float64, warmup, window time.Duration) (*load.Result, error) {
	if len(c.rates)+1 == c.at {
		c.cancel()
		return nil, ctx.Err()
	}
	return c.fakeProber.Open(ctx, rate, warmup, window)
}
