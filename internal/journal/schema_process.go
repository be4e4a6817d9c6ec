package journal

import "time"

// ProcessResult is process.Result as the journal records it:
// ProcessResultOf converts one, ProcessResult.Process converts it back.
//
// process.Result is the whole suite.
type ProcessResult struct {
	Sizes    []int           `json:"sizes"`
	Commands []string        `json:"commands"`
	Warmup   int             `json:"warmup"`
	Rounds   int             `json:"rounds"`
	Samples  []ProcessSample `json:"samples"`
	Cells    []ProcessCell   `json:"cells"`
	// Calls compare each command with the first one at each size.
	Calls []ProcessCall `json:"calls"`
}

// ProcessSample is process.Sample as the journal records it:
// ProcessSampleOf converts one, ProcessSample.Process converts it back.
//
// process.Sample is one measured run.
type ProcessSample struct {
	Command string `json:"command"`
	Size    int    `json:"size"`
	Round   int    `json:"round"`
	// Seq is the run's position among all measured runs, from 0.
	Seq int `json:"seq"`
	// Wall is spawn → exit (the wait for the exit status included).
	Wall time.Duration `json:"wall_ns"`
	// Metrics are the figures the program printed (see ParseMetrics).
	Metrics  map[string]float64 `json:"metrics,omitempty"`
	ExitCode int                `json:"exit_code"`
	Error    string             `json:"error,omitempty"`
}

// ProcessCell is process.Cell as the journal records it:
// ProcessCellOf converts one, ProcessCell.Process converts it back.
//
// process.Cell is one command at one size.
type ProcessCell struct {
	Command string `json:"command"`
	Size    int    `json:"size"`
	// Wall is spawn → exit in nanoseconds.
	Wall ProcessSpread `json:"wall_ns"`
	// Metrics are the program's own figures, by name (unit in the name).
	Metrics map[string]ProcessSpread `json:"metrics,omitempty"`
	// Error is the first failure; the cell's figures are then left out.
	Error string `json:"error,omitempty"`
}

// ProcessSpread is process.Spread as the journal records it:
// ProcessSpreadOf converts one, ProcessSpread.Process converts it back.
//
// process.Spread summarises one figure of a cell in its own unit (nanoseconds for
// wall time, the metric's unit for a metric): the median is one run's
// figure (the lower middle for an even count), with quartiles and extremes.
type ProcessSpread struct {
	Median float64 `json:"median"`
	Q1     float64 `json:"q1"`
	Q3     float64 `json:"q3"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// RelSpread is (Max − Min) ÷ Median, 0 when the median is not positive.
	RelSpread float64 `json:"rel_spread"`
	N         int     `json:"n"`
}

// ProcessCall is process.Call as the journal records it:
// ProcessCallOf converts one, ProcessCall.Process converts it back.
//
// process.Call compares one command's wall times with the first command's at one
// size, with the calls the report's steps use (docs/statistics.md).
type ProcessCall struct {
	Size int    `json:"size"`
	From string `json:"from"`
	To   string `json:"to"`
	// Change is the Hodges–Lehmann estimate of the relative shift of the
	// wall times (−0.2 = 20 % faster); Defined is false when either cell
	// failed.
	Change  float64 `json:"change"`
	Defined bool    `json:"defined"`
	// Verdict is the call: gain (faster), loss (slower), same, undecided
	// or invalid; Detail the estimate and its interval in words.
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
}
