package journal

import (
	"time"

	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
)

// Window flags: why a window is not a clean measurement. A window carries
// every flag that applies, each with a human reason in Window.Reasons.
const (
	// FlagInvalid: more than 1 % of requests failed (load.Result's
	// FailureShare: unfinished and unsent included), or the warm-up failed.
	FlagInvalid = "invalid"
	// FlagContended: the window's mean foreign CPU crossed the gate. A
	// final window has it when the retry budget was spent.
	FlagContended = "contended"
	// FlagClientBound: the load generator used 85 % or more of its cores.
	FlagClientBound = "client_bound"
	// FlagCheckpoint: a database checkpoint happened during the warm-up or
	// the window.
	FlagCheckpoint = "checkpoint_in_window"
	// FlagSuspended: the machine slept during the window. It is redone
	// up to the gate's retries (run.MaxSuspendRedos without a gate), then kept.
	FlagSuspended = "suspended"
	// FlagServerDied: the stack's process died or lost its port.
	FlagServerDied = "server_died"
	// FlagFailed: no measurement could be made (the server would not start,
	// died again after a restart, or the load generator gave no result);
	// the cell is failed.
	FlagFailed = "failed"
)

// Plan is the first record of a journal: what the run will do.
type Plan struct {
	RunID       string    `json:"run_id"`
	CreatedAt   time.Time `json:"created_at"`
	ToolVersion string    `json:"tool_version"`
	// SkipParity is true when the user ran without the parity gate; every
	// report says so in its first line.
	SkipParity bool      `json:"skip_parity"`
	Plan       plan.Plan `json:"plan"`
	// Args are the command-line arguments the run was started with (file
	// and protocol flags), so `stackbench run --resume DIR` needs nothing else.
	Args []string `json:"args"`
	// Cases describes the cases of the plan, so that reports know a custom
	// workload's database routes.
	Cases []Case `json:"cases"`
	// Database says where the fixture ran: "embedded" or "external" (the
	// URL itself is never journaled; it may hold a password).
	Database string `json:"database"`
}

// Case is one case of the plan as the reports need it.
type Case struct {
	Name     string `json:"name"`
	Method   string `json:"method"`
	Path     string `json:"path"`
	Database bool   `json:"database"`
	Inserts  bool   `json:"inserts"`
}

// Environment is the machine and software the run measured on.
type Environment struct {
	CapturedAt time.Time `json:"captured_at"`
	// Host is the machine, captured at the start of each invocation.
	Host host.Environment `json:"host"`
	// Postgres holds the server version and key settings.
	PostgresVersion  string            `json:"postgres_version,omitempty"`
	PostgresSettings map[string]string `json:"postgres_settings,omitempty"`
	// StackVersions holds each stack's `version` command output.
	StackVersions map[string]string `json:"stack_versions,omitempty"`
	// GateBaselineCores is the idle foreign CPU measured at start, and
	// GateThresholdCores the threshold windows were held to (0: no gate).
	GateBaselineCores  float64  `json:"gate_baseline_cores"`
	GateThresholdCores float64  `json:"gate_threshold_cores"`
	Warnings           []string `json:"warnings,omitempty"`
}

// Usage is one process tree's share of a window.
type Usage struct {
	CPUSeconds   float64 `json:"cpu_s"`
	Cores        float64 `json:"cores"`
	RSSMeanBytes int64   `json:"rss_mean_bytes,omitempty"`
	RSSPeakBytes int64   `json:"rss_peak_bytes,omitempty"`
	Processes    int     `json:"processes,omitempty"`
}

// DBStats is the database state around a window (trap T3, T4).
type DBStats struct {
	Checkpoints           int64 `json:"checkpoints"`
	OrdersRows            int64 `json:"orders_rows"`
	OrdersLiveTuples      int64 `json:"orders_live_tuples"`
	OrdersDeadTuples      int64 `json:"orders_dead_tuples"`
	OrdersSizeBytes       int64 `json:"orders_size_bytes"`
	OrdersAutovacuumCount int64 `json:"orders_autovacuum_count"`
}

// ProcessInfo says which server process served a window, and what it had
// served before (trap T9: memory per route is process history).
type ProcessInfo struct {
	PID int `json:"pid"`
	// Seq counts the processes started for this stack in the run, from 1.
	Seq int `json:"seq"`
	// CasesBefore lists the cases this process served before this window,
	// one entry per try: a redone try on the same process is in it.
	CasesBefore []string `json:"cases_before"`
	// BootSeconds is spawn → first 200 for this process.
	BootSeconds float64 `json:"boot_s"`
}

// Timings are the durations of a window's preparation, in seconds.
type Timings struct {
	CheckpointSeconds float64 `json:"checkpoint_s"`
	ResetSeconds      float64 `json:"reset_s,omitempty"`
	GateWaitSeconds   float64 `json:"gate_wait_s"`
	LoadSeconds       float64 `json:"load_s"`
}

