package analysis

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
	"github.com/stackbench/stackbench/internal/workload"
)

// Options are the choices an analysis leaves to its reader.
type Options struct {
	// Alpha is one minus the steps' confidence; 0 means stats.DefaultAlpha.
	Alpha float64
	// MinEffect overrides the plan's minimum effect when above 0.
	MinEffect float64
	// Design, when set, overrides the design the run's layout implies
	// (LayoutOf): for re-analysing a run under the other design, as
	// bench/precision does. The α stays the run's.
	Design stats.Design
}

// Result is a run's analysis: its header, its cells, its steps with their
// calls, and the steps' summaries per route group.
type Result struct {
	Header Header `json:"header"`
	Cells  []Cell `json:"cells"`
	// LatencyCells are the cells of the latency windows (latency.go), in
	// the order of Cells; nil without them.
	LatencyCells []Cell      `json:"latency_cells,omitempty"`
	Steps        []Step      `json:"steps"`
	Groups       []GroupStep `json:"groups"`
	// Thresholds are the plan's thresholds judged on every cell of their
	// case (thresholds.go).
	Thresholds []ThresholdCheck `json:"thresholds,omitempty"`
}

// FromResults analyses a journal already read.
func FromResults(res *journal.Results, opt Options) (*Result, error) {
	if opt.Alpha == 0 {
		opt.Alpha = stats.DefaultAlpha
	}
	r := &Result{}
	finals := res.FinalWindows()
	r.Header = header(res, finals, opt.Alpha)
	if opt.MinEffect > 0 {
		r.Header.MinEffect = opt.MinEffect
	}
	if opt.Design != "" {
		r.Header.Design = opt.Design
	}
	r.Cells = cellsOf(r, res, finals, false)
	latencyFinals := res.FinalLatencyWindows()
	r.Header.Latency = latencyInfo(res, latencyFinals)
	if l := r.Header.Latency; l != nil && l.Windows < l.Planned {
		r.Header.State = "stopped" // its last latency windows are not in
	}
	r.LatencyCells = latencyCells(r, res, latencyFinals)
	r.Recompute()
	pl := res.RunPlan()
	r.Thresholds = JudgeThresholds(r.Cells, r.LatencyCells, pl.Thresholds, pl.Protocol.Timeout)
	return r, nil
}

// FamilyCalls is how many calls a plan's false calls are controlled over:
// every step's called metrics (Protocol.CalledMetrics: by default
// throughput and per CPU-second, and p50, p99 and cost with latency
// windows), over every case and concurrency, under family run; 1 under
// family step.
func FamilyCalls(pl *plan.Plan) int {
	if pl.Protocol.CallFamily() != plan.FamilyRun {
		return 1
	}
	var stacks []string
	from := map[string]string{}
	for _, s := range pl.Stacks {
		stacks = append(stacks, s.Name)
		from[s.Name] = s.From
	}
	cases := max(1, len(pl.Protocol.Cases))
	metrics := len(pl.Protocol.CalledMetrics())
	return max(1, metrics*len(StepPairs(stacks, from))*cases*max(1, len(pl.Protocol.Concurrency)))
}

// Looks is an adaptive plan's looks and the level of each
// (stats.LooksLagged, over the plan's FamilyCalls).
func Looks(pl *plan.Plan, alpha float64) ([]int, []float64) {
	_, d := LayoutOf(pl.Protocol)
	if pl.Protocol.Spending == "" {
		return stats.LooksLaggedEqual(d, alpha, FamilyCalls(pl), pl.Protocol.Rounds, pl.Protocol.LastRound(), CallsLag(pl.Protocol))
	}
	return stats.LooksLagged(d, alpha, FamilyCalls(pl), pl.Protocol.Rounds, pl.Protocol.LastRound(), CallsLag(pl.Protocol))
}

