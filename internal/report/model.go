// Package report turns a results directory into reports: one model, built
// from the journal alone, and several renderers of it — a self-contained HTML
// page, Markdown tables, the model as JSON, and Go benchmark text that
// benchstat reads. Nothing here runs a benchmark; a report can be rebuilt from
// any results directory, finished, stopped or resumed.
package report

import (
	"time"

	"github.com/stackbench/stackbench/internal/journal"
)

// ModelVersion is the version of the Model's JSON shape (report.json).
// It changes when a field is removed or changes meaning; added fields keep it.
const ModelVersion = 1

// Model is everything a report shows, computed once from a journal. The
// renderers only format it: every figure, band and verdict is decided here.
type Model struct {
	ModelVersion int          `json:"model_version"`
	Header       Header       `json:"header"`
	Cells        []Cell       `json:"cells"`
	Steps        []Step       `json:"steps"`
	Groups       []GroupStep  `json:"groups"`
	Boot         []BootRow    `json:"boot,omitempty"`
	Cost         *CostSection `json:"cost,omitempty"`
	Footer       Footer       `json:"footer"`
}

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
	// Noise is the run's noise floor in throughput: throughput steps below
	// it are noise. NoisePerCPU is the same for throughput per CPU-second.
	Noise       NoiseFloor `json:"noise"`
	NoisePerCPU NoiseFloor `json:"noise_per_cpu"`
	// Alpha is the significance level of the U tests.
	Alpha float64 `json:"alpha"`
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
}

// CaseInfo names a case and says whether its route uses the database.
type CaseInfo struct {
	Name     string `json:"name"`
	Database bool   `json:"database"`
}

// NoiseFloor is the run's noise floor: the largest relative spread (max−min)
// ÷ median among the valid cells of the stack measured most.
type NoiseFloor struct {
	// Known is false when no cell had two windows to measure a spread;
	// then nothing is called noise.
	Known bool `json:"known"`
	// Spread is the floor as a fraction (0.04 = 4 %).
	Spread float64 `json:"spread"`
	// Stack is the stack whose cells set it, over Cells cells.
	Stack string `json:"stack,omitempty"`
	Cells int    `json:"cells"`
}

// The states of a cell.
const (
	// CellValid: at least one window passed validation.
	CellValid = "valid"
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
	// State is one of CellValid, CellInvalid, CellFailed, CellMissing.
	State string `json:"state"`
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
	// Counted is true when the window passed validation; Flags are the
	// validity flags it raised.
	Counted       bool           `json:"counted"`
	Flags         []journal.Flag `json:"flags,omitempty"`
	ThroughputRPS float64        `json:"throughput_rps"`
	PerCPUSecond  float64        `json:"per_cpu_second"`
	ServerCores   float64        `json:"server_cores"`
	Latency       Latency        `json:"latency_us"`
	RSSMeanBytes  int64          `json:"rss_mean_bytes"`
	RSSPeakBytes  int64          `json:"rss_peak_bytes"`
	// DBCores and GeneratorCores are the database's and the load
	// generator's CPU seconds per second of window; GeneratorWaitCores the
	// generator's seconds waiting for a CPU per second of window.
	DBCores            float64 `json:"db_cores"`
	GeneratorCores     float64 `json:"generator_cores"`
	GeneratorWaitCores float64 `json:"generator_wait_cores"`
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
	// Flagged lists the flags raised on the counted windows of either cell,
	// as "stack: flag ×windows" (contended, client_bound,
	// checkpoint_in_window): such windows count, so the change may describe
	// the host, the generator or the database as much as the step.
	Flagged []string `json:"flagged,omitempty"`
}

// The bands of a change (the same words as stats.Band).
const (
	BandNoise   = "noise"
	BandSmall   = "small"
	BandReal    = "real"
	BandInvalid = "invalid"
)

