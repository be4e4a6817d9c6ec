package journal

// CapacityFigures is capacity.Figures as the journal records it:
// CapacityFiguresOf converts one, CapacityFigures.Capacity converts it back.
//
// capacity.Figures are a rate's measurements over one or more windows merged.
type CapacityFigures struct {
	Windows int `json:"windows"`
	// Overturned counts the failed windows at this rate that a repeat
	// overturned; they are not in these figures.
	Overturned      int                 `json:"overturned,omitempty"`
	DurationSeconds float64             `json:"duration_s"`
	ThroughputRPS   float64             `json:"throughput_rps"`
	LatencyMicros   CapacityPercentiles `json:"latency_us"`
	ErrorShare      float64             `json:"error_share"`
	UnfinishedShare float64             `json:"unfinished_share"`
	UnsentShare     float64             `json:"unsent_share"`
}

// CapacityPercentiles is capacity.Percentiles as the journal records it:
// CapacityPercentilesOf converts one, CapacityPercentiles.Capacity converts it back.
//
// capacity.Percentiles are latency figures in microseconds; SLO is the SLO's own
// percentile.
type CapacityPercentiles struct {
	P50  int64 `json:"p50"`
	P99  int64 `json:"p99"`
	P999 int64 `json:"p999"`
	SLO  int64 `json:"slo_percentile"`
	Max  int64 `json:"max"`
}

// CapacitySearchProbe is capacity.Probe as the journal records it:
// CapacitySearchProbeOf converts one, CapacitySearchProbe.Capacity converts it back.
//
// capacity.Probe is one load window of a search and its verdict.
type CapacitySearchProbe struct {
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
	LatencyMicros CapacityPercentiles `json:"latency_us"`
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
}

// CapacityReport is capacity.Report as the journal records it:
// CapacityReportOf converts one, CapacityReport.Capacity converts it back.
//
// capacity.Report is a search's outcome and, with its json tags, the versioned
// JSON output of `stackbench capacity -o json`.
type CapacityReport struct {
	SchemaVersion int `json:"schema_version"`
	// URL and Method name the target (set by the caller).
	URL                string      `json:"url,omitempty"`
	Method             string      `json:"method,omitempty"`
	SLO                CapacitySLO `json:"slo"`
	MaxErrorShare      float64     `json:"max_error_share"`
	MaxUnfinishedShare float64     `json:"max_unfinished_share"`
	MaxUnsentShare     float64     `json:"max_unsent_share"`
	MaxShortfall       float64     `json:"max_shortfall"`
	// MaxGeneratorWaitShare is the starvation limit, in seconds of CPU
	// wait per second of window.
	MaxGeneratorWaitShare float64 `json:"max_generator_wait_share"`
	Status                string  `json:"status"`
	// CapacityRPS is the confirmed rate: the highest rate found that met
	// the SLO and every limit in each of its confirmation windows. 0
	// unless Status is confirmed.
	CapacityRPS float64 `json:"capacity_rps"`
	// AtCapacity is measured at CapacityRPS, over its passing
	// confirmation windows merged; absent unless Status is confirmed.
	AtCapacity *CapacityFigures `json:"at_capacity,omitempty"`
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
	Probes []CapacitySearchProbe `json:"probes"`
}

// CapacitySLO is capacity.SLO as the journal records it:
// CapacitySLOOf converts one, CapacitySLO.Capacity converts it back.
//
// capacity.SLO is a latency objective: the Percentile (0–100, e.g. 99) of the
// coordinated-omission-corrected latency of successes must be at most
// Latency.
type CapacitySLO struct {
	Percentile float64 `json:"percentile"`
	// LatencyMicros is Latency in microseconds, for the JSON form (Search
	// sets it from Latency).
	LatencyMicros int64 `json:"latency_us"`
}