// CallsLag is how many rounds late the run's calls get their first pair:
// when every metric it calls is a latency window's and the windows start
// after round 1 (a share of round 1's throughput), the calls' pairs lag
// the rounds by that much; 0 otherwise.
func CallsLag(pr plan.Protocol) int {
	if pr.Latency == nil {
		return 0
	}
	for _, m := range pr.CalledMetrics() {
		if !slices.Contains(plan.LatencyMetrics, m) {
			return 0
		}
	}
	return pr.LatencyFirstRound() - 1
}

// closedLoopPlanned counts the planned closed-loop windows that are
// measured: all of them, but round 1's only under closed_loop: first
// (plan.Protocol.ClosedLoopIn).
func closedLoopPlanned(res *journal.Results, pr plan.Protocol) int {
	n := 0
	for _, w := range res.PlannedWindows() {
		if pr.ClosedLoopIn(plan.Window{Round: w.Round}) {
			n++
		}
	}
	return n
}

// header gathers the run's identity, progress and caveats.
func header(res *journal.Results, finals []journal.Window, alpha float64) Header {
	p := res.Plan
	pl := res.RunPlan()
	h := Header{
		RunID:           p.RunID,
		Started:         p.CreatedAt,
		ToolVersion:     p.ToolVersion,
		Workload:        pl.WorkloadName,
		Profile:         pl.Protocol.Profile,
		Concurrency:     pl.Protocol.Concurrency,
		WindowsPlanned:  closedLoopPlanned(res, pl.Protocol),
		WindowsRecorded: len(finals),
		Alpha:           alpha,
		MinEffect:       pl.Protocol.MinEffect,
		ParitySkipped:   p.SkipParity,
		JournalNotes:    res.JournalProblems,
	}
	h.Layout, h.Design = LayoutOf(pl.Protocol)
	h.Order = OrderOf(pl.Protocol)
	h.Family, h.FamilyCalls = pl.Protocol.CallFamily(), FamilyCalls(&pl)
	h.Calls = pl.Protocol.CalledMetrics()
	h.ClosedLoop = pl.Protocol.ClosedLoop
	if pl.Protocol.Adaptive {
		// Every look of an adaptive run spends part of α, and the calls
		// are made at the looks only (docs/statistics.md).
		looks, levels := Looks(&pl, alpha)
		h.Rounds = roundsInfo(res)
		h.Rounds.Looks, h.Rounds.LookAlphas = looks, levels
		// The rounds measured: of both kinds of window (under
		// closed_loop: first the later rounds have latency windows only).
		measured := 0
		for _, w := range append(finals, res.FinalLatencyWindows()...) {
			measured = max(measured, w.Round)
		}
		if stop, ok := res.Stopped(); ok && stop.ClockStop {
			// The clock, not the data, ended the rounds: the last look
			// moves to the round the run stopped after (still at most as
			// many looks as α was split over).
			looks, levels = clockStopLooks(looks, levels, measured)
			h.Rounds.Looks, h.Rounds.LookAlphas = looks, levels
		}
		h.CallsThroughRound = callsThrough(looks, measured)
		h.BeforeFirstLook = len(looks) > 0 && measured < looks[0]
		// The calls are made at the last look reached, at its level.
		h.Alpha = stats.LookLevel(looks, levels, measured)
	}
	if h.MinEffect <= 0 {
		// A journal written before min_effect existed.
		h.MinEffect = stats.DefaultMinEffect
	}
	h.StackFingerprints = map[string]string{}
	for _, s := range pl.Stacks {
		h.Stacks = append(h.Stacks, s.Name)
		h.StackFingerprints[s.Name] = StackFingerprint(s, pl.File)
		if s.Wire != (plan.Wire{}) {
			if h.Wires == nil {
				h.Wires = map[string]string{}
			}
			h.Wires[s.Name] = s.Wire.Describe()
		}
		if s.From != "" {
			if h.StepFrom == nil {
				h.StepFrom = map[string]string{}
			}
			h.StepFrom[s.Name] = s.From
		}
	}
	h.TFB = tfbStacks(res)
	h.Cases, h.Warnings = caseInfos(res)
	h.State = "stopped"
	_, adaptiveDone := res.Stopped()
	if len(finals) >= h.WindowsPlanned && (!pl.Protocol.Adaptive || adaptiveDone) {
		h.State = "finished"
		for _, w := range append(finals, res.FinalLatencyWindows()...) {
			h.Finished = later(h.Finished, w.EndedAt)
		}
	}
	for _, par := range res.Parity {
		h.ParitySkipped = h.ParitySkipped || par.Skipped
		h.Warnings = appendNew(h.Warnings, par.Warnings...)
	}
	for _, env := range res.Environments {
		h.Warnings = appendNew(h.Warnings, env.Warnings...)
	}
	for _, ev := range res.Events {
		if ev.Level == journal.LevelWarning {
			h.Warnings = appendNew(h.Warnings, ev.Msg)
		}
	}
	h.HostSpeed = hostSpeed(finals)
	h.Foreign = foreignCPU(pl.Protocol.Gate.Mode == plan.GateOff, finals, res.FinalLatencyWindows())
	h.Warmup, h.WarmupPlan = warmupSummary(finals), plan.WarmupText(pl.Protocol)
	h.Placement = PlacementOf(res, finals)
	h.Containers = ContainersOf(res)
	if len(res.Environments) > 0 {
		he := res.Environments[0].Host
		h.Host = Host{OS: he.OS, Arch: he.Arch, CPU: he.CPUModel, Cores: he.CPUCount, MemoryBytes: he.MemoryBytes, Kernel: he.Kernel}
	}
	return h
}

