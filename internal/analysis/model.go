// Package analysis turns a journal into decisions: cells from their
// windows, steps between cells, and each step's call with its interval. It
// is pure: it reads journal records and the plan, runs nothing, prices
// nothing and renders nothing. The run's adaptive rounds, the capacity phase
// and every report read their decisions from here, so they cannot differ.
package analysis

import (
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// Header is what a reader needs before any figure: which run, how it was
// measured, how noisy it was, and what went wrong.
type Header struct {
	RunID       string    `json:"run_id"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished,omitzero"`
	ToolVersion string    `json:"tool_version"`
	Workload    string    `json:"workload"`
	Profile     string    `json:"profile"`
	// State is "finished", or "stopped" when the journal ends before the plan
	// does (a stopped run, or one still going).
	State string `json:"state"`
	// Stacks are in step order; Cases and Concurrency in plan order.
	Stacks      []string   `json:"stacks"`
	Cases       []CaseInfo `json:"cases"`
	Concurrency []int      `json:"concurrency"`
	// WindowsPlanned and WindowsRecorded count measured windows.
	WindowsPlanned  int `json:"windows_planned"`
	WindowsRecorded int `json:"windows_recorded"`
	// Host is the machine the run measured on.
	Host Host `json:"host"`
	// HostSpeed summarises the host-speed probes around the windows.
	HostSpeed HostSpeed `json:"host_speed"`
	// Foreign summarises the foreign CPU the windows saw, whether or not
	// the gate judged it; nil when no window has the figure.
	Foreign *ForeignCPU `json:"foreign,omitempty"`
	// Warmup is how long the windows' warm-ups ran (warmup.go); nil when
	// no window had one.
	Warmup *WarmupSummary `json:"warmup,omitempty"`
	// WarmupPlan describes the plan's warm-up ("until steady, 500ms–3s").
	WarmupPlan string `json:"warmup_plan,omitempty"`
	// Placement is where the processes ran (shared or lanes); nil for a
	// journal written before it was recorded.
	Placement *Placement `json:"placement,omitempty"`
	// Containers are the stacks that ran in a container, in plan order;
	// empty when none did.
	Containers []ContainerStack `json:"containers,omitempty"`
	// Dispersion is the run's quality figure: how much a cell's windows
	// vary, robustly (the calls do not use it; they have intervals).
	Dispersion Dispersion `json:"dispersion"`
	// Alpha is one minus the confidence of the steps' intervals.
	Alpha float64 `json:"alpha"`
	// Layout is how rounds ordered the windows (plan.LayoutInterleaved or
	// plan.LayoutGrouped), and Design how steps compare their two sides:
	// stats.Paired (by round) for an interleaved run, else
	// stats.Independent.
	Layout string       `json:"layout"`
	Design stats.Design `json:"design"`
	// Order is how a round ordered the stacks: "williams" (balanced: within
	// a case, every stack right before every other equally often over a
	// cycle of rounds) or "rotation" (journals written before it, which
	// are not balanced from three stacks on).
	Order string `json:"order"`
	// MinEffect is the smallest shift, as a fraction, that matters: an
	// interval within ± it (on the log scale) is called same, and a gain or
	// loss says whether it reaches past it.
	MinEffect float64 `json:"min_effect"`
	// Family is how false calls were controlled: "run" (over FamilyCalls
	// step-metric calls at once, Benjamini–Hochberg at Alpha) or "step".
	Family      string `json:"family"`
	FamilyCalls int    `json:"family_calls,omitempty"`
	// Calls are the metrics the run calls, its headline first (protocol
	// calls:; by default every metric it measures): the others' changes
	// are CallNotCalled, shown with their intervals and out of the family.
	Calls []string `json:"calls"`
	// ClosedLoop is "first" when the closed-loop windows were measured in
	// round 1 only (closed_loop: first): throughput and per CPU-second
	// have one window a cell and no call.
	ClosedLoop string `json:"closed_loop,omitempty"`
	// CallsThroughRound, when above 0, is the last look of an adaptive run
	// that measured rounds past it without reaching its next look (a run
	// stopped, or stopped by its budget's actual time): the steps are
	// called from the windows of rounds up to it, as the run decided, and
	// the later windows show in the cells only.
	CallsThroughRound int `json:"calls_through_round,omitempty"`
	// BeforeFirstLook is true for an adaptive run that has not reached
	// its first look: calls are made at the looks only, so every step is
	// undecided until then (and the run measures every cell).
	BeforeFirstLook bool `json:"before_first_look,omitempty"`
	// Latency describes the latency windows (latency.go); nil when the
	// run has none.
	Latency *LatencyInfo `json:"latency,omitempty"`
	// Rounds describes an adaptive run's rounds (rounds: auto); nil for a
	// fixed number of rounds.
	Rounds *RoundsInfo `json:"rounds,omitempty"`
	// StackFingerprints identify what each stack ran (StackFingerprint),
	// so that report A B can tell a reference stack both runs share.
	StackFingerprints map[string]string `json:"stack_fingerprints,omitempty"`
	// Wires says how the load reached each stack (plan.Wire.Describe),
	// when some stack is not plain HTTP/1.1: the wire is a layer a step
	// can change (docs/load.md). Empty when every stack speaks HTTP/1.1.
	Wires map[string]string `json:"wires,omitempty"`
	// StepFrom maps each stack but the baseline to the stack it changes
	// one layer of: the steps form a tree from the first stack.
	StepFrom map[string]string `json:"step_from,omitempty"`
	// TFB holds, by stack, what a TechEmpower entry's stack said of
	// itself (approach, ORM, classification) and the parity rules relaxed
	// for it that it broke; nil when no stack has either.
	TFB map[string]TFBStack `json:"tfb,omitempty"`
	// ParitySkipped is true when the run was made with --skip-parity: the
	// stacks were never shown to answer the same thing.
	ParitySkipped bool `json:"parity_skipped"`
	// Warnings are caveats about the whole run (host, limits, baseline).
	Warnings []string `json:"warnings,omitempty"`
	// JournalNotes are lines of the journal that were skipped, torn last
	// line included, each with its line number.
	JournalNotes []string `json:"journal_notes,omitempty"`
}

// Host names the machine a run measured on.
type Host struct {
	OS    string `json:"os"`
	Arch  string `json:"arch"`
	CPU   string `json:"cpu"`
	Cores int    `json:"cores"`
	// MemoryBytes is the host's memory (MemTotal) and Kernel its kernel
	// release and build; empty in a journal written before they were
	// read into the header.
	MemoryBytes int64  `json:"memory_bytes,omitempty"`
	Kernel      string `json:"kernel,omitempty"`
}

// HostSpeed is the fixed-work CPU probe timed around every window: how
// fast the host itself ran over the run (trap T18).
type HostSpeed struct {
	// Probes is the number of probe figures (two per window that has one);
	// 0 for a journal without probes.
	Probes int `json:"probes"`
	// ProbeMedianMs, ProbeMinMs and ProbeMaxMs summarise them.
	ProbeMedianMs float64 `json:"probe_median_ms"`
	ProbeMinMs    float64 `json:"probe_min_ms"`
	ProbeMaxMs    float64 `json:"probe_max_ms"`
	// Windows are every final window's probe, in journal order, for the
	// strip that shows the host's speed over the run.
	Windows []HostSpeedPoint `json:"windows,omitempty"`
}

// ForeignCPU is the CPU of everything outside the benchmark during the
// run's final windows (closed-loop and latency alike), in cores: the
// figure the contention gate judges (journal.Window.ForeignCores) and its
// two readings (docs/methodology.md, "Host CPU and foreign CPU").
type ForeignCPU struct {
	Windows     int     `json:"windows"`
	MedianCores float64 `json:"median_cores"`
	P90Cores    float64 `json:"p90_cores"`
	MaxCores    float64 `json:"max_cores"`
	// ProcessMedianCores and TickMedianCores are the medians of the two
	// readings, over the windows that have them (0 in journals from
	// before they were recorded).
	ProcessMedianCores float64 `json:"process_median_cores,omitempty"`
	TickMedianCores    float64 `json:"tick_median_cores,omitempty"`
	// Contended counts the windows kept flagged contended.
	Contended int `json:"contended"`
	// GateOff is true when the run's gate was off: the figures were
	// recorded, never judged.
	GateOff bool `json:"gate_off,omitempty"`
}

// RoundsInfo is what an adaptive run did with its rounds.
type RoundsInfo struct {
	MinRounds int    `json:"min_rounds"`
	MaxRounds int    `json:"max_rounds"`
	Budget    string `json:"budget"`
	// BudgetRounds is how many whole rounds the budget affords by the
	// plan's estimate; the run stops at the lower of it and MaxRounds
	// (LastRound), and α is spent over the looks up to there.
	BudgetRounds int `json:"budget_rounds,omitempty"`
	LastRound    int `json:"last_round"`
	// Looks are the rounds after which the run decides (stats.Looks); the
	// calls are made there only, each at its level in LookAlphas (the
	// header's Alpha is the level of the look the calls are made at).
	Looks      []int     `json:"looks"`
	LookAlphas []float64 `json:"look_alphas,omitempty"`
	// Measured is the last round with windows; Extra lists the rounds
	// past MinRounds and why each ran.
	Measured int          `json:"measured"`
	Extra    []ExtraRound `json:"extra,omitempty"`
	// Stop is why the extra rounds ended; empty while the run goes on (or
	// was stopped before it decided).
	Stop string `json:"stop,omitempty"`
}

// LookAlpha is the level of the look after round (stats.LookLevel), or
// def for a journal whose looks were all at one level (before
// LookAlphas).
func (ri *RoundsInfo) LookAlpha(round int, def float64) float64 {
	if ri == nil || len(ri.LookAlphas) != len(ri.Looks) || len(ri.Looks) == 0 {
		return def
	}
	return stats.LookLevel(ri.Looks, ri.LookAlphas, round)
}

// ExtraRound is one adaptive round: how many windows it measured, for the
// steps that were still open.
type ExtraRound struct {
	Round     int      `json:"round"`
	Windows   int      `json:"windows"`
	Undecided []string `json:"undecided"`
}

// HostSpeedPoint is one window's probe, for the host-speed strip.
type HostSpeedPoint struct {
	Key string `json:"key"`
	// SlowerPct is how much slower than the reference the slower of the
	// window's two probes ran (negative: faster).
	SlowerPct float64 `json:"slower_pct"`
	HostSlow  bool    `json:"host_slow,omitempty"`
}

// HostSpeedTolerance is how far apart two runs' median probes may be for
// their hosts to count as equally fast: 5 %. Past it, report A B cannot
// judge a change between the runs.
const HostSpeedTolerance = 0.05

// CaseInfo names a case and says whether its route uses the database.
type CaseInfo struct {
	Name     string `json:"name"`
	Database bool   `json:"database"`
	// Variants is how many distinct requests the load cycled over (a
	// templated case of a custom workload); 0 for one fixed request.
	Variants int `json:"variants,omitempty"`
	// CallRoutes is true for a mix whose routes' steps are called in the
	// run's false-call family (mix: {call_routes: true}); otherwise they
	// are shown, not called (RouteStep).
	CallRoutes bool `json:"call_routes,omitempty"`
}

// Dispersion summarises the valid cells' robust coefficients of variation
// of throughput (stats.Robust: 1.4826 × the median absolute deviation ÷
// the median). Unlike the range (max − min) ÷ median, one outlier window
// does not set it.
type Dispersion struct {
	// Known is false when no valid cell had three counted windows.
	Known bool `json:"known"`
	// MedianCV is the median over the cells; MaxCV the largest, in the
	// cell named by MaxStack, MaxCase and MaxConcurrency.
	MedianCV       float64 `json:"median_cv"`
	MaxCV          float64 `json:"max_cv"`
	MaxStack       string  `json:"max_stack,omitempty"`
	MaxCase        string  `json:"max_case,omitempty"`
	MaxConcurrency int     `json:"max_concurrency,omitempty"`
	Cells          int     `json:"cells"`
	// Outliers counts the counted windows past the outlier fence
	// (stats.OutlierFence), over all valid cells.
	Outliers int `json:"outliers"`
	// MedianWithinCV and MedianBetweenCV are the medians of the valid
	// cells' WithinProcessCV and BetweenProcessCV, over the cells that
	// have one (WithinCells, BetweenCells).
	MedianWithinCV  float64 `json:"median_within_process_cv,omitempty"`
	WithinCells     int     `json:"within_cells,omitempty"`
	MedianBetweenCV float64 `json:"median_between_process_cv,omitempty"`
	BetweenCells    int     `json:"between_cells,omitempty"`
}

// The states of a cell.
const (
	// CellValid: at least MinCountedWindows windows passed validation,
	// and no more than a quarter were invalid or flagged.
	CellValid = "valid"
	// CellInsufficient: some windows passed, but too few or too small a
	// majority for the cell to stand for its stack: its steps are invalid
	// and the cost model leaves it out.
	CellInsufficient = "insufficient"
	// CellInvalid: windows were measured, but none passed validation.
	CellInvalid = "invalid"
	// CellFailed: no window was counted and at least one was failed
	// (journal.FlagFailed: the server would not start, died again after a
	// restart, or the load generator gave no result).
	CellFailed = "failed"
	// CellMissing: planned, but not measured (a stopped run).
	CellMissing = "missing"
)

// Cell is one (stack, case, concurrency) and what its windows measured.
// Figures are over the cell's counted windows (those that passed
// validation); each per-window metric is summarised on its own, and every
// per-window value comes from one window, never from two.
type Cell struct {
	Stack       string `json:"stack"`
	Case        string `json:"case"`
	Concurrency int    `json:"concurrency"`
	Database    bool   `json:"database"`
	// State is one of CellValid, CellInsufficient, CellInvalid,
	// CellFailed, CellMissing.
	State string `json:"state"`
	// StateReason says why a cell is not valid.
	StateReason string `json:"state_reason,omitempty"`
	// Windows is the number of windows recorded; Counted of them passed
	// validation and enter the figures.
	Windows int `json:"windows"`
	Counted int `json:"counted"`
	// PerWindow holds each recorded window's own figures, in journal order.
	PerWindow []WindowFigures `json:"per_window"`
	// Flags are the validity flags raised on this cell's windows.
	Flags []Flag `json:"flags,omitempty"`
	// Throughput is successful responses per second of window.
	Throughput Spread `json:"throughput_rps"`
	// ThroughputCV is the robust coefficient of variation of the counted
	// windows' throughput (see Dispersion), 0 with fewer than 3 of them;
	// Outliers counts those windows past the outlier fence. Outliers are
	// shown and kept in every figure and call.
	ThroughputCV float64 `json:"throughput_cv"`
	Outliers     int     `json:"outliers"`
	// WithinProcessCV is the robust spread of throughput between windows
	// of one process (1.4826 × the median |log ratio| of two windows of a
	// process, ÷ √2: one window's own spread); nil unless some process
	// served two or more counted windows of the cell (protocol repeat).
	// BetweenProcessCV is the robust CV of the processes' own throughput
	// (the geometric mean of each process's counted windows), over the
	// cell's processes; nil with fewer than three.
	WithinProcessCV  *float64 `json:"within_process_cv,omitempty"`
	BetweenProcessCV *float64 `json:"between_process_cv,omitempty"`
	// PerCPUSecond is throughput per second of server CPU time; its median
	// is the throughput median window's, its spread its own.
	PerCPUSecond Spread `json:"per_cpu_second"`
	// CPUMicrosPerRequest is 10⁶ ÷ the median PerCPUSecond.
	CPUMicrosPerRequest float64 `json:"cpu_us_per_request"`
	// ServerCores is the median window's server CPU seconds per second.
	ServerCores float64 `json:"server_cores"`
	// Latency is from the merged histograms of the counted windows.
	Latency Latency `json:"latency_us"`
	// RSSMeanBytes is the median window's mean RSS (the median window by
	// throughput, like every median figure of the cell); RSSPeakBytes the
	// highest peak of any counted window.
	RSSMeanBytes int64 `json:"rss_mean_bytes"`
	RSSPeakBytes int64 `json:"rss_peak_bytes"`
	// DBCores and GeneratorCores are the median windows' CPU use of the
	// database and of the load generator.
	DBCores        float64 `json:"db_cores"`
	GeneratorCores float64 `json:"generator_cores"`
	// GeneratorWaitCores is the median window's time the generator's
	// threads spent waiting for a CPU, per second of window: a generator
	// starved by the server and database on a shared host.
	GeneratorWaitCores float64 `json:"generator_wait_cores"`
	// Routes are a mix's routes inside the cell (RouteFigures); absent for
	// a case of one route.
	Routes []RouteFigures `json:"routes,omitempty"`
	// Flow is a flow's figures inside the cell (FlowFigures); absent for
	// a case that is not a flow.
	Flow *FlowFigures `json:"flow,omitempty"`
}

// Flag is one validity flag on a cell (journal.FlagInvalid and the
// others): how many of its windows raised it, and why (the first reason
// recorded).
type Flag struct {
	Name    journal.Flag `json:"name"`
	Windows int          `json:"windows"`
	Reason  string       `json:"reason"`
}

// WindowFigures are one window's own figures, never mixed with another's.
type WindowFigures struct {
	Round int `json:"round"`
	// Process is the stack's process that served the window, numbered
	// from 1 over the run (journal.ProcessInfo.Seq).
	Process int `json:"process"`
	// Counted is true when the window passed validation; Flags are the
	// validity flags it raised.
	Counted bool           `json:"counted"`
	Flags   []journal.Flag `json:"flags,omitempty"`
	// Outlier is true for a counted window whose throughput lies past the
	// cell's outlier fence; it still counts.
	Outlier       bool    `json:"outlier,omitempty"`
	ThroughputRPS float64 `json:"throughput_rps"`
	PerCPUSecond  float64 `json:"per_cpu_second"`
	ServerCores   float64 `json:"server_cores"`
	Latency       Latency `json:"latency_us"`
	// HasLoad is true when the window has a load result (a failed window
	// may have none); ErrorRate is then its failed share of its requests
	// (load.Result.FailureShare), from 0 to 1.
	HasLoad      bool    `json:"has_load,omitempty"`
	ErrorRate    float64 `json:"error_rate"`
	RSSMeanBytes int64   `json:"rss_mean_bytes"`
	RSSPeakBytes int64   `json:"rss_peak_bytes"`
	// DBCores and GeneratorCores are the database's and the load
	// generator's CPU seconds per second of window; GeneratorWaitCores the
	// generator's seconds waiting for a CPU per second of window.
	DBCores float64 `json:"db_cores"`
	// DBOwnCores is the part of DBCores the serving stack's own backends
	// used (journal.Window.DatabaseOwn); nil where it was not measured.
	// DBCores less it is the database's background work: autovacuum, the
	// checkpointer, other stacks' backends.
	DBOwnCores *float64 `json:"db_own_cores,omitempty"`
	// ServicesCores is the CPU of the stack's services: (its own cache or
	// database, by port) per second of window; 0 without them.
	ServicesCores float64 `json:"services_cores,omitempty"`
	// CostMicros is the CPU the request cost the stack, in CPU-µs per
	// request: (ServerCores + its database CPU + ServicesCores) × 10⁶ ÷
	// ThroughputRPS; 0 without a throughput. Its database CPU is
	// DBOwnCores where measured (trap T27), else DBCores. In a latency
	// window, served at a fixed offered rate, it is the fixed-rate cost
	// that steps call (Step.Cost).
	CostMicros float64 `json:"cost_us_per_req,omitempty"`
	// PerFlow is set on a flow's window: FlowsPerSecond are its completed
	// flows per second (a failed flow is never throughput), and
	// CostMicrosPerFlow the same CPU as CostMicros per completed flow, the
	// figure a flow case's cost call and cost loads read (callCost).
	PerFlow            bool    `json:"per_flow,omitempty"`
	FlowsPerSecond     float64 `json:"flows_per_s,omitempty"`
	CostMicrosPerFlow  float64 `json:"cost_us_per_flow,omitempty"`
	GeneratorCores     float64 `json:"generator_cores"`
	GeneratorWaitCores float64 `json:"generator_wait_cores"`
	// latency is set on a latency window; dist is a counted one's
	// corrected histogram with its failures (latencyHist), for the pooled
	// calls.
	// CostDrop, on a latency window that counts for latency, says why it
	// does not count for cost (costwindows.go): behind, unsent requests,
	// more than 1 % failed; "" when it does.
	CostDrop string `json:"cost_drop,omitempty"`
	latency  bool
	dist     *stats.Dist
	// limitDist is the distribution a latency threshold pools
	// (thresholds.go): the window's histogram with its failures, on a
	// counted window, or a closed-loop window left out for its failures
	// alone.
	limitDist *stats.Dist
	// routes are a mix window's routes (routeWindows), for the routes'
	// steps and thresholds; nil for a case of one route.
	routes []routeWindow
}

// CountedRounds returns the rounds of the cell's counted windows, in the
// order of CountedValues.
func (c Cell) CountedRounds() []int {
	var out []int
	for _, w := range c.PerWindow {
		if w.Counted {
			out = append(out, w.Round)
		}
	}
	return out
}

// CountedValues returns one metric of the cell's counted windows, in
// journal order.
func (c Cell) CountedValues(metric func(WindowFigures) float64) []float64 {
	var out []float64
	for _, w := range c.PerWindow {
		if w.Counted {
			out = append(out, metric(w))
		}
	}
	return out
}

// Spread summarises one metric over a cell's counted windows.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Q1     float64 `json:"q1"`
	Q3     float64 `json:"q3"`
	// Relative is (max−min) ÷ median: this cell's own noise.
	Relative float64 `json:"relative"`
}

