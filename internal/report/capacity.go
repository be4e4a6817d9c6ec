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
	// Searches is how many times each stack × case was to be searched.
	Searches int `json:"searches"`
}

// CapacityCase is one case's searches, one row per stack in step order.
type CapacityCase struct {
	Case      string        `json:"case"`
	Database  bool          `json:"database"`
	SLO       string        `json:"slo"`
	SLOName   string        `json:"slo_percentile_name"`
	SLOMicros int64         `json:"slo_us"`
	Rows      []CapacityRow `json:"rows"`
	// PerFlow is set for a flow case: its searches offered flows, so
	// every rate of its rows is in flows per second (capacity_rps and the
	// others hold flows/s), its SLO is on the whole flow's latency, and
	// CPUMicrosPerRequest is per completed flow. StepSLOs are its steps'
	// objectives, judged besides.
	PerFlow  bool           `json:"per_flow,omitempty"`
	StepSLOs []plan.StepSLO `json:"step_slos,omitempty"`
}

// The states of a capacity search (and row) besides the search's own
// statuses (capacity.StatusConfirmed, StatusBudget, StatusNoPass,
// StatusFailed).
const (
	// CapacityStopped: probes were journaled but the search has no end
	// (the run was stopped in it).
	CapacityStopped = "stopped"
	// CapacityMissing: planned, not started.
	CapacityMissing = "missing"
)

// CapacityRow is one stack's searches on one case.
type CapacityRow struct {
	Stack string `json:"stack"`
	// Status is confirmed when at least one search confirmed a capacity;
	// otherwise stopped when one was stopped, missing when none started,
	// else the first search's status (budget, no_pass, failed).
	Status string `json:"status"`
	// Error says why a failed search stopped (the row's status failed).
	Error string `json:"error,omitempty"`
	// Searches is the number of searches planned, Confirmed the number
	// that confirmed a capacity: the figure rests on those.
	Searches  int `json:"searches"`
	Confirmed int `json:"confirmed_searches"`
	// CapacityRPS is the median of SearchCapacitiesRPS (the lower middle
	// one for an even count, as for windows), 0 unless a search
	// confirmed. SearchCapacitiesRPS are the confirmed searches'
	// capacities, each the middle of its bracket (MidpointRPS), in search
	// order: a capacity step's data.
	CapacityRPS         float64   `json:"capacity_rps"`
	SearchCapacitiesRPS []float64 `json:"search_capacities_rps,omitempty"`
	// MedianSearch is the index of the search whose capacity is the
	// median: the figures at capacity and the bracket below are its own.
	MedianSearch int `json:"median_search,omitempty"`
	// LastPassRPS and FirstFailRPS are the median search's bracket (the
	// first search's when none confirmed; 0: none).
	LastPassRPS  float64 `json:"last_pass_rps"`
	FirstFailRPS float64 `json:"first_fail_rps"`
	// AtCapacity are the median search's latency and shares over its
	// passing confirmation windows merged (nil unless confirmed).
	AtCapacity *capacity.Figures `json:"at_capacity,omitempty"`
	// ServerCores, RSSMeanBytes and CPUMicrosPerRequest are the means over
	// those windows, RSSPeakBytes their highest.
	ServerCores         float64 `json:"server_cores"`
	RSSMeanBytes        int64   `json:"rss_mean_bytes"`
	RSSPeakBytes        int64   `json:"rss_peak_bytes"`
	CPUMicrosPerRequest float64 `json:"cpu_us_per_request"`
	// ClosedLoopRPS is the closed-loop throughput the searches started
	// from: the cell's median in the run, or, when no window of the cell
	// counted, what the median search (else the first) measured with its
	// estimate probe. ElapsedSeconds is the searches' time together.
	ClosedLoopRPS  float64 `json:"closed_loop_rps"`
	ElapsedSeconds float64 `json:"elapsed_s"`
	// SearchResults are the searches one by one, in index order.
	SearchResults []CapacitySearchRow `json:"search_results"`
	// Probes are every search's probes, search by search, for the chart.
	Probes []CapacityPoint `json:"probes"`
}

