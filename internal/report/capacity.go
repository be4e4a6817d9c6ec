package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/cost"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// CapacitySection is the capacity phase's results (a plan with a
// capacity: section): per case, each stack's capacity within the case's
// SLO and the probes that led there; the capacity steps between stacks;
// and the cost model priced at capacity.
type CapacitySection struct {
	Settings CapacitySettings `json:"settings"`
	Cases    []CapacityCase   `json:"cases"`
	Steps    []CapacityStep   `json:"steps"`
	// Cost is the cost model at capacity within the SLO (cost.ModelAtSLO),
	// on the same cases as the saturation-based Model.Cost when it can.
	Cost *CostSection `json:"cost,omitempty"`
}

// CapacitySettings are how the searches were made.
type CapacitySettings struct {
	Resolution    float64 `json:"resolution"`
	Confirmations int     `json:"confirmations"`
	Retries       int     `json:"retries"`
	ProbeSeconds  float64 `json:"probe_s"`
	WarmupSeconds float64 `json:"warmup_s"`
	BudgetSeconds float64 `json:"budget_s"`
	Connections   int     `json:"connections"`
	MaxErrorShare float64 `json:"max_error_share"`
}

// CapacityCase is one case's searches, one row per stack in step order.
type CapacityCase struct {
	Case      string        `json:"case"`
	Database  bool          `json:"database"`
	SLO       string        `json:"slo"`
	SLOName   string        `json:"slo_percentile_name"`
	SLOMicros int64         `json:"slo_us"`
	Rows      []CapacityRow `json:"rows"`
}

// The states of a capacity row besides the search's own statuses
// (capacity.StatusConfirmed, StatusBudget, StatusNoPass, StatusFailed).
const (
	// CapacityStopped: probes were journaled but the search has no end
	// (the run was stopped in it).
	CapacityStopped = "stopped"
	// CapacityMissing: planned, not started.
	CapacityMissing = "missing"
)

// CapacityRow is one stack's search on one case.
type CapacityRow struct {
	Stack string `json:"stack"`
	// Status is the search's (confirmed, budget, no_pass, failed), or
	// CapacityStopped / CapacityMissing.
	Status string `json:"status"`
	// Error says why a failed search stopped.
	Error string `json:"error,omitempty"`
	// CapacityRPS is the confirmed rate (0 unless confirmed); LastPassRPS
	// and FirstFailRPS are the bracket (0: none).
	CapacityRPS  float64 `json:"capacity_rps"`
	LastPassRPS  float64 `json:"last_pass_rps"`
	FirstFailRPS float64 `json:"first_fail_rps"`
	// AtCapacity are the latency and shares over the passing confirmation
	// windows merged (nil unless confirmed).
	AtCapacity *capacity.Figures `json:"at_capacity,omitempty"`
	// ServerCores, RSSMeanBytes and CPUMicrosPerRequest are the means over
	// those windows, RSSPeakBytes their highest; ConfirmRPS are their
	// achieved throughputs, the capacity step's data.
	ServerCores         float64   `json:"server_cores"`
	RSSMeanBytes        int64     `json:"rss_mean_bytes"`
	RSSPeakBytes        int64     `json:"rss_peak_bytes"`
	CPUMicrosPerRequest float64   `json:"cpu_us_per_request"`
	ConfirmRPS          []float64 `json:"confirm_rps,omitempty"`
	// ClosedLoopRPS is the closed-loop throughput the search started from.
	ClosedLoopRPS  float64 `json:"closed_loop_rps"`
	ElapsedSeconds float64 `json:"elapsed_s"`
	// Probes are every probe's point, in order, for the chart.
	Probes []CapacityPoint `json:"probes"`
}

// CapacityPoint is one probe: the offered rate and the latency it got.
type CapacityPoint struct {
	Phase         string  `json:"phase"`
	RateRPS       float64 `json:"rate_rps"`
	ThroughputRPS float64 `json:"throughput_rps"`
	P50Micros     int64   `json:"p50_us"`
	P99Micros     int64   `json:"p99_us"`
	SLOMicros     int64   `json:"slo_percentile_us"`
	Pass          bool    `json:"pass"`
}