// Latency holds percentiles of successful responses, in microseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// The kinds of step.
const (
	// StepAdjacent is between a stack and the next one in step order.
	StepAdjacent = "adjacent"
	// StepOverall is from the first stack to the last.
	StepOverall = "overall"
	// StepCompare is the same stack in two runs (stackbench report A B).
	StepCompare = "compare"
)

// Step is what one layer bought on one case and concurrency: the change from
// one cell to another in throughput and in throughput per CPU-second.
type Step struct {
	Kind        string `json:"kind"`
	From        string `json:"from"`
	To          string `json:"to"`
	Case        string `json:"case"`
	Concurrency int    `json:"concurrency"`
	Database    bool   `json:"database"`
	Throughput  Change `json:"throughput"`
	PerCPU      Change `json:"per_cpu_second"`
	// P50 and P99 are the calls of the latency windows' corrected p50 and
	// p99 (latency.go), lower-is-better: a rise is a loss; nil when the
	// run has no latency windows.
	P50 *Change `json:"p50,omitempty"`
	P99 *Change `json:"p99,omitempty"`
	// Cost is the call of the latency windows' fixed-rate cost
	// (WindowFigures.CostMicros: server and database CPU-µs per request at
	// the offered rate), lower-is-better; nil without latency windows. At
	// a fixed rate the two stacks do the same work, so the call is not
	// moved by how fast a saturated closed loop happened to run: on this
	// project's 2-vCPU machine its paired noise was a third to a half of
	// closed-loop throughput's (docs/methodology.md, "Where a step's
	// paired noise comes from").
	Cost *Change `json:"cost,omitempty"`
	// CostLoads is the cost at the fixed rate beside the cost near
	// saturation (costloads.go), with each stack's absolute CPU-µs per
	// request; nil without a fixed-rate cost.
	CostLoads *CostLoads `json:"cost_loads,omitempty"`
	// RuleRelaxed names, as "stack: rule", the parity rules relaxed on
	// this case for either stack that the stack broke (a tfb stack's
	// batched updates, its tfb: relax:): the step is marked "rule
	// relaxed". Empty when parity held both stacks to every rule.
	RuleRelaxed []string `json:"rule_relaxed,omitempty"`
	// Flagged lists the flags raised on the counted windows of either cell,
	// as "stack: flag ×windows" (contended, client_bound,
	// checkpoint_in_window): such windows count, so the change may describe
	// the host, the generator or the database as much as the step.
	Flagged []string `json:"flagged,omitempty"`
	// Routes are a mix's routes inside the step (routesteps.go): each
	// route's p50 and p99 with estimate and interval; absent for a case
	// of one route.
	Routes []RouteStep `json:"routes,omitempty"`
}