// CapacitySearchRow is one search of a stack × case.
type CapacitySearchRow struct {
	// Index numbers the searches of the stack × case from 1.
	Index  int    `json:"index"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// CapacityRPS is the confirmed rate (0 unless confirmed); LastPassRPS
	// and FirstFailRPS the bracket (0: none).
	CapacityRPS  float64 `json:"capacity_rps"`
	LastPassRPS  float64 `json:"last_pass_rps"`
	FirstFailRPS float64 `json:"first_fail_rps"`
	// MidpointRPS is the search's capacity as the row and the steps take
	// it: the middle of its bracket [CapacityRPS, FirstFailRPS), where the
	// rate the server sustains lies; the confirmed rate when no rate above
	// it failed. 0 unless confirmed.
	MidpointRPS    float64 `json:"midpoint_rps"`
	Probes         int     `json:"probes"`
	ElapsedSeconds float64 `json:"elapsed_s"`
}

// CapacityPoint is one probe: the offered rate and the latency it got.
type CapacityPoint struct {
	// Search is the index of the probe's search.
	Search        int     `json:"search"`
	Phase         string  `json:"phase"`
	RateRPS       float64 `json:"rate_rps"`
	ThroughputRPS float64 `json:"throughput_rps"`
	P50Micros     int64   `json:"p50_us"`
	P99Micros     int64   `json:"p99_us"`
	SLOMicros     int64   `json:"slo_percentile_us"`
	Pass          bool    `json:"pass"`
}

// CapacityStep is a stack's capacity against its from: stack's, on one
// case. Capacity is the call on the ratio (see capacityChange); its
// from_windows and to_windows count the searches it rests on.
type CapacityStep struct {
	Kind     string          `json:"kind"`
	From     string          `json:"from"`
	To       string          `json:"to"`
	Case     string          `json:"case"`
	Database bool            `json:"database"`
	Capacity analysis.Change `json:"capacity"`
}

// CapacityAlpha is the α a run's capacity steps are called at unless a
// report is built with another (BuildOptions.Alpha).
const CapacityAlpha = stats.DefaultAlpha

// addCapacity builds the capacity section from the journal's capacity
// records; a plan without a capacity phase has none. A search that did
// not end makes the run's state stopped. The capacity steps are called
// once, after every search: at opt's α, not at an adaptive run's per-look
// share of it (Header.Alpha), which is for the throughput steps' looks.
func addCapacity(m *Model, res *journal.Results, opt BuildOptions) error {
	pc := res.RunPlan().Capacity
	if pc == nil {
		return nil
	}
	n := pc.SearchCount()
	cs := &CapacitySection{Settings: CapacitySettings{Resolution: pc.Resolution, Confirmations: pc.Confirmations, Retries: pc.Retries,
		ProbeSeconds: pc.Probe.Seconds(), WarmupSeconds: pc.Warmup.Seconds(), BudgetSeconds: pc.Budget.Seconds(),
		Connections: pc.Connections, MaxErrorShare: pc.MaxErrorShare, Searches: n}}
	db := map[string]bool{}
	for _, ci := range m.Header.Cases {
		db[ci.Name] = ci.Database
	}
	unended := 0
	defer func() {
		if unended > 0 {
			m.Header.State = "stopped"
			m.Header.Warnings = append(m.Header.Warnings, fmt.Sprintf(
				"the capacity phase is incomplete: %d of %d searches did not end; continue them with stackbench run --resume", unended, n*len(pc.Cases)*len(m.Header.Stacks)))
		}
	}()
	for _, cc := range pc.Cases {
		slo := cc.ParsedSLO()
		c := CapacityCase{Case: cc.Case, Database: db[cc.Case], SLO: cc.SLO, SLOName: slo.Name(), SLOMicros: slo.Latency.Microseconds(),
			PerFlow: capacityFlow(res, cc), StepSLOs: cc.Steps}
		for _, stack := range m.Header.Stacks {
			row := capacityRow(res, stack, cc, n)
			for _, s := range row.SearchResults {
				if s.Status == CapacityStopped || s.Status == CapacityMissing {
					unended++
				}
			}
			c.Rows = append(c.Rows, row)
		}
		cs.Cases = append(cs.Cases, c)
	}
	cs.Steps = capacitySteps(cs.Cases, analysis.StepPairs(m.Header.Stacks, m.Header.StepFrom), stats.Family(m.Header.Family), m.Header.MinEffect, opt.Alpha)
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

// capacityRow reads one stack's n searches of a case and sums them up:
// the capacity is the median of the confirmed searches' bracket
// midpoints, the figures beside it the median search's.
func capacityRow(res *journal.Results, stack string, cc plan.CapacityCase, n int) CapacityRow {
	row := CapacityRow{Stack: stack, Searches: n, Probes: []CapacityPoint{}}
	var figures []searchFigures
	for i := 1; i <= n; i++ {
		sr, f := capacitySearchRow(res, stack, cc, i)
		row.SearchResults = append(row.SearchResults, sr)
		row.Probes = append(row.Probes, f.probes...)
		row.ElapsedSeconds += sr.ElapsedSeconds
		if row.ClosedLoopRPS == 0 {
			row.ClosedLoopRPS = f.closedLoopRPS // the first search's start
		}
		if sr.Status == capacity.StatusConfirmed {
			row.SearchCapacitiesRPS = append(row.SearchCapacitiesRPS, sr.MidpointRPS)
			figures = append(figures, f)
		}
	}
	row.Confirmed = len(row.SearchCapacitiesRPS)
	if row.Confirmed > 0 {
		sum, _ := stats.Summarize(row.SearchCapacitiesRPS) // midpoints are positive and finite
		f := figures[sum.MedianIndex]
		row.Status, row.CapacityRPS, row.MedianSearch = capacity.StatusConfirmed, sum.Median, f.search.Index
		if f.closedLoopRPS > 0 {
			row.ClosedLoopRPS = f.closedLoopRPS
		}
		row.LastPassRPS, row.FirstFailRPS = f.search.LastPassRPS, f.search.FirstFailRPS
		row.AtCapacity, row.ServerCores, row.RSSMeanBytes, row.RSSPeakBytes, row.CPUMicrosPerRequest =
			f.atCapacity, f.serverCores, f.rssMeanBytes, f.rssPeakBytes, f.cpuMicrosPerRequest
		return row
	}
	first := row.SearchResults[0]
	row.Status, row.Error, row.LastPassRPS, row.FirstFailRPS = first.Status, first.Error, first.LastPassRPS, first.FirstFailRPS
	for _, s := range row.SearchResults {
		if s.Status == CapacityStopped {
			row.Status, row.Error = CapacityStopped, ""
			break
		}
		if row.Status == CapacityMissing && s.Status != CapacityMissing {
			row.Status, row.Error, row.LastPassRPS, row.FirstFailRPS = s.Status, s.Error, s.LastPassRPS, s.FirstFailRPS
		}
	}
	return row
}

// searchFigures are one search's figures at its capacity.
type searchFigures struct {
	search              CapacitySearchRow
	closedLoopRPS       float64
	atCapacity          *capacity.Figures
	serverCores         float64
	rssMeanBytes        int64
	rssPeakBytes        int64
	cpuMicrosPerRequest float64
	probes              []CapacityPoint
}

// capacitySearchRow reads one search from its records.
func capacitySearchRow(res *journal.Results, stack string, cc plan.CapacityCase, index int) (CapacitySearchRow, searchFigures) {
	key := journal.CapacitySearchKey(stack, cc.Case, index)
	recs := res.CapacityProbes(key)
	row := CapacitySearchRow{Index: index, Status: CapacityMissing}
	var f searchFigures
	probes := make([]capacity.Probe, len(recs))
	for i, r := range recs {
		probes[i] = r.Probe
		row.ElapsedSeconds += r.Probe.WallSeconds
		if r.Probe.Phase == capacity.PhaseEstimate {
			// The run had no counted window of the cell: the search
			// measured its start, and its probes record 0.
			f.closedLoopRPS = r.Probe.ThroughputRPS
			continue
		}
		if r.ClosedLoopRPS > 0 {
			f.closedLoopRPS = r.ClosedLoopRPS
		}
		f.probes = append(f.probes, CapacityPoint{Search: index, Phase: r.Probe.Phase, RateRPS: r.Probe.RateRPS, ThroughputRPS: r.Probe.ThroughputRPS,
			P50Micros: r.Probe.LatencyMicros.P50, P99Micros: r.Probe.LatencyMicros.P99, SLOMicros: r.Probe.LatencyMicros.SLO, Pass: r.Probe.Pass})
	}
	row.Probes = len(f.probes)
	if len(recs) > 0 {
		row.Status = CapacityStopped
	}
	row.LastPassRPS, row.FirstFailRPS = capacity.Bracket(probes)
	end, ended := res.CapacitySearch(key)
	if !ended {
		f.search = row
		return row, f
	}
	rep := end.Report
	row.Status, row.Error = rep.Status, end.Error
	row.LastPassRPS, row.FirstFailRPS = rep.LastPassRPS, rep.FirstFailRPS
	row.ElapsedSeconds = rep.ElapsedSeconds
	if rep.Status != capacity.StatusConfirmed {
		f.search = row
		return row, f
	}
	row.CapacityRPS, f.atCapacity = rep.CapacityRPS, rep.AtCapacity
	row.MidpointRPS = rep.CapacityRPS
	if rep.FirstFailRPS > rep.CapacityRPS {
		row.MidpointRPS = (rep.CapacityRPS + rep.FirstFailRPS) / 2
	}
	at, _ := capacity.Confirmations(probes)
	var cpu, rssMean, served float64
	for _, i := range at {
		w := recs[i].Window
		f.serverCores += w.Server.Cores
		rssMean += float64(w.Server.RSSMeanBytes)
		f.rssPeakBytes = max(f.rssPeakBytes, w.Server.RSSPeakBytes)
		cpu += w.Server.CPUSeconds
		if w.Load != nil && w.Load.Flow != nil {
			served += float64(w.Load.Flow.Completed) // CPU per completed flow
		} else if w.Load != nil {
			served += float64(w.Load.Successes)
		}
	}
	if k := float64(len(at)); k > 0 {
		f.serverCores /= k
		f.rssMeanBytes = int64(math.Round(rssMean / k))
	}
	if served > 0 {
		f.cpuMicrosPerRequest = 1e6 * cpu / served
	}
	f.search = row
	return row, f
}

// capacitySteps has analysis call every capacity step of the run (each
// stack pair on each searched case; analysis.CallCapacitySteps) from the
// rows' confirmed searches.
func capacitySteps(cases []CapacityCase, pairs []analysis.StackPair, family stats.Family, minEffect, alpha float64) []CapacityStep {
	var steps []CapacityStep
	var in []analysis.CapacityStepInput
	for _, c := range cases {
		for _, p := range pairs {
			steps = append(steps, CapacityStep{Kind: p.Kind, From: p.From, To: p.To, Case: c.Case, Database: c.Database})
			in = append(in, analysis.CapacityStepInput{From: c.row(p.From).side(), To: c.row(p.To).side()})
		}
	}
	for i, ch := range analysis.CallCapacitySteps(in, family, minEffect, alpha) {
		steps[i].Capacity = ch
	}
	return steps
}

// side is a row as a capacity step reads it.
func (r CapacityRow) side() analysis.CapacitySide {
	return analysis.CapacitySide{Stack: r.Stack, Status: string(r.Status), Searches: r.Searches, Confirmed: r.Confirmed, CapacitiesRPS: r.SearchCapacitiesRPS}
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

// capacityFlow reports whether cc's searches are a flow's: it has step
// SLOs, or a probe's load result is a flow's.
func capacityFlow(res *journal.Results, cc plan.CapacityCase) bool {
	if len(cc.Steps) > 0 {
		return true
	}
	for _, pr := range res.Capacity.Probes {
		if pr.Case == cc.Case && pr.Window.Load != nil {
			return pr.Window.Load.Flow != nil
		}
	}
	return false
}