// CapacityStep is a stack's capacity against its from: stack's, on one
// case. Capacity is the call on the ratio (see capacityChange).
type CapacityStep struct {
	Kind     string `json:"kind"`
	From     string `json:"from"`
	To       string `json:"to"`
	Case     string `json:"case"`
	Database bool   `json:"database"`
	Capacity Change `json:"capacity"`
}

// addCapacity builds the capacity section from the journal's capacity
// records; a plan without a capacity phase has none. A search that did
// not end makes the run's state stopped. The capacity steps are called
// once, after every search: at opt's α, not at an adaptive run's per-look
// share of it (Header.Alpha), which is for the throughput steps' looks.
func addCapacity(m *Model, res *journal.Results, opt BuildOptions) error {
	pc := res.Plan.Plan.Capacity
	if pc == nil {
		return nil
	}
	cs := &CapacitySection{Settings: CapacitySettings{Resolution: pc.Resolution, Confirmations: pc.Confirmations, Retries: pc.Retries,
		ProbeSeconds: pc.Probe.Seconds(), WarmupSeconds: pc.Warmup.Seconds(), BudgetSeconds: pc.Budget.Seconds(),
		Connections: pc.Connections, MaxErrorShare: pc.MaxErrorShare}}
	db := map[string]bool{}
	for _, ci := range m.Header.Cases {
		db[ci.Name] = ci.Database
	}
	unended := 0
	defer func() {
		if unended > 0 {
			m.Header.State = "stopped"
			m.Header.Warnings = append(m.Header.Warnings, fmt.Sprintf(
				"the capacity phase is incomplete: %d of %d searches did not end; continue them with stackbench run --resume", unended, len(pc.Cases)*len(m.Header.Stacks)))
		}
	}()
	for _, cc := range pc.Cases {
		slo := cc.ParsedSLO()
		c := CapacityCase{Case: cc.Case, Database: db[cc.Case], SLO: cc.SLO, SLOName: slo.Name(), SLOMicros: slo.Latency.Microseconds()}
		for _, stack := range m.Header.Stacks {
			row := capacityRow(res, stack, cc)
			if row.Status == CapacityStopped || row.Status == CapacityMissing {
				unended++
			}
			c.Rows = append(c.Rows, row)
		}
		cs.Cases = append(cs.Cases, c)
		for _, p := range analysis.StepPairs(m.Header.Stacks, m.Header.StepFrom) {
			from, to := c.row(p.From), c.row(p.To)
			cs.Steps = append(cs.Steps, CapacityStep{Kind: p.Kind, From: p.From, To: p.To, Case: c.Case, Database: c.Database,
				Capacity: capacityChange(from, to, m.processSpread(p.From, c.Case), m.processSpread(p.To, c.Case), m.Header.MinEffect, opt.Alpha)})
		}
	}
	m.Capacity = cs
	if opt.Pricing == nil {
		return nil
	}
	return addCapacityCost(m, *opt.Pricing, opt.Cost)
}

func (c CapacityCase) row(stack string) CapacityRow {
	for _, r := range c.Rows {
		if r.Stack == stack {
			return r
		}
	}
	return CapacityRow{Stack: stack, Status: CapacityMissing}
}