// Metric is the step's change on a metric as calls: names it
// (plan.MetricThroughput …); nil when the step has none (a latency
// metric in a run without latency windows).
func (s *Step) Metric(name string) *Change {
	switch name {
	case plan.MetricThroughput:
		return &s.Throughput
	case plan.MetricPerCPU:
		return &s.PerCPU
	case plan.MetricP50:
		return s.P50
	case plan.MetricP99:
		return s.P99
	case plan.MetricCost:
		return s.Cost
	}
	return nil
}

// Headline is the metric the run's verdict counts: the first it calls
// (throughput in journals written before calls:).
func (h Header) Headline() string {
	if len(h.Calls) == 0 {
		return plan.MetricThroughput
	}
	return h.Calls[0]
}

// MetricLabel is a metric in words, as the reports name it.
func MetricLabel(name string) string {
	switch name {
	case plan.MetricPerCPU:
		return "throughput per CPU-second"
	case plan.MetricP50:
		return "p50 latency at a fixed rate"
	case plan.MetricP99:
		return "p99 latency at a fixed rate"
	case plan.MetricCost:
		return "CPU cost per request at a fixed rate"
	}
	return "throughput"
}

// Change is one metric's step: the call, from the Hodges–Lehmann estimate
// of the relative shift between the two cells' counted windows and its
// distribution-free confidence interval (docs/statistics.md). A call is
// never shown without its interval.
type Change struct {
	// Call is gain, loss, same, undecided or invalid, read from the
	// interval alone (docs/statistics.md).
	Call stats.Call `json:"call"`
	// Size qualifies a gain or a loss: "at least" when the whole interval
	// lies past ± the minimum effect, "small" when it lies within it,
	// empty when it straddles it.
	Size stats.Size `json:"size,omitempty"`
	// MinEffectPct is the minimum effect the call was made against, in
	// percent.
	MinEffectPct float64 `json:"min_effect_pct,omitempty"`
	// EstimatePct is the estimated shift in percent (+12.5 = 12.5 % more);
	// 0 when the call is invalid.
	EstimatePct float64 `json:"estimate_pct"`
	// CILowPct and CIHighPct bound the interval in percent; null when
	// there are too few windows for a finite interval (or the call is
	// invalid).
	CILowPct  *float64 `json:"ci_low_pct"`
	CIHighPct *float64 `json:"ci_high_pct"`
	// Confidence is the interval's actual coverage: ≥ 1 − α, or ≥ 1 − 2α
	// for a same call (the interval same reads).
	Confidence float64 `json:"confidence,omitempty"`
	// change is a same call's interval at 1 − α, which it shows if it is
	// held undecided (holdUntilTheFirstLook); nil otherwise.
	change *stats.Shift
	// FromWindows and ToWindows are the two cells' counted windows.
	FromWindows int `json:"from_windows"`
	ToWindows   int `json:"to_windows"`
	// Unit names what FromWindows and ToWindows count when it is not
	// windows: "searches" for a capacity step.
	Unit string `json:"unit,omitempty"`
	// FromValues and ToValues are the values the test compared: one per
	// process (the geometric mean of its counted windows), so fewer than
	// the windows when a process served several (protocol repeat).
	FromValues int `json:"from_values,omitempty"`
	ToValues   int `json:"to_values,omitempty"`
	// P is the exact two-sided p-value of "no change", dual to the
	// interval (stats.Shift.P).
	P float64 `json:"p,omitempty"`
	// FamilyCalls and FamilySelected, when false calls were controlled
	// over the run (family: run), are how many calls the control covered
	// and how many it selected as gains or losses; a selected call's
	// interval is at the adjusted level FamilySelected·α ÷ FamilyCalls.
	FamilyCalls    int `json:"family_calls,omitempty"`
	FamilySelected int `json:"family_selected,omitempty"`
	// Pairs, for a paired design, is the number of rounds in which both
	// sides have a counted window: what the call used.
	Pairs int `json:"pairs,omitempty"`
	// WindowsNeeded, for an undecided call, is the number of windows per
	// side that would likely decide it (stats.MaxWindowsNeeded means more
	// than that); 0 otherwise or when it cannot be said.
	WindowsNeeded int `json:"windows_needed,omitempty"`
	// PairedSDPct, for a paired call with stats.MinPairsForSpread pairs or
	// more, is the step's paired noise in percent: the robust standard
	// deviation of the per-pair log-ratios its interval was built from
	// (stats.Verdict.PairedSD × 100). Absent otherwise.
	PairedSDPct *float64 `json:"paired_sd_pct,omitempty"`
	// Reason says why the call is what it is.
	Reason string `json:"reason"`
	// LowerIsBetter is set on a latency call: the estimate is the
	// latency's shift, and a rise is the loss.
	LowerIsBetter bool `json:"lower_is_better,omitempty"`
	// Detectable80Pct, on a call between runs, is the smallest true
	// change in per cent that such a comparison would call in 80 % of
	// repeats (its power), from its interval's width; 0 elsewhere.
	Detectable80Pct float64 `json:"detectable_80_pct,omitempty"`
}