// Change is one metric's step: the relative change of the medians, its band,
// and the U test over the windows.
type Change struct {
	// Defined is false when either side is not valid; Pct is then 0.
	Defined bool `json:"defined"`
	// Pct is the change in percent (+12.5 = 12.5 % more).
	Pct  float64 `json:"pct"`
	Band string  `json:"band"`
	// Tested is true when the windows were enough for the U test to reach
	// the significance level at all; P and Significant are then meaningful.
	Tested      bool    `json:"tested"`
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
	// Verdict is the test's outcome in words ("too few windows …").
	Verdict string `json:"verdict"`
}

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
	// Cases is how many cases the group has; Defined how many of their
	// throughput changes are defined.
	Cases   int `json:"cases"`
	Defined int `json:"defined"`
	// MinPct, MedianPct and MaxPct describe the defined throughput changes.
	MinPct    float64 `json:"min_pct"`
	MedianPct float64 `json:"median_pct"`
	MaxPct    float64 `json:"max_pct"`
	// Bands counts the throughput steps per band.
	Bands map[string]int `json:"bands"`
	// Flagged counts the cases whose step has flagged counted windows
	// (Step.Flagged).
	Flagged int `json:"flagged"`
}

// BootRow is one stack's boot-suite results.
type BootRow struct {
	Stack string `json:"stack"`
	// Starts is the number of measured starts.
	Starts int `json:"starts"`
	// ColdStartMs summarises spawn → first 200 from the health path.
	ColdStartMs Spread `json:"cold_start_ms"`
	// FirstDBRequestMs is the median latency of the first database request
	// after the server was up, over the starts where it succeeded; zero
	// without a database. FirstDBNote says how many first requests failed.
	FirstDBRequestMs float64 `json:"first_db_request_ms"`
	FirstDBNote      string  `json:"first_db_note,omitempty"`
	// IdleRSSBytes is the median RSS 500 ms after the first response.
	IdleRSSBytes int64 `json:"idle_rss_bytes"`
	// Failed says why the boot suite could not measure the stack.
	Failed string `json:"failed,omitempty"`
}

// CostSection is the cost model's answer: machines and monthly price per
// stack, provider and sustained load, with the assumptions beside it.
type CostSection struct {
	// PricingDate is when the prices were read; Sources say where from.
	PricingDate string   `json:"pricing_date"`
	Currency    string   `json:"currency"`
	Sources     []string `json:"sources"`
	// Concurrency and Cases are the cells the model took its figures from.
	Concurrency int         `json:"concurrency"`
	Cases       []string    `json:"cases"`
	LoadsRPS    []int       `json:"loads_rps"`
	Inputs      []CostInput `json:"inputs"`
	Rows        []CostRow   `json:"rows"`
	Caveats     []string    `json:"caveats"`
}

// CostInput is what the cost model took from one stack's cells.
type CostInput struct {
	Stack string `json:"stack"`
	// RPSPerCore is the harmonic mean over the traffic mix of throughput
	// per core.
	RPSPerCore   float64 `json:"rps_per_core"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	// Problem says why no cost could be computed (for example invalid cells).
	Problem string `json:"problem,omitempty"`
}

// CostRow is the cheapest plan of one provider for one stack at one load.
type CostRow struct {
	Stack    string `json:"stack"`
	Provider string `json:"provider"`
	LoadRPS  int    `json:"load_rps"`
	// OK is false when no plan serves the load; Note then says why.
	OK         bool    `json:"ok"`
	Plan       string  `json:"plan,omitempty"`
	Machines   int     `json:"machines,omitempty"`
	MonthlyUSD float64 `json:"monthly_usd,omitempty"`
	// Kind is the plan's vCPU kind: dedicated, shared or burstable.
	Kind string `json:"kind,omitempty"`
	// Note is what the kind means for the figure when it is not dedicated,
	// or the reason there is no plan.
	Note string `json:"note,omitempty"`
}

// Footer is how the run was measured: the environment and the protocol, as
// labelled values in display order.
type Footer struct {
	Environment []Field `json:"environment"`
	Protocol    []Field `json:"protocol"`
}

// Field is one labelled value.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}
