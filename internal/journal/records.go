package journal

import (
	"slices"
	"time"

	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
)

// Flag is a window flag: why a window is not a clean measurement. A window
// carries every flag that applies, each with a human reason in
// Window.Reasons that starts with the flag ("contended: …").
type Flag string

// The window flags, as written in the journal.
const (
	// FlagInvalid: more than 1 % of requests failed (load.Result's
	// FailureShare: unfinished and unsent included), or more than 1 % of
	// the warm-up's completed requests failed. A warm-up in which nothing
	// completed yet has not failed (a slow route).
	FlagInvalid Flag = "invalid"
	// FlagNotSteady: the warm-up reached its cap before its throughput
	// was steady (trap T19; load.WarmupRule). The window is measured and
	// counted: on a noisy host a warm server's slices can disagree for a
	// while, and dropping each such window would leave its cell short one
	// by one. Like every flag it weighs in the cell's majority rule (more
	// than a quarter of a cell's windows flagged: the cell is
	// insufficient).
	FlagNotSteady Flag = "not_steady"
	// FlagTrend: the window's second half served clearly more (or fewer)
	// requests than its first (load.Trend): still warming up, or slowing
	// down. Counted, like not_steady.
	FlagTrend Flag = "trend"
	// FlagContended: the window's mean foreign CPU crossed the gate. A
	// final window has it when the retry budget was spent.
	FlagContended Flag = "contended"
	// FlagClientBound: the load generator used 85 % or more of its cores.
	FlagClientBound Flag = "client_bound"
	// FlagClientStarved: the load generator waited for a CPU longer than
	// run.MaxGeneratorWaitShare of its own CPU time: it shared its cores
	// with the server and the database and could not send as it meant to.
	FlagClientStarved Flag = "client_starved"
	// FlagHostSlow: the host-speed probe around the window ran more than
	// run.HostSlowShare slower than the run's reference: the machine
	// itself was slow (trap T18). Redone like a contended window, then
	// kept.
	FlagHostSlow Flag = "host_slow"
	// FlagCheckpoint: a database checkpoint happened during the warm-up or
	// the window.
	FlagCheckpoint Flag = "checkpoint_in_window"
	// FlagSuspended: the machine slept during the window. It is redone
	// up to the gate's retries (run.MaxSuspendRedos without a gate), then kept.
	FlagSuspended Flag = "suspended"
	// FlagServerDied: the stack's process died or lost its port.
	FlagServerDied Flag = "server_died"
	// FlagFailed: no measurement could be made (the server would not start,
	// died again after a restart, or the load generator gave no result);
	// the cell is failed.
	FlagFailed Flag = "failed"
)

// Reason writes why the flag was raised as Window.Reasons holds it:
// "flag: why".
func (f Flag) Reason(why string) string { return string(f) + ": " + why }

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
	// RunDatabase begins the names of the run's own databases, one per
	// stack (RunDatabase_1, _2, … in the plan's order): distinct per run,
	// so runs on one server never meet, and journaled so that a resume
	// makes its copies under the same names. Empty in journals written
	// before it: those runs used "stackbench_run".
	RunDatabase string `json:"run_database,omitempty"`
}

