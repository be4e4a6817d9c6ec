package capacity

import (
	"fmt"
	"math"
	"time"

	"github.com/stackbench/stackbench/internal/load"
)

// Config is what a search looks for and how hard it may look. Zero values
// get the defaults noted on each field, except SLO, which is required.
type Config struct {
	// SLO is the latency objective a probe must meet.
	SLO SLO
	// MaxErrorShare is the most a probe's error share (errors other than
	// unfinished, over attempts and unsent) may be (default 0.1 %).
	MaxErrorShare float64
	// MaxUnfinishedShare bounds the share of requests still unanswered
	// when a probe's drain ended (default 0.1 %).
	MaxUnfinishedShare float64
	// MaxUnsentShare bounds the share of requests due and never sent
	// (default 0.1 %).
	MaxUnsentShare float64
	// MaxShortfall is the most by which a probe's throughput may fall
	// short of its offered rate (default 1 %): a server that answers
	// fewer requests than arrive is building a queue, whatever a short
	// probe's percentiles say.
	MaxShortfall float64
	// MaxGeneratorWaitShare is the most the generator's threads may have
	// waited for a CPU, as a share of the probe's window (default 0.5):
	// more, and the generator was starved, so the probe judged it rather
	// than the server. The run's client_starved rule compares the wait
	// with the generator's own CPU time instead; an open loop at a
	// moderate rate uses so little CPU (0.01 CPU-s a second at 200 req/s)
	// that a few milliseconds of wait would exceed it on any busy host.
	MaxGeneratorWaitShare float64
	// IgnoreStarvation skips that check: for a generator that shares its
	// process with the server (tests), whose wait includes the server's.
	IgnoreStarvation bool
	// Also, when set, gives more reasons a judged probe fails, from its
	// load result: a flow's objectives on its steps (each step's latency
	// beside the SLO on the whole flow). None: the probe passes on the
	// checks above alone.
	Also func(res *load.Result) []string

	// StartRPS is a known closed-loop throughput of the target; the climb
	// starts at StartFraction of it. 0: the search measures it with a
	// closed-loop probe first.
	StartRPS float64
	// StartFraction is the share of StartRPS the climb starts at (default
	// 0.5).
	StartFraction float64
	// Growth is the climb's factor from one passing probe to the next
	// (default 2).
	Growth float64
	// Resolution is the bisection's stopping width, as a share of the last
	// passing rate, and the step down after a failed confirmation
	// (default 0.02).
	Resolution float64
	// Confirmations is the number of windows the found rate must pass in a
	// row to be the capacity (default 3).
	Confirmations int
	// Retries is how many times a failed probe is repeated at the same
	// rate before its failure is believed (default 1; -1 for none): a
	// shared host's stall fails a probe the server would pass, and a
	// search believes its first failure at every step.
	Retries int
	// MinRPS is the lowest rate tried (default 1 req/s): a search that
	// fails there finds no capacity.
	MinRPS float64

	// Probe is each probe's measured window (default 2s), Warmup the
	// load at the same rate before it, on the same connections (default
	// 500ms). The warm-up balances the requests in flight at the
	// window's two edges, so throughput compares with the offered rate.
	Probe, Warmup time.Duration
	// Budget bounds the whole search (default 5m): a probe that would end
	// past it is not started, and the search reports its bracket.
	Budget time.Duration

	// Now is the clock the budget is kept with (default time.Now).
	Now func() time.Time
	// OnProbe, when set, is called with each probe as soon as it is
	// judged (never for a Past probe).
	OnProbe func(Probe)

	// Past are the probes an interrupted run of this same search already
	// measured, in order, each with its load result (Probe.WithResult):
	// Search replays them through its decisions instead of measuring them
	// again, counts their wall time against the budget, and goes on from
	// where they stop (see resume.go).
	Past []Probe
}