// caseInfos lists the plan's cases with their route group, from the
// journaled case definitions; a journal written before they were recorded
// falls back on the built-in workload, and a case it does not know is
// grouped by whether it inserts, with a warning.
func caseInfos(res *journal.Results) ([]CaseInfo, []string) {
	pl := res.RunPlan()
	names := pl.Protocol.Cases
	inserts := map[string]bool{}
	for _, w := range pl.Windows {
		if !slices.Contains(names, w.Case) {
			names = append(names, w.Case)
		}
		inserts[w.Case] = inserts[w.Case] || w.Inserts
	}
	builtin, _ := workload.Builtin(pl.WorkloadName, workload.DefaultJWTSecret)
	var out []CaseInfo
	var warnings []string
	journaled := map[string]journal.Case{}
	for _, c := range res.Plan.Cases {
		journaled[c.Name] = c
	}
	for _, n := range names {
		ci := CaseInfo{Name: n, Database: inserts[n]}
		if c, ok := journaled[n]; ok {
			ci.Database, ci.Variants, ci.CallRoutes = c.Database, c.Variants, c.CallRoutes
		} else if c, ok := caseOf(builtin, n); ok {
			ci.Database = c.Database
		} else if pl.NeedsDatabase && !ci.Database {
			warnings = append(warnings, fmt.Sprintf("case %q is not a built-in case and the journal does not say whether it uses the database: it is summarised with the framework-only routes", n))
		}
		out = append(out, ci)
	}
	return out, warnings
}

func caseOf(w *workload.Workload, name string) (workload.Case, bool) {
	if w == nil {
		return workload.Case{}, false
	}
	return w.Case(name)
}

// cellsOf builds every planned cell from its final windows, in case,
// concurrency and stack order; latency says they are latency windows
// (newCell).
func cellsOf(m *Result, res *journal.Results, finals []journal.Window, latency bool) []Cell {
	byCell := map[[3]string][]journal.Window{}
	for _, w := range finals {
		k := [3]string{w.Stack, w.Case, fmt.Sprint(w.Concurrency)}
		byCell[k] = append(byCell[k], w)
	}
	maxLatency := max(res.RunPlan().Protocol.Timeout, time.Minute)
	var out []Cell
	for _, ci := range m.Header.Cases {
		for _, conc := range m.Header.Concurrency {
			for _, s := range m.Header.Stacks {
				ws := byCell[[3]string{s, ci.Name, fmt.Sprint(conc)}]
				c, warn := newCell(s, ci, conc, ws, maxLatency, latency)
				m.Header.Warnings = appendNew(m.Header.Warnings, warn...)
				out = append(out, c)
			}
		}
	}
	return out
}

