package capacity

import (
	"fmt"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/load"
)

// Phases of a search, as Probe.Phase names them.
const (
	// PhaseEstimate is the closed-loop probe that measures a start rate.
	PhaseEstimate = "estimate"
	// PhaseClimb grows the rate geometrically while probes pass (or
	// shrinks it while they fail, when the first one failed).
	PhaseClimb = "climb"
	// PhaseBisect halves the bracket between the last pass and the
	// first fail.
	PhaseBisect = "bisect"
	// PhaseConfirm repeats the rate found.
	PhaseConfirm = "confirm"
)

// Probe is one load window of a search and its verdict.
type Probe struct {
	// Index counts the search's probes from 1.
	Index int    `json:"index"`
	Phase string `json:"phase"`
	// Repeat is set on a probe that repeats a failed one at the same rate.
	Repeat bool `json:"repeat,omitempty"`
	// RateRPS is the offered rate (open loop); 0 for the closed-loop
	// estimate.
	RateRPS         float64 `json:"rate_rps"`
	DurationSeconds float64 `json:"duration_s"`
	ThroughputRPS   float64 `json:"throughput_rps"`
	Attempts        int64   `json:"attempts"`
	Successes       int64   `json:"successes"`
	// LatencyMicros is the corrected latency of successes.
	LatencyMicros Percentiles `json:"latency_us"`
	// ErrorShare counts every error but unfinished; it, UnfinishedShare
	// and UnsentShare are over attempts and unsent requests.
	ErrorShare      float64 `json:"error_share"`
	UnfinishedShare float64 `json:"unfinished_share"`
	UnsentShare     float64 `json:"unsent_share"`
	// Errors is the load result's error split ("status_503 12, timeout 3").
	Errors               string  `json:"errors"`
	GeneratorCPUSeconds  float64 `json:"generator_cpu_s"`
	GeneratorWaitSeconds float64 `json:"generator_wait_s"`
	ClientBound          bool    `json:"client_bound"`
	// Pass is the verdict; Reasons say why a probe failed (the estimate
	// is not judged, and passes).
	Pass    bool     `json:"pass"`
	Reasons []string `json:"reasons,omitempty"`
	// WallSeconds is the probe's whole time: warm-up, window and drain.
	WallSeconds float64 `json:"wall_s"`

	result *load.Result
}

// Percentiles are latency figures in microseconds; SLO is the SLO's own
// percentile.
type Percentiles struct {
	P50  int64 `json:"p50"`
	P99  int64 `json:"p99"`
	P999 int64 `json:"p999"`
	SLO  int64 `json:"slo_percentile"`
	Max  int64 `json:"max"`
}

// Result is the load engine's result behind the probe.
func (p *Probe) Result() *load.Result { return p.result }

// newProbe reads a load result's figures; the latency is read off its
// histogram so that any percentile can be the SLO's.
func newProbe(res *load.Result, phase string, rate float64, slo SLO) Probe {
	p := Probe{Phase: phase, RateRPS: rate, result: res,
		DurationSeconds: res.DurationSeconds, ThroughputRPS: res.ThroughputRPS,
		Attempts: res.Attempts, Successes: res.Successes, Errors: load.ErrorSplit(res.Errors),
		GeneratorCPUSeconds: res.GeneratorCPUSeconds, GeneratorWaitSeconds: res.GeneratorWaitSeconds,
		ClientBound: res.ClientBound,
	}
	p.ErrorShare, p.UnfinishedShare, p.UnsentShare = shares(res.Attempts, res.Unsent, res.ErrorCount(), res.Errors["unfinished"])
	if h, err := hist.Decode(res.LatencyHist); err == nil {
		p.LatencyMicros = percentiles(h, slo)
	} else {
		p.LatencyMicros = Percentiles{P50: res.LatencyMicros.P50, P99: res.LatencyMicros.P99,
			P999: res.LatencyMicros.P999, Max: res.LatencyMicros.Max, SLO: res.LatencyMicros.Max}
	}
	return p
}