// Case is one case of the plan as the reports need it.
type Case struct {
	Name     string `json:"name"`
	Method   string `json:"method"`
	Path     string `json:"path"`
	Database bool   `json:"database"`
	Inserts  bool   `json:"inserts"`
	// Variants is how many distinct requests the load cycles over, as the
	// plan counts them (a templated case's; 0 or 1: one fixed request).
	Variants int `json:"variants,omitempty"`
	// CallRoutes is true for a mix whose routes' steps are called in the
	// run's false-call family (mix: {call_routes: true}).
	CallRoutes bool `json:"call_routes,omitempty"`
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
	// GateBaselineCores is the foreign CPU of the host at rest measured at
	// start (a low quantile of short steps; GateBaselineMeanCores is their
	// mean), and GateThresholdCores the threshold windows were held to
	// (0: no gate). GateBusyAtStart is true when the host was still busy
	// after the wait for quiet, so the gate is the absolute one (T15).
	GateBaselineCores     float64 `json:"gate_baseline_cores"`
	GateBaselineMeanCores float64 `json:"gate_baseline_mean_cores,omitempty"`
	GateThresholdCores    float64 `json:"gate_threshold_cores"`
	GateBusyAtStart       bool    `json:"gate_busy_at_start,omitempty"`
	// ProbeReferenceMs is the host-speed probe's reference at start: the
	// median time of its fixed work (journal.Probe).
	ProbeReferenceMs float64 `json:"probe_reference_ms,omitempty"`
	// AffinityCPUs is the harness's CPU affinity mask ("0-7"), from which
	// placement: lanes draws its lanes; the plan's protocol holds the
	// lanes themselves, each window what its processes read back (CPUs).
	AffinityCPUs string   `json:"affinity_cpus,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
}

// CPUs are the CPU lists ("0-3") the processes of a window were allowed
// to run on, read back from /proc (Cpus_allowed_list, the union over
// every thread of every process of the party's tree): what placement:
// lanes actually did. Database is empty when the server is not on this
// host or its tree could not be found.
type CPUs struct {
	Server    string `json:"server"`
	Database  string `json:"database,omitempty"`
	Generator string `json:"generator"`
}

// Usage is one process tree's share of a window.
type Usage struct {
	CPUSeconds   float64 `json:"cpu_s"`
	Cores        float64 `json:"cores"`
	RSSMeanBytes int64   `json:"rss_mean_bytes,omitempty"`
	RSSPeakBytes int64   `json:"rss_peak_bytes,omitempty"`
	Processes    int     `json:"processes,omitempty"`
	// FirstHalfCPUSeconds and SecondHalfCPUSeconds split CPUSeconds at
	// the window's middle (proc.GroupStats); 0 where not sampled.
	FirstHalfCPUSeconds  float64 `json:"first_half_cpu_s,omitempty"`
	SecondHalfCPUSeconds float64 `json:"second_half_cpu_s,omitempty"`
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

	Flags   []Flag   `json:"flags"`
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
	// IdleServers sums the other stacks' processes that were up and idle
	// during the window (an interleaved round keeps each stack's process
	// up between its windows); nil when there were none. Theirs is not
	// foreign CPU.
	IdleServers *Usage `json:"idle_servers,omitempty"`
	// Services sums the process trees listening on the serving stack's
	// services: ports (its own database, a cache) during the window; nil
	// when it names none. Theirs is not foreign CPU either.
	Services *Usage `json:"services,omitempty"`
	// DatabaseOwn is the part of Database that the serving stack's own
	// backends used: the postmaster's children whose title names the
	// stack's database (each stack has its own copy in a run), measured
	// when the database runs on this machine; nil otherwise. Database
	// less it is the server's background work (autovacuum, the
	// checkpointer, other stacks' backends). Cost counts it alone.
	DatabaseOwn *Usage `json:"database_own,omitempty"`

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
	// ForeignCores is the larger of ForeignProcessCores and
	// ForeignTickCores (proc.WindowStats): the foreign CPU the gate
	// judges. Both parts are 0 in journals from before they existed, and
	// for a window whose server ran on another host (its foreign CPU is
	// then that host's busy ticks minus the server's).
	ForeignCores        float64 `json:"foreign_cores"`
	ForeignProcessCores float64 `json:"foreign_process_cores,omitempty"`
	ForeignTickCores    float64 `json:"foreign_tick_cores,omitempty"`
	GateCores           float64 `json:"gate_cores"`
	// GateFromPrevious is true when the gate did not measure before this
	// try because the window just before it ended quiet less than a second
	// earlier (run.GateFreshness).
	GateFromPrevious  bool    `json:"gate_from_previous,omitempty"`
	SamplerCPUSeconds float64 `json:"sampler_cpu_s"`
	Suspended         bool    `json:"suspended"`
	// Probe is the host-speed probe around the window (trap T18): nil in
	// journals written before it existed.
	Probe *Probe `json:"probe,omitempty"`
	// CPUs are the CPUs each party ran on, read back from /proc when the
	// generator had started, under placement: lanes; nil with shared.
	CPUs *CPUs `json:"cpus,omitempty"`

	DBBefore *DBStats `json:"db_before,omitempty"`
	DBAfter  *DBStats `json:"db_after,omitempty"`
	Timings  Timings  `json:"timings"`

	// EnvironmentRef is the ordinal, from 1, of the environment record the
	// window ran under: each invocation (the first and every resume) adds one.
	EnvironmentRef int `json:"environment_ref"`

	// ServerHost names the host of hosts: the server ran on, which also
	// measured Server, HostBusyCores and ForeignCores; "" for this
	// machine (and in journals written before roles: ran anywhere else).
	ServerHost string `json:"server_host,omitempty"`
	// DatabaseHost names the host of hosts: the embedded database ran on,
	// which measured Database; "" for this machine.
	DatabaseHost string `json:"database_host,omitempty"`
	// Generators are the load generators' own parts of Load when the load
	// came from hosts of hosts: (roles: generators:), one per host in file
	// order; Load is their merge (counts summed, histograms merged). Nil
	// when the generator ran on this machine.
	Generators []GeneratorPart `json:"generators,omitempty"`
}

// GeneratorPart is what one generator host measured of a window.
type GeneratorPart struct {
	// Host is the generator's host in hosts:.
	Host        string  `json:"host"`
	Connections int     `json:"connections"`
	RateRPS     float64 `json:"rate_rps,omitempty"`
	Attempts    int64   `json:"attempts"`
	Successes   int64   `json:"successes"`
	// Failures are its failed requests by class (load.Result.Errors).
	Failures map[string]int64 `json:"failures,omitempty"`
	Unsent   int64            `json:"unsent,omitempty"`
	// ClientBound is this generator's own starvation verdict: the window
	// is client-bound when any generator was.
	ClientBound bool `json:"client_bound"`
	// CPUSeconds is the generator's own CPU over its window.
	CPUSeconds float64 `json:"cpu_s"`
	// MeasureStartUnixNano and MeasureEndUnixNano are its window's
	// boundaries on the coordinator's clock (the host's minus its offset).
	MeasureStartUnixNano int64 `json:"measure_start_unix_ns"`
	MeasureEndUnixNano   int64 `json:"measure_end_unix_ns"`
	// ClockOffsetSeconds and ClockBoundSeconds are the host's clock offset
	// (its clock minus ours) and the bound of its error, as measured when
	// the session opened.
	ClockOffsetSeconds float64 `json:"clock_offset_s"`
	ClockBoundSeconds  float64 `json:"clock_bound_s"`
	// LatencyHist is its own latency histogram, encoded as in load.Result.
	LatencyHist string `json:"latency_hist"`
}

// Probe is a fixed-work CPU probe timed just before a window's warm-up and
// just after its drain, against the run's reference (the median of the
// probes at the start of the invocation). A host that slowed down for a
// while, with no foreign process to see, takes longer for the same work.
type Probe struct {
	BeforeMs    float64 `json:"before_ms"`
	AfterMs     float64 `json:"after_ms"`
	ReferenceMs float64 `json:"reference_ms"`
}

// SlowerShare is how much slower than the reference the slower of the two
// probes ran, as a fraction (0.2 = 20 % slower); negative when faster.
func (p Probe) SlowerShare() float64 {
	if p.ReferenceMs <= 0 {
		return 0
	}
	return max(p.BeforeMs, p.AfterMs)/p.ReferenceMs - 1
}

// HasFlag reports whether the window carries flag.
func (w *Window) HasFlag(flag Flag) bool { return slices.Contains(w.Flags, flag) }

// Valid reports whether the window is a measurement reports may use as a
// number: it has a load result, is neither invalid nor failed, and was
// not disturbed by the host (contended, suspended or host_slow, kept after
// the retry budget: such a window measures the host as much as the stack,
// trap T5, T7 and T18), and, for a latency window, kept up with its
// offered rate (FlagBehind). Flags that describe the measurement itself
// (client_bound, client_starved, checkpoint_in_window) leave it counted;
// the report's cell-majority rule weighs them.
func (w *Window) Valid() bool {
	if w.Load == nil {
		return false
	}
	for _, f := range []Flag{FlagInvalid, FlagFailed, FlagContended, FlagSuspended, FlagHostSlow, FlagBehind} {
		if w.HasFlag(f) {
			return false
		}
	}
	return true
}

// Boot is one stack's cold starts from the boot suite.
type Boot struct {
	Stack string `json:"stack"`
	// Starts are the measured cold starts in the order they ran.
	Starts []BootStart `json:"starts"`
	// Error says why the stack could not start in the suite, which ended
	// there (no starts are kept then).
	Error string `json:"error,omitempty"`
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
	// Relaxed are the rules the stack's passing checks broke that were
	// relaxed for it (a tfb stack's batched writes, its tfb: relax:);
	// empty when none, and in journals from before it.
	Relaxed []ParityRelaxed `json:"relaxed,omitempty"`
}

// ParityRelaxed is one relaxed rule a passing check broke.
type ParityRelaxed struct {
	Case   string `json:"case"`
	Check  string `json:"check"`
	Rule   string `json:"rule"`
	Detail string `json:"detail"`
}

// Level is how much an Event matters to a reader.
type Level string

// The levels of events.
const (
	// LevelInfo is news: a resume, a restart that worked.
	LevelInfo Level = "info"
	// LevelWarning is something a reader of the results must know; reports
	// list every warning.
	LevelWarning Level = "warning"
)

// Event is something that happened during the run that a reader should
// know: a resume, a stack restart, a failed cell, an interruption.
type Event struct {
	Time  time.Time `json:"time"`
	Level Level     `json:"level"`
	Stack string    `json:"stack,omitempty"`
	Msg   string    `json:"msg"`
}

// Round is an adaptive run's decision after a look (rounds: auto): either
// an extra round of windows, journaled before any of them is measured,
// with the steps that were undecided; or, with Stop set, the end of the
// adaptive rounds and why. A resumed run appends Windows to its plan and
// continues the same rule; a report counts them as planned.
type Round struct {
	Time time.Time `json:"time"`
	// Round is the round the windows belong to, or the last round measured
	// when Stop is set.
	Round int `json:"round"`
	// Undecided names the steps whose throughput call was undecided at
	// the look ("a → b user c=32"); Alpha is the level each look used.
	Undecided []string `json:"undecided,omitempty"`
	Alpha     float64  `json:"alpha"`
	// Windows are the extra round's windows, in run order.
	Windows []plan.Window `json:"windows,omitempty"`
	// Stop says why the adaptive rounds ended: every step decided, the
	// most rounds, or the budget.
	Stop string `json:"stop,omitempty"`
	// ClockStop is true when the rounds ended because the windows' actual
	// time would pass the budget: a stop set by the clock (a slow or busy
	// host), not by any step's data, so the run's last look moves to the
	// round it stopped after (docs/statistics.md).
	ClockStop bool `json:"clock_stop,omitempty"`
}
