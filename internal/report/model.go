// Package report turns a results directory into reports: one model, built
// from the journal alone, and several renderers of it — a self-contained HTML
// page, Markdown tables, the model as JSON, and Go benchmark text that
// benchstat reads. Nothing here runs a benchmark; a report can be rebuilt from
// any results directory, finished, stopped or resumed.
package report

import "github.com/stackbench/stackbench/internal/analysis"

// ModelVersion is the version of the Model's JSON shape (report.json).
// It changes when a field is removed or changes meaning; added fields keep it.
// 3: a capacity row's capacity_rps is the median of its searches' and
// confirm_rps is gone (repeated capacity searches).
// 4: a threshold's median is its estimate, with its basis: a latency
// percentile is of all the cell's requests (pooled), not the median window's.
const ModelVersion = 4

// Model is everything a report shows, computed once from a journal. The
// renderers only format it: every figure, band and verdict is decided here.
type Model struct {
	ModelVersion int             `json:"model_version"`
	Header       analysis.Header `json:"header"`
	Cells        []analysis.Cell `json:"cells"`
	// LatencyCells are the latency windows' cells (analysis.LatencyInfo);
	// nil without them.
	LatencyCells []analysis.Cell      `json:"latency_cells,omitempty"`
	Steps        []analysis.Step      `json:"steps"`
	Groups       []analysis.GroupStep `json:"groups"`
	Boot         []BootRow            `json:"boot,omitempty"`
	Cost         *CostSection         `json:"cost,omitempty"`
	// Capacity is the capacity phase, when the plan has one (capacity.go).
	Capacity *CapacitySection `json:"capacity,omitempty"`
	// Profiling is the profiling phase, when the run had one
	// (profiling.go).
	Profiling *ProfilingSection `json:"profiling,omitempty"`
	// Thresholds are the plan's thresholds judged on every cell of their
	// case (thresholds.go).
	Thresholds []ThresholdCheck `json:"thresholds,omitempty"`
	Footer     Footer           `json:"footer"`

	// DX and Process are the developer-experience and process suites,
	// when the run measured them (dx.go, process.go).
	DX      *DXSection      `json:"dx,omitempty"`
	Process *ProcessSection `json:"process,omitempty"`
}

// BootRow is one stack's boot-suite results.
type BootRow struct {
	Stack string `json:"stack"`
	// Starts is the number of measured starts.
	Starts int `json:"starts"`
	// ColdStartMs summarises spawn → first 200 from the health path.
	ColdStartMs analysis.Spread `json:"cold_start_ms"`
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