// Bounded reports whether the change has a finite interval.
func (c Change) Bounded() bool { return c.CILowPct != nil && c.CIHighPct != nil }

// The route groups steps are summarised over.
const (
	GroupDatabase  = "database"
	GroupFramework = "framework-only"
)

// GroupStep summarises one step (From → To at one concurrency) over the
// cases of one route group: database routes and framework-only routes
// belong to different layers and are never pooled.
type GroupStep struct {
	Kind        string `json:"kind"`
	From        string `json:"from"`
	To          string `json:"to"`
	Concurrency int    `json:"concurrency"`
	Group       string `json:"group"`
	// Metric is the metric summarised: the run's headline (throughput
	// unless protocol calls: names another first).
	Metric string `json:"metric"`
	// Cases is how many cases the group has; Defined how many of their
	// calls are not invalid.
	Cases   int `json:"cases"`
	Defined int `json:"defined"`
	// MinPct, MedianPct and MaxPct describe the throughput estimates of
	// the defined calls.
	MinPct    float64 `json:"min_pct"`
	MedianPct float64 `json:"median_pct"`
	MaxPct    float64 `json:"max_pct"`
	// Calls counts the throughput calls of the group's cases.
	Calls map[stats.Call]int `json:"calls"`
	// Flagged counts the cases whose step has flagged counted windows
	// (Step.Flagged).
	Flagged int `json:"flagged"`
	// PairedSDPct is the median of the group's throughput calls' paired
	// noise (Change.PairedSDPct) in percent; absent when none has one.
	PairedSDPct *float64 `json:"paired_sd_pct,omitempty"`
}