// Window is one measured window: everything measured, and its verdict.
type Window struct {
	Key         string `json:"key"`
	Index       int    `json:"index"`
	Round       int    `json:"round"`
	Slot        int    `json:"slot"`
	Stack       string `json:"stack"`
	Case        string `json:"case"`
	Concurrency int    `json:"concurrency"`
	// Attempt counts tries of this key, from 1. Final is false for a try
	// that was redone (suspended, contended under budget, server died);
	// those are journaled too, so nothing measured is lost, but reports use
	// only the final try.
	Attempt int  `json:"attempt"`
	Final   bool `json:"final"`

	Flags   []string `json:"flags"`
	Reasons []string `json:"reasons,omitempty"`
	// Error says why no load result exists (FlagFailed).
	Error string `json:"error,omitempty"`

	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`

	Load    *load.Result `json:"load,omitempty"`
	Process ProcessInfo  `json:"process"`

	// Server, Database, Generator and Harness are measured over the
	// load generator's measured window, as the sampler saw it (WallSeconds).
	Server    Usage `json:"server"`
	Database  Usage `json:"database"`
	Generator Usage `json:"generator"`
	Harness   Usage `json:"harness"`

	// WallSeconds is the sampler's wall time: Server, Database, Generator
	// and Harness cores are their CPU seconds ÷ it. The sampler is opened
	// and closed at the generator's window boundaries, timed from the
	// timestamps of its events, so its snapshots come
	// SamplerStartLagSeconds after the load's window starts and
	// SamplerEndLagSeconds after it ends (each snapshot's time minus the
	// load's own boundary timestamp; see docs/methodology.md, "The sampled
	// window").
	WallSeconds            float64 `json:"wall_s"`
	SamplerStartLagSeconds float64 `json:"sampler_start_lag_s"`
	SamplerEndLagSeconds   float64 `json:"sampler_end_lag_s"`
	HostBusyCores          float64 `json:"host_busy_cores"`
	ForeignCores           float64 `json:"foreign_cores"`
	GateCores              float64 `json:"gate_cores"`
	SamplerCPUSeconds      float64 `json:"sampler_cpu_s"`
	Suspended              bool    `json:"suspended"`

	DBBefore *DBStats `json:"db_before,omitempty"`
	DBAfter  *DBStats `json:"db_after,omitempty"`
	Timings  Timings  `json:"timings"`

	// EnvironmentRef is the ordinal, from 1, of the environment record the
	// window ran under: each invocation (the first and every resume) adds one.
	EnvironmentRef int `json:"environment_ref"`
}

// HasFlag reports whether the window carries flag.
func (w *Window) HasFlag(flag string) bool {
	for _, f := range w.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// Valid reports whether the window is a measurement reports may use as a
// number: it has a load result and is neither invalid nor failed.
func (w *Window) Valid() bool {
	return w.Load != nil && !w.HasFlag(FlagInvalid) && !w.HasFlag(FlagFailed)
}

// Boot is one stack's cold starts from the boot suite.
type Boot struct {
	Stack string `json:"stack"`
	// Starts are the measured cold starts in the order they ran.
	Starts []BootStart `json:"starts"`
	Error  string      `json:"error,omitempty"`
}

// BootStart is one cold start.
type BootStart struct {
	// Order is the start's position in the interleaved sequence.
	Order int `json:"order"`
	// ReadySeconds is spawn → first 200 from the health path.
	ReadySeconds float64 `json:"ready_s"`
	// FirstDBRequestSeconds is the latency of the first request on the
	// fresh process: a database route (the workload's first case when it
	// has none; see boot.FirstRequestCase).
	FirstDBRequestSeconds float64 `json:"first_db_request_s,omitempty"`
	// FirstOK is false when the first request failed or got an unexpected
	// status (FirstError says which); its latency is then not a figure.
	FirstOK    bool   `json:"first_ok"`
	FirstError string `json:"first_error,omitempty"`
	// IdleRSSBytes is the tree's RSS 500 ms after the first 200.
	IdleRSSBytes int64 `json:"idle_rss_bytes"`
}

// Parity is the parity gate's outcome for the run.
type Parity struct {
	Passed   bool          `json:"passed"`
	Skipped  bool          `json:"skipped"`
	Stacks   []ParityStack `json:"stacks"`
	Warnings []string      `json:"warnings,omitempty"`
	Failures []string      `json:"failures,omitempty"`
}

// ParityStack is one stack's check counts.
type ParityStack struct {
	Stack  string `json:"stack"`
	Checks int    `json:"checks"`
	Failed int    `json:"failed"`
}

// Event is something that happened during the run that a reader should
// know: a resume, a stack restart, a failed cell, an interruption.
type Event struct {
	Time  time.Time `json:"time"`
	Level string    `json:"level"` // "info" or "warning"
	Stack string    `json:"stack,omitempty"`
	Msg   string    `json:"msg"`
}