// newCell turns a cell's final windows into its per-window figures, flags
// and merged latency. Figures are summarised later, by summarizeCell.
// Latency windows (latency) count by latencyCounted, and their latency is
// latencyHist's: the corrected histogram with the failures in it, per
// window (kept for the pooled calls) and merged.
func newCell(stack string, ci CaseInfo, conc int, ws []journal.Window, maxLatency time.Duration, latency bool) (Cell, []string) {
	c := Cell{Stack: stack, Case: ci.Name, Concurrency: conc, Database: ci.Database}
	if len(ws) == 0 {
		c.State = CellMissing
		return c, nil
	}
	merged := hist.New(maxLatency)
	var warnings []string
	var counted []*journal.Window
	failed := false
	for i := range ws {
		w := &ws[i]
		wf := windowFigures(w)
		wf.routes = routeWindows(w, maxLatency)
		addFlags(&c, w)
		failed = failed || w.HasFlag(journal.FlagFailed)
		if latency {
			wf.latency, wf.Counted = true, latencyCounted(w)
			if wf.Counted {
				wf.CostDrop = costDrop(w)
			}
		}
		if !wf.Counted {
			if !latency && w.Load != nil && failedOnly(w.Flags) {
				if h, err := latencyHist(w, maxLatency); err == nil {
					wf.limitDist = distOf(h)
				}
			}
			c.PerWindow = append(c.PerWindow, wf)
			continue
		}
		counted = append(counted, w)
		var h *hist.Histogram
		var err error
		if latency {
			if h, err = latencyWindowHist(w, maxLatency); err == nil {
				wf.dist, wf.Latency = distOf(h), latencyOf(h)
				wf.limitDist = wf.dist
			}
		} else {
			h, err = hist.Decode(w.Load.LatencyHist)
			if lh, lerr := latencyHist(w, maxLatency); lerr == nil {
				wf.limitDist = distOf(lh)
			}
		}
		c.PerWindow = append(c.PerWindow, wf)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("window %s: its latency histogram cannot be read (%v); the cell's percentiles leave it out", w.Key, err))
			continue
		}
		merged.Merge(h)
	}
	if failed && !slices.ContainsFunc(c.PerWindow, func(w WindowFigures) bool { return w.Counted }) {
		c.State = CellFailed
	}
	if merged.Count() > 0 {
		c.Latency = latencyOf(merged)
	}
	c.Routes = routeFigures(counted, maxLatency)
	c.Flow = flowFigures(counted, maxLatency)
	return c, warnings
}

// latencyOf reads a cell's or a window's percentiles off a histogram.
func latencyOf(h *hist.Histogram) Latency {
	return Latency{
		P50:  float64(h.PercentileMicros(50)),
		P90:  float64(h.PercentileMicros(90)),
		P99:  float64(h.PercentileMicros(99)),
		P999: float64(h.PercentileMicros(99.9)),
		Max:  float64(h.MaxMicros()),
	}
}

