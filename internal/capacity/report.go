package capacity

import (
	"time"

	"github.com/stackbench/stackbench/internal/hist"
)

// SchemaVersion is the version of Report's JSON form; it changes when a
// key changes meaning or disappears.
const SchemaVersion = 1

// Statuses of a search, as Report.Status names them.
const (
	// StatusConfirmed: the capacity passed its confirmation windows.
	StatusConfirmed = "confirmed"
	// StatusBudget: the budget ran out first; the bracket is what is known.
	StatusBudget = "budget"
	// StatusNoPass: no rate down to the floor met the SLO.
	StatusNoPass = "no_pass"
	// StatusInterrupted: the search was cancelled (Ctrl-C).
	StatusInterrupted = "interrupted"
	// StatusFailed: a probe could not be run.
	StatusFailed = "failed"
)

// Report is a search's outcome and, with its json tags, the versioned
// JSON output of `stackbench capacity -o json`.
type Report struct {
	SchemaVersion int `json:"schema_version"`
	// URL and Method name the target (set by the caller).
	URL    string `json:"url,omitempty"`
	Method string `json:"method,omitempty"`
	SLO    SLO    `json:"slo"`

	MaxErrorShare      float64 `json:"max_error_share"`
	MaxUnfinishedShare float64 `json:"max_unfinished_share"`
	MaxUnsentShare     float64 `json:"max_unsent_share"`
	MaxShortfall       float64 `json:"max_shortfall"`
	// MaxGeneratorWaitShare is the starvation limit, in seconds of CPU
	// wait per second of window.
	MaxGeneratorWaitShare float64 `json:"max_generator_wait_share"`

	Status string `json:"status"`
	// CapacityRPS is the confirmed rate: the highest rate found that met
	// the SLO and every limit in each of its confirmation windows. 0
	// unless Status is confirmed.
	CapacityRPS float64 `json:"capacity_rps"`
	// AtCapacity is measured at CapacityRPS, over its passing
	// confirmation windows merged; absent unless Status is confirmed.
	AtCapacity *Figures `json:"at_capacity,omitempty"`
	// LastPassRPS is the highest rate that passed below every failing
	// rate, FirstFailRPS the lowest that failed (0: none did).
	LastPassRPS  float64 `json:"last_pass_rps"`
	FirstFailRPS float64 `json:"first_fail_rps"`

	// ClosedLoopRPS is the closed-loop throughput the search started
	// from; StartFrom says whether it was "given" or "measured".
	ClosedLoopRPS float64 `json:"closed_loop_rps"`
	StartFrom     string  `json:"start_from"`
	// StartRPS is the first open-loop rate.
	StartRPS       float64 `json:"start_rps"`
	Resolution     float64 `json:"resolution"`
	Confirmations  int     `json:"confirmations"`
	Retries        int     `json:"retries"`
	ProbeSeconds   float64 `json:"probe_s"`
	WarmupSeconds  float64 `json:"warmup_s"`
	BudgetSeconds  float64 `json:"budget_s"`
	ElapsedSeconds float64 `json:"elapsed_s"`
	// IgnoreStarvation is set when the generator's CPU wait was not
	// judged (Config.IgnoreStarvation).
	IgnoreStarvation bool `json:"ignore_starvation,omitempty"`
	// Probes are every probe tried, in order.
	Probes []Probe `json:"probes"`
}

// Figures are a rate's measurements over one or more windows merged.
type Figures struct {
	Windows int `json:"windows"`
	// Overturned counts the failed windows at this rate that a repeat
	// overturned; they are not in these figures.
	Overturned      int         `json:"overturned,omitempty"`
	DurationSeconds float64     `json:"duration_s"`
	ThroughputRPS   float64     `json:"throughput_rps"`
	LatencyMicros   Percentiles `json:"latency_us"`
	ErrorShare      float64     `json:"error_share"`
	UnfinishedShare float64     `json:"unfinished_share"`
	UnsentShare     float64     `json:"unsent_share"`
}