// capacityRow reads one search from its records.
func capacityRow(res *journal.Results, stack string, cc plan.CapacityCase) CapacityRow {
	key := journal.CapacityKey(stack, cc.Case)
	recs := res.CapacityProbes(key)
	row := CapacityRow{Stack: stack, Status: CapacityMissing, Probes: []CapacityPoint{}}
	probes := make([]capacity.Probe, len(recs))
	for i, r := range recs {
		probes[i] = r.Probe
		row.ClosedLoopRPS = r.ClosedLoopRPS
		row.ElapsedSeconds += r.Probe.WallSeconds
		if r.Probe.Phase == capacity.PhaseEstimate {
			row.ClosedLoopRPS = r.Probe.ThroughputRPS
			continue
		}
		row.Probes = append(row.Probes, CapacityPoint{Phase: r.Probe.Phase, RateRPS: r.Probe.RateRPS, ThroughputRPS: r.Probe.ThroughputRPS,
			P50Micros: r.Probe.LatencyMicros.P50, P99Micros: r.Probe.LatencyMicros.P99, SLOMicros: r.Probe.LatencyMicros.SLO, Pass: r.Probe.Pass})
	}
	if len(recs) > 0 {
		row.Status = CapacityStopped
	}
	row.LastPassRPS, row.FirstFailRPS = capacity.Bracket(probes)
	end, ended := res.CapacitySearch(key)
	if !ended {
		return row
	}
	rep := end.Report
	row.Status, row.Error = rep.Status, end.Error
	row.LastPassRPS, row.FirstFailRPS = rep.LastPassRPS, rep.FirstFailRPS
	row.ElapsedSeconds = rep.ElapsedSeconds
	if rep.Status != capacity.StatusConfirmed {
		return row
	}
	row.CapacityRPS, row.AtCapacity = rep.CapacityRPS, rep.AtCapacity
	at, _ := capacity.Confirmations(probes)
	var cpu, rssMean float64
	var served float64
	for _, i := range at {
		w := recs[i].Window
		row.ServerCores += w.Server.Cores
		rssMean += float64(w.Server.RSSMeanBytes)
		row.RSSPeakBytes = max(row.RSSPeakBytes, w.Server.RSSPeakBytes)
		cpu += w.Server.CPUSeconds
		if w.Load != nil {
			served += float64(w.Load.Successes)
			row.ConfirmRPS = append(row.ConfirmRPS, w.Load.ThroughputRPS)
		}
	}
	if n := float64(len(at)); n > 0 {
		row.ServerCores /= n
		row.RSSMeanBytes = int64(math.Round(rssMean / n))
	}
	if served > 0 {
		row.CPUMicrosPerRequest = 1e6 * cpu / served
	}
	return row
}

// processSpread is how much a fresh process of the stack varies on this
// host in the case: the largest robust CV of throughput among its valid
// closed-loop cells of the case (each window a fresh process's), or -1
// when none has one (fewer than 3 counted windows).
func (m *Model) processSpread(stack, cas string) float64 {
	cv := -1.0
	for _, c := range m.Cells {
		if c.Stack == stack && c.Case == cas && c.State == CellValid && c.Counted >= 3 {
			cv = max(cv, c.ThroughputCV)
		}
	}
	return cv
}