// windowFigures takes one window's own figures from its record.
func windowFigures(w *journal.Window) WindowFigures {
	f := WindowFigures{Round: w.Round, Process: w.Process.Seq, Counted: w.Valid(), Flags: w.Flags,
		ServerCores: w.Server.Cores, RSSMeanBytes: w.Server.RSSMeanBytes, RSSPeakBytes: w.Server.RSSPeakBytes,
		DBCores: w.Database.Cores, GeneratorCores: w.Generator.Cores}
	if w.DatabaseOwn != nil {
		own := w.DatabaseOwn.Cores
		f.DBOwnCores = &own
	}
	if w.Services != nil {
		f.ServicesCores = w.Services.Cores
	}
	if l := w.Load; l != nil {
		if l.DurationSeconds > 0 {
			f.GeneratorWaitCores = l.GeneratorWaitSeconds / l.DurationSeconds
		}
		f.ThroughputRPS = l.ThroughputRPS
		f.HasLoad, f.ErrorRate = true, l.FailureShare()
		// Throughput ÷ cores, each a rate over its own interval (the load's
		// window, the sampler's), so that req/s ÷ cores = req/CPU-s in every
		// table and the cost model's rps per core is the same figure.
		// Successes ÷ CPU seconds would divide a count over the load's
		// window by one over the sampler's, which starts and ends a few
		// milliseconds later (see docs/methodology.md).
		if w.Server.Cores > 0 {
			f.PerCPUSecond = l.ThroughputRPS / w.Server.Cores
		}
		// The stack's own cores: server, its own database backends, its
		// services; per request, and for a flow per completed flow.
		own := w.Server.Cores + f.costDBCores(w) + f.ServicesCores
		if l.ThroughputRPS > 0 {
			f.CostMicros = own * 1e6 / l.ThroughputRPS
		}
		if fl := l.Flow; fl != nil {
			f.PerFlow, f.FlowsPerSecond = true, fl.FlowsPerSecond
			if fl.FlowsPerSecond > 0 {
				f.CostMicrosPerFlow = own * 1e6 / fl.FlowsPerSecond
			}
		}
		lat := l.LatencyMicros
		f.Latency = Latency{P50: float64(lat.P50), P90: float64(lat.P90), P99: float64(lat.P99), P999: float64(lat.P999), Max: float64(lat.Max)}
	}
	return f
}

// costDBCores is the database CPU a window's cost counts: the serving
// stack's own backends where they were measured (journal.Window.
// DatabaseOwn), else the whole database tree (journals before them, or
// a database measured on its own host).
func (f WindowFigures) costDBCores(w *journal.Window) float64 {
	if f.DBOwnCores != nil {
		return *f.DBOwnCores
	}
	return w.Database.Cores
}

// addFlags counts a window's flags on its cell, keeping the first reason
// given for each.
func addFlags(c *Cell, w *journal.Window) {
	for _, name := range w.Flags {
		i := slices.IndexFunc(c.Flags, func(f Flag) bool { return f.Name == name })
		if i < 0 {
			c.Flags = append(c.Flags, Flag{Name: name, Reason: reasonFor(w, name)})
			i = len(c.Flags) - 1
		}
		c.Flags[i].Windows++
	}
}

// reasonFor finds the reason the run gave for a flag ("flag: reason").
func reasonFor(w *journal.Window, flag journal.Flag) string {
	for _, r := range w.Reasons {
		if rest, ok := strings.CutPrefix(r, string(flag)+": "); ok {
			return rest
		}
	}
	if w.Error != "" {
		return w.Error
	}
	return "no reason recorded"
}

// appendNew appends the strings of add that list does not hold yet.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if a != "" && !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// hostSpeed summarises the probes of the final windows.
func hostSpeed(finals []journal.Window) HostSpeed {
	var ms []float64
	for _, w := range finals {
		if w.Probe != nil && w.Probe.BeforeMs > 0 && w.Probe.AfterMs > 0 {
			ms = append(ms, w.Probe.BeforeMs, w.Probe.AfterMs)
		}
	}
	s, err := stats.Summarize(ms)
	if err != nil {
		return HostSpeed{}
	}
	hs := HostSpeed{Probes: len(ms), ProbeMedianMs: s.Median, ProbeMinMs: s.Min, ProbeMaxMs: s.Max}
	for _, w := range finals {
		if w.Probe != nil && w.Probe.ReferenceMs > 0 {
			hs.Windows = append(hs.Windows, HostSpeedPoint{Key: w.Key, SlowerPct: 100 * w.Probe.SlowerShare(), HostSlow: w.HasFlag(journal.FlagHostSlow)})
		}
	}
	return hs
}