// shares are the error (unfinished aside), unfinished and unsent shares
// of a window's requests (attempts and unsent).
func shares(attempts, unsent, errors, unfinished int64) (errShare, unfinishedShare, unsentShare float64) {
	total := float64(attempts + unsent)
	if total == 0 {
		return 0, 0, 0
	}
	return float64(errors-unfinished) / total, float64(unfinished) / total, float64(unsent) / total
}

func percentiles(h *hist.Histogram, slo SLO) Percentiles {
	return Percentiles{P50: h.PercentileMicros(50), P99: h.PercentileMicros(99), P999: h.PercentileMicros(99.9),
		SLO: h.PercentileMicros(slo.Percentile), Max: h.MaxMicros()}
}

// judge sets p's verdict: it passes only when the SLO's percentile is
// within the SLO, errors, unfinished and unsent requests are within
// their limits, the throughput kept up with the offered rate, and the
// generator was neither client-bound nor starved.
func judge(p *Probe, cfg Config) {
	var why []string
	add := func(format string, a ...any) { why = append(why, fmt.Sprintf(format, a...)) }
	if p.Successes == 0 {
		add("no request succeeded (%s)", p.Errors)
	} else if l := p.LatencyMicros.SLO; l > cfg.SLO.Latency.Microseconds() {
		add("%s %s > %s", cfg.SLO.Name(), fmtMicros(l), cfg.SLO.Latency)
	}
	if p.ErrorShare > cfg.MaxErrorShare {
		add("errors %s > %s (%s)", pct(p.ErrorShare), pct(cfg.MaxErrorShare), p.Errors)
	}
	if p.UnfinishedShare > cfg.MaxUnfinishedShare {
		add("unfinished %s > %s", pct(p.UnfinishedShare), pct(cfg.MaxUnfinishedShare))
	}
	if p.UnsentShare > cfg.MaxUnsentShare {
		add("unsent %s > %s (no free connection: the server fell behind, or raise -c)", pct(p.UnsentShare), pct(cfg.MaxUnsentShare))
	}
	if p.Successes > 0 && shortfall(p) > cfg.MaxShortfall*p.RateRPS*p.DurationSeconds+shortfallSlack {
		add("served %.1f of %.1f req/s offered (short by more than %s: a queue is growing)",
			p.ThroughputRPS, p.RateRPS, pct(cfg.MaxShortfall))
	}
	if p.ClientBound {
		add("client-bound: the generator used %.2f CPU-s in %.2f s", p.GeneratorCPUSeconds, p.DurationSeconds)
	}
	if !cfg.IgnoreStarvation && p.GeneratorWaitSeconds > cfg.MaxGeneratorWaitShare*p.DurationSeconds {
		add("generator starved: it waited %.2f s for a CPU in a %.2f s window", p.GeneratorWaitSeconds, p.DurationSeconds)
	}
	if cfg.Also != nil && p.result != nil {
		why = append(why, cfg.Also(p.result)...)
	}
	p.Pass, p.Reasons = len(why) == 0, why
}

// shortfallSlack is the number of requests a window may fall short of
// its rate besides MaxShortfall: a window's count is whole, its rate ×
// duration is not.
const shortfallSlack = 1

// shortfall is the number of requests the window's successes fell short
// of its offered rate by.
func shortfall(p *Probe) float64 {
	return (p.RateRPS - p.ThroughputRPS) * p.DurationSeconds
}

func pct(share float64) string { return fmt.Sprintf("%.2f %%", 100*share) }

// fmtMicros formats microseconds with a readable unit.
func fmtMicros(v int64) string {
	d := time.Duration(v) * time.Microsecond
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", v)
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(v)/1e3)
	}
	return fmt.Sprintf("%.2fs", float64(v)/1e6)
}