// Defaults applied by Search to a zero Config field.
const (
	DefaultMaxErrorShare         = 0.001
	DefaultMaxUnfinishedShare    = 0.001
	DefaultMaxUnsentShare        = 0.001
	DefaultMaxShortfall          = 0.01
	DefaultMaxGeneratorWaitShare = 0.5
	DefaultStartFraction         = 0.5
	DefaultGrowth                = 2
	DefaultResolution            = 0.02
	DefaultConfirmations         = 3
	DefaultRetries               = 1
	DefaultMinRPS                = 1
	DefaultProbe                 = 2 * time.Second
	DefaultWarmup                = 500 * time.Millisecond
	DefaultBudget                = 5 * time.Minute
)

// ConfigError is invalid input: Search did not start.
type ConfigError struct {
	Field string
	Msg   string
}

func (e *ConfigError) Error() string { return e.Field + ": " + e.Msg }

func withDefaults(cfg Config) (Config, error) {
	zero := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	zero(&cfg.MaxErrorShare, DefaultMaxErrorShare)
	zero(&cfg.MaxUnfinishedShare, DefaultMaxUnfinishedShare)
	zero(&cfg.MaxUnsentShare, DefaultMaxUnsentShare)
	zero(&cfg.MaxShortfall, DefaultMaxShortfall)
	zero(&cfg.MaxGeneratorWaitShare, DefaultMaxGeneratorWaitShare)
	zero(&cfg.StartFraction, DefaultStartFraction)
	zero(&cfg.Growth, DefaultGrowth)
	zero(&cfg.Resolution, DefaultResolution)
	zero(&cfg.MinRPS, DefaultMinRPS)
	if cfg.Confirmations == 0 {
		cfg.Confirmations = DefaultConfirmations
	}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = DefaultRetries
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	if cfg.Probe == 0 {
		cfg.Probe = DefaultProbe
	}
	if cfg.Warmup == 0 {
		cfg.Warmup = DefaultWarmup
	}
	if cfg.Budget == 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.SLO.LatencyMicros = cfg.SLO.Latency.Microseconds()
	bad := func(field, format string, a ...any) (Config, error) {
		return cfg, &ConfigError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !(cfg.SLO.Percentile > 0 && cfg.SLO.Percentile < 100) || cfg.SLO.Latency <= 0:
		return bad("slo", "want a percentile above 0 and under 100 and a positive latency, e.g. p99=20ms")
	case cfg.MaxErrorShare < 0 || cfg.MaxErrorShare > 1, cfg.MaxUnfinishedShare < 0 || cfg.MaxUnfinishedShare > 1,
		cfg.MaxUnsentShare < 0 || cfg.MaxUnsentShare > 1, cfg.MaxShortfall < 0 || cfg.MaxShortfall >= 1:
		return bad("limits", "shares must lie from 0 to 1")
	case cfg.StartRPS < 0 || !finite(cfg.StartRPS):
		return bad("start-rps", "must be a finite rate, 0 to measure it, got %v", cfg.StartRPS)
	case !(cfg.StartFraction > 0 && cfg.StartFraction <= 1):
		return bad("start-fraction", "must be above 0 and at most 1, got %v", cfg.StartFraction)
	case !(cfg.Growth > 1) || !finite(cfg.Growth):
		return bad("growth", "must be above 1, got %v", cfg.Growth)
	case !(cfg.Resolution > 0 && cfg.Resolution < 0.5):
		return bad("resolution", "must be above 0 and under 50 %%, got %v", cfg.Resolution)
	case cfg.Confirmations < 1:
		return bad("confirm", "want at least 1 confirmation window, got %d", cfg.Confirmations)
	case !(cfg.MinRPS > 0) || !finite(cfg.MinRPS):
		return bad("min-rps", "must be above 0, got %v", cfg.MinRPS)
	case cfg.Probe < 0 || cfg.Warmup < 0 || cfg.Budget < 0:
		return bad("durations", "probe, warm-up and budget must not be negative")
	}
	return cfg, nil
}