// foreignCPU summarises the foreign CPU of the windows (closed-loop and
// latency) with a sampler's figures; nil when none has one.
func foreignCPU(gateOff bool, windows ...[]journal.Window) *ForeignCPU {
	var all, proc, tick []float64
	contended := 0
	for _, ws := range windows {
		for _, w := range ws {
			if w.WallSeconds <= 0 {
				continue // no sampler: a failed window
			}
			all = append(all, w.ForeignCores)
			if w.ForeignProcessCores > 0 || w.ForeignTickCores > 0 {
				proc = append(proc, w.ForeignProcessCores)
				tick = append(tick, w.ForeignTickCores)
			}
			if w.HasFlag(journal.FlagContended) {
				contended++
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	f := &ForeignCPU{Windows: len(all), Contended: contended, GateOff: gateOff}
	f.MedianCores, _ = stats.Quantile(all, 0.5)
	f.P90Cores, _ = stats.Quantile(all, 0.9)
	f.MaxCores = slices.Max(all)
	if len(proc) > 0 {
		f.ProcessMedianCores, _ = stats.Quantile(proc, 0.5)
		f.TickMedianCores, _ = stats.Quantile(tick, 0.5)
	}
	return f
}

// callsThrough is the round an adaptive run's steps are called through
// when it measured rounds past its last look without reaching the next
// (Header.CallsThroughRound); 0 when its last measured round is a look or
// comes before the first.
func callsThrough(looks []int, measured int) int {
	if last := stats.LastLook(looks, measured); last > 0 && last < measured {
		return last
	}
	return 0
}

// clockStopLooks is the schedule of a run whose budget's clock stopped it
// after round measured: the looks before it, and measured in place of the
// ones after, so the run looks no more often than planned.
// The moved last look keeps the last look's level; the looks kept keep
// theirs.
func clockStopLooks(looks []int, levels []float64, measured int) ([]int, []float64) {
	var out []int
	var lv []float64
	for i, n := range looks {
		if n < measured {
			out, lv = append(out, n), append(lv, levels[i])
		}
	}
	if len(out) < len(looks) {
		out, lv = append(out, measured), append(lv, levels[len(levels)-1])
	}
	return out, lv
}

// OrderOf names the order a protocol laid its rounds out in: "williams",
// or "rotation" for a journal written before the order was recorded.
func OrderOf(pr plan.Protocol) string {
	if pr.Order == plan.OrderRotation {
		return "rotation"
	}
	return pr.Order
}

// LayoutOf is a protocol's layout and the design its steps are compared
// under: interleaved rounds pair their windows by round; grouped ones (and
// journals from before layouts) compare independent samples.
func LayoutOf(pr plan.Protocol) (string, stats.Design) {
	if pr.Interleaved() {
		return plan.LayoutInterleaved, stats.Paired
	}
	return plan.LayoutGrouped, stats.Independent
}

// roundsInfo summarises an adaptive run's rounds from its journal.
func roundsInfo(res *journal.Results) *RoundsInfo {
	pr := res.RunPlan().Protocol
	ri := &RoundsInfo{MinRounds: pr.Rounds, MaxRounds: pr.MaxRounds, BudgetRounds: pr.BudgetRounds, LastRound: pr.LastRound(),
		Budget: pr.Budget.String(), Measured: pr.Rounds}
	for _, rd := range res.Rounds {
		if rd.Stop != "" {
			ri.Stop = rd.Stop
			continue
		}
		ri.Measured = max(ri.Measured, rd.Round)
		ri.Extra = append(ri.Extra, ExtraRound{Round: rd.Round, Windows: len(rd.Windows), Undecided: rd.Undecided})
	}
	return ri
}