// capacityChange calls a capacity step. The data are each side's passing
// confirmation windows at its capacity: their achieved throughputs give
// the Hodges–Lehmann shift and its interval (stats.HodgesLehmann), as the
// throughput steps' windows do; the interval is then widened by both
// searches' brackets (stats.Shift.Bracketed), since a search only knows
// its capacity to within the bracket between the confirmed rate and the
// lowest rate that failed above it, and by the spread between processes
// (stats.ProcessMargin of the two stacks' closed-loop cells' robust CVs,
// fromCV and toCV), since each search is one process's and another
// process would have found another capacity. The widened shift is called
// with stats.CallOf against the run's minimum effect. Without a known
// spread (a CV below 0) the step stays undecided (docs/capacity.md).
func capacityChange(from, to CapacityRow, fromCV, toCV, minEffect, alpha float64) Change {
	c := Change{Call: stats.CallInvalid, FromWindows: len(from.ConfirmRPS), ToWindows: len(to.ConfirmRPS)}
	for _, r := range []CapacityRow{from, to} {
		if r.Status != capacity.StatusConfirmed {
			c.Reason = fmt.Sprintf("%s has no confirmed capacity (%s)", r.Stack, r.Status)
			return c
		}
	}
	s, err := stats.HodgesLehmann(from.ConfirmRPS, to.ConfirmRPS, alpha)
	if err != nil {
		c.Reason = err.Error()
		return c
	}
	s = s.Bracketed(from.CapacityRPS, from.FirstFailRPS, to.CapacityRPS, to.FirstFailRPS)
	spreadKnown := fromCV >= 0 && toCV >= 0
	if spreadKnown {
		s = s.Widened(stats.ProcessMargin(fromCV, toCV, alpha))
	}
	c.Call, c.EstimatePct = stats.CallOf(s, minEffect), 100*s.Estimate
	if !spreadKnown {
		c.Call = stats.CallUndecided
	}
	if s.Bounded {
		lo, hi := 100*s.Lo, 100*s.Hi
		c.CILowPct, c.CIHighPct, c.Confidence = &lo, &hi, s.Confidence
	}
	brackets := fmt.Sprintf("widened by the brackets (%s %.1f–%.1f, %s %.1f–%.1f req/s) and by the spread between processes (closed-loop robust CV %.1f %% and %.1f %%)",
		from.Stack, from.CapacityRPS, from.FirstFailRPS, to.Stack, to.CapacityRPS, to.FirstFailRPS, 100*fromCV, 100*toCV)
	switch {
	case !spreadKnown:
		c.Reason = "one search a side is one process's, and the closed-loop cells have too few windows to say how much another process would differ: no call rests on it"
	case c.Call == stats.CallGain || c.Call == stats.CallLoss:
		c.Reason = fmt.Sprintf("the %.0f %% interval of the confirmation windows, %s, excludes 0 and the estimate reaches the minimum effect of %g %%", 100*s.Confidence, brackets, 100*minEffect)
	case c.Call == stats.CallSame:
		c.Reason = fmt.Sprintf("the %.0f %% interval of the confirmation windows, %s, lies within ±%g %%", 100*s.Confidence, brackets, 100*minEffect)
	case !s.Bounded && (from.FirstFailRPS <= from.CapacityRPS || to.FirstFailRPS <= to.CapacityRPS):
		c.Reason = "a search found no failing rate above its capacity, so its capacity has no upper bound"
	case !s.Bounded:
		c.Reason = fmt.Sprintf("too few confirmation windows (%d and %d) for any finite interval at α=%g: raise confirm", s.N1, s.N2, alpha)
	default:
		c.Reason = fmt.Sprintf("the %.0f %% interval of the confirmation windows, %s, reaches past ±%g %% and is not clear of 0 there", 100*s.Confidence, brackets, 100*minEffect)
	}
	return c
}

// addCapacityCost prices each stack at its capacity within the SLO, on
// the cases the saturation model uses (the database routes, else every
// route) that were searched; without one of them searched, on every
// searched case.
func addCapacityCost(m *Model, pricing cost.Pricing, opt cost.Options) error {
	cs := m.Capacity
	var cases []string
	if m.Cost != nil {
		for _, c := range m.Cost.Cases {
			if slices.ContainsFunc(cs.Cases, func(cc CapacityCase) bool { return cc.Case == c }) {
				cases = append(cases, c)
			}
		}
	}
	if len(cases) == 0 {
		for _, cc := range cs.Cases {
			cases = append(cases, cc.Case)
		}
	}
	measures := map[string][]cost.SLOMeasure{}
	for _, cc := range cs.Cases {
		if !slices.Contains(cases, cc.Case) {
			continue
		}
		for _, r := range cc.Rows {
			measures[r.Stack] = append(measures[r.Stack], cost.SLOMeasure{Case: cc.Case, Confirmed: r.Status == capacity.StatusConfirmed,
				CapacityRPS: r.CapacityRPS, Cores: r.ServerCores, PeakRSSBytes: float64(r.RSSPeakBytes)})
		}
	}
	t, err := cost.ModelAtSLO(m.Header.Stacks, measures, pricing, opt)
	if err != nil {
		return fmt.Errorf("cost model at the SLO: %w", err)
	}
	cs.Cost = costSection(t, 0, cases)
	return nil
}