func newReport(cfg Config) *Report {
	return &Report{SchemaVersion: SchemaVersion, SLO: cfg.SLO,
		MaxErrorShare: cfg.MaxErrorShare, MaxUnfinishedShare: cfg.MaxUnfinishedShare,
		MaxUnsentShare: cfg.MaxUnsentShare, MaxShortfall: cfg.MaxShortfall, MaxGeneratorWaitShare: cfg.MaxGeneratorWaitShare,
		Resolution: cfg.Resolution, Confirmations: cfg.Confirmations, Retries: cfg.Retries,
		ProbeSeconds: cfg.Probe.Seconds(), WarmupSeconds: cfg.Warmup.Seconds(), BudgetSeconds: cfg.Budget.Seconds(),
		IgnoreStarvation: cfg.IgnoreStarvation, Probes: []Probe{}}
}

// finish sets the bracket and, for a confirmed search, the capacity and
// its figures over its passing confirmation windows; a failed one that
// its repeat overturned is counted apart (Figures.Overturned), and shown
// among the probes.
func (r *Report) finish(elapsed time.Duration) {
	r.ElapsedSeconds = elapsed.Seconds()
	r.LastPassRPS, r.FirstFailRPS = Bracket(r.Probes)
	if r.Status != StatusConfirmed || len(r.Probes) == 0 {
		return
	}
	r.CapacityRPS = r.Probes[len(r.Probes)-1].RateRPS
	var passed []Probe
	at, overturned := Confirmations(r.Probes)
	for _, i := range at {
		passed = append(passed, r.Probes[i])
	}
	r.AtCapacity = merge(passed, r.SLO)
	r.AtCapacity.Overturned = overturned
}

// Confirmations returns the indices, in order, of a confirmed search's
// passing confirmation windows at its capacity (the last probe's rate),
// and the number of failed ones there that a repeat overturned: the
// windows the figures at capacity, and a report's capacity steps, rest on.
func Confirmations(probes []Probe) (passed []int, overturned int) {
	if len(probes) == 0 {
		return nil, 0
	}
	rate := probes[len(probes)-1].RateRPS
	for i := len(probes) - 1; i >= 0 && probes[i].Phase == PhaseConfirm && probes[i].RateRPS == rate; i-- {
		if probes[i].Pass {
			passed = append([]int{i}, passed...)
		} else {
			overturned++
		}
	}
	return passed, overturned
}

// Bracket is the lowest failing open-loop rate and the highest passing
// one below it (0 when there is none). A failure that a repeat followed
// was not believed, and does not count.
func Bracket(probes []Probe) (lastPass, firstFail float64) {
	for i, p := range probes {
		overturned := i+1 < len(probes) && probes[i+1].Repeat
		if p.Phase != PhaseEstimate && !p.Pass && !overturned && (firstFail == 0 || p.RateRPS < firstFail) {
			firstFail = p.RateRPS
		}
	}
	for _, p := range probes {
		if p.Phase != PhaseEstimate && p.Pass && (firstFail == 0 || p.RateRPS < firstFail) && p.RateRPS > lastPass {
			lastPass = p.RateRPS
		}
	}
	return lastPass, firstFail
}

// merge sums the probes' counts and merges their latency histograms.
func merge(probes []Probe, slo SLO) *Figures {
	f := &Figures{Windows: len(probes)}
	var attempts, unsent, errs, unfinished, successes int64
	var merged *hist.Histogram
	for _, p := range probes {
		res := p.result
		if res == nil {
			continue
		}
		f.DurationSeconds += res.DurationSeconds
		attempts, unsent, successes = attempts+res.Attempts, unsent+res.Unsent, successes+res.Successes
		errs, unfinished = errs+res.ErrorCount(), unfinished+res.Errors["unfinished"]
		h, err := hist.Decode(res.LatencyHist)
		switch {
		case err != nil:
		case merged == nil:
			merged = h
		default:
			merged.Merge(h)
		}
	}
	if f.DurationSeconds > 0 {
		f.ThroughputRPS = float64(successes) / f.DurationSeconds
	}
	f.ErrorShare, f.UnfinishedShare, f.UnsentShare = shares(attempts, unsent, errs, unfinished)
	if merged != nil {
		f.LatencyMicros = percentiles(merged, slo)
	}
	return f
}
