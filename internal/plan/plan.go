// Package plan reads a comparison file (stackbench.yaml), validates all of it
// up front, applies profiles and overrides, and lays out the run matrix.
//
// Load parses and validates a file and returns a *File. Every problem found is
// reported at once, in a *ConfigError whose Problems each carry file, line and
// column and say what to write instead. The parity gate and the boot suite use
// File.Stacks, File.Workload and File.Database directly.
//
// File.Resolve applies, in increasing order of precedence, the profile (quick,
// standard or full), the file's protocol section and the command line's
// Overrides, and returns a *Plan: the resolved Protocol, the selected stacks
// and cases, and Windows, the ordered list of measured windows. Each Window
// has a stable Key ("r2/gin/order/c100") that a resumed run uses to skip what
// is already journaled, and Plan.Fingerprint changes whenever anything that
// affects the matrix or its measurement changes, so a resume can refuse a
// changed plan. Plan.Estimate gives a rough duration.
//
// StarterYAML is the annotated file `stackbench init` writes. The user's
// manual for the format is docs/config.md.
package plan

import (
	"time"

	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/workload"
)

// DefaultHealth is the path polled until a stack answers 200, unless the
// stack or a custom workload names another.
const DefaultHealth = "/health"

// Embedded is the value of File.Database that asks for a throwaway
// PostgreSQL cluster made with the machine's own initdb.
const Embedded = "embedded"

// File is a validated comparison file.
type File struct {
	// Path is the file's absolute path; Name is how messages show it.
	Path string
	Name string
	// Workload is the built-in or custom workload, with the `me` token
	// signed with JWTSecret. Custom is true when the file defines it.
	Workload *workload.Workload
	Custom   bool
	// Scenario is a custom workload's setup steps and templated requests;
	// nil when it has neither.
	Scenario *scenario.Scenario
	// Fixture is a custom workload's own database (workload.database);
	// nil for the built-in seed or none.
	Fixture *DatabaseFixture
	// Database is Embedded or a postgres:// URL (environment variables expanded).
	Database string
	// JWTSecret is passed to stacks as JWT_SECRET.
	JWTSecret string
	// Profile is the profile the file names; "standard" when it names none.
	Profile string
	// Stacks in step order. A file with a process suite may have none.
	Stacks []Stack
	// Process is the process suite (the process: section), nil when absent.
	Process *ProcessSuite
	// Warnings are things that are valid but probably not what was meant.
	Warnings []Problem
	// Hosts are the machines of the hosts: section, in file order, and
	// Roles which of them runs the server, the database and the load
	// generators (docs/scale-out.md); both empty without hosts:, when
	// everything runs on this machine.
	Hosts []Host
	Roles *Roles

	protocol Overrides // the file's protocol section
	// capacity is the file's capacity section, nil when absent.
	capacity *capacitySection
	// thresholds is the file's thresholds section, nil when absent.
	thresholds *thresholdsSection
}

// Stack is one server configuration under test.
type Stack struct {
	Name string `json:"name"`
	// Dir is absolute; Build and Start run in it with a shell.
	Dir   string `json:"dir"`
	Build string `json:"build,omitempty"`
	Start string `json:"start"`
	// Env is added to the variables the harness sets (PORT, DATABASE_URL,
	// JWT_SECRET, NODE_ENV, STACKBENCH_WORKLOAD); EnvOrder lists its keys in
	// file order.
	Env      map[string]string `json:"env,omitempty"`
	EnvOrder []string          `json:"-"`
	// Health is the path polled until the first 200, Base included.
	Health string `json:"health"`
	// Base is the stack's base path ("/api", the base: key): every case,
	// setup step, health check and parity request goes under it (BaseURL).
	// Empty for a stack served at the root.
	Base string `json:"base,omitempty"`
	// BootTimeout bounds spawn → first 200 on Health; 0 means the
	// harness's default (60 s).
	BootTimeout time.Duration `json:"boot_timeout,omitempty"`
	// Version is a command whose output is recorded with the results.
	Version string `json:"version,omitempty"`
	// From names the stack this one changes one layer of; its step is
	// From → this stack. Empty means the previous stack in the file. The
	// steps form a tree from the first stack.
	From string `json:"from,omitempty"`
	// DX is what the developer-experience suite measures (the dx: key);
	// nil when the stack has none.
	DX *DX `json:"dx,omitempty"`
	// Git, when set, is the revision of Dir's repository the stack runs:
	// the run builds and starts it in a detached worktree of that commit
	// (stack.Checkout), and Dir is then the same directory inside it.
	Git *GitRevision `json:"git,omitempty"`
	// Services are the TCP ports of processes the stack relies on and that
	// the run does not start (its own database, a Redis): whoever listens
	// on them is measured with the stack's windows, never as foreign CPU.
	Services []int `json:"services,omitempty"`
	// Pprof is the path under which the server serves Go's net/http/pprof
	// ("/debug/pprof"); empty when it serves none. The profiling phase
	// reads the CPU and allocation profiles there.
	Pprof string `json:"pprof,omitempty"`
	// Runtime is what runs the stack's code (Runtimes): a JIT runtime
	// gets the protocol's longer warm-up (Protocol.WarmupFor), and the
	// profiling phase names the JIT frames of node and python for perf.
	// Empty when the file does not say.
	Runtime string `json:"runtime,omitempty"`
	// Container is set when the stack runs in a container (the
	// container: key); Start then holds the container's arguments, if any.
	Container *Container `json:"container,omitempty"`
	// Database is the stack's own database (the database: key): its
	// schema, migrations and seed build a template of its own, which the
	// stack's copies come from instead of the workload's; its reset runs
	// before its inserting windows. Nil when it uses the workload's.
	// Journaled through its hash in the plan's fingerprint.
	Database *DatabaseFixture `json:"-"`
	// Wire is how the load reaches the stack (protocol:, tls:, streams:,
	// proto:); its zero value is HTTP/1.1 in cleartext.
	Wire Wire `json:"wire,omitzero"`
	// TFB is what the stack says of itself as a TechEmpower entry (the
	// tfb: key): its labels and relaxed rules; nil when it says nothing.
	TFB *TFBEntry `json:"tfb,omitempty"`
	// Paths are the tfb workload's cases at the stack's own URLs (the
	// paths: key; workload.TFBOptions.Paths), under Base; File.WorkloadOf
	// applies them. Nil: every case at the workload's path.
	Paths map[string]string `json:"paths,omitempty"`
	// Line is where the stack starts in the file.
	Line int `json:"-"`
}

// Stack returns the stack with the given name.
func (f *File) Stack(name string) (Stack, bool) {
	for _, s := range f.Stacks {
		if s.Name == name {
			return s, true
		}
	}
	return Stack{}, false
}

// StackNames returns the stacks' names in step order.
func (f *File) StackNames() []string {
	names := make([]string, len(f.Stacks))
	for i, s := range f.Stacks {
		names[i] = s.Name
	}
	return names
}

// Fresh values: a fresh server process per round (serving all its cases) or
// per case.
const (
	FreshRound = "round"
	FreshCase  = "case"
)

// Layouts of a round.
const (
	// LayoutInterleaved: the stacks take turns case by case within a round
	// (in a balanced order: OrderWilliams, layRound), each stack's
	// process of the round alive from its first window to its last, so
	// that the two windows of a step in a round are close in time; steps
	// are then compared round by round (a paired design).
	LayoutInterleaved = "interleaved"
	// LayoutGrouped: each stack serves all its cases in a row, one stack
	// after the other (the published protocol); steps are compared as two
	// independent samples.
	LayoutGrouped = "grouped"
)

// Protocol is how every stack is measured.
type Protocol struct {
	Profile     string `json:"profile"`
	Concurrency []int  `json:"concurrency"`
	// Warmup is the warm-up's floor: a window starts no sooner after the
	// load does. WarmupMax is its cap: in between, the warm-up ends once
	// throughput is steady (load.WarmupRule); at the cap the window is
	// measured and flagged not_steady. WarmupMax at or below Warmup (0 in
	// journals written before it) is a fixed warm-up of Warmup.
	Warmup    time.Duration `json:"warmup_ns"`
	WarmupMax time.Duration `json:"warmup_max_ns,omitempty"`
	// JITWarmup and JITWarmupMax raise the floor and the cap for stacks
	// whose runtime compiles while it serves (Stack.Runtime; JITRuntime):
	// each stack gets the larger of the two floors and of the two caps.
	JITWarmup    time.Duration `json:"jit_warmup_ns,omitempty"`
	JITWarmupMax time.Duration `json:"jit_warmup_max_ns,omitempty"`
	Window       time.Duration `json:"window_ns"`
	// Timeout is the load generator's client timeout.
	Timeout time.Duration `json:"timeout_ns"`
	// Rounds is the number of rounds; with Adaptive, the minimum.
	Rounds int `json:"rounds"`
	// Adaptive is rounds: auto. After Rounds rounds the run measures
	// further rounds, each only of the cells that an undecided step needs,
	// until every step is decided, MaxRounds is reached or the windows'
	// estimated time would pass Budget (see docs/statistics.md, "Adaptive
	// rounds").
	Adaptive  bool          `json:"adaptive,omitempty"`
	MaxRounds int           `json:"max_rounds,omitempty"`
	Budget    time.Duration `json:"budget_ns,omitempty"`
	// BudgetRounds, with Adaptive, is how many whole rounds the Budget
	// affords by the plan's own estimate (EstimateWindows), worked out when
	// the plan is made: the run stops there even when max_rounds is
	// higher, and α is split over the looks up to it (LastRound).
	BudgetRounds int `json:"budget_rounds,omitempty"`
	// Layout is how a round orders its windows: LayoutInterleaved or
	// LayoutGrouped (also when empty, as in journals written before it).
	Layout string `json:"layout,omitempty"`
	// Order is how the stacks of a round are ordered: OrderWilliams for
	// every plan resolved now, OrderRotation (empty) in journals written
	// before it was recorded, whose windows were laid out in that order.
	// Being part of the protocol, it is part of the fingerprint.
	Order string `json:"order,omitempty"`
	// Repeat is how many windows each process serves of each of its cells
	// in a round (1 when 0): with 2 or more the report can tell the
	// spread within a process from the spread between processes.
	// Interleaved, the repeats alternate direction (A B B A).
	Repeat int `json:"repeat,omitempty"`
	// Cases in the order each process serves them; empty in a profile
	// means every case of the workload.
	Cases []string `json:"cases"`
	Fresh string   `json:"fresh"`
	// BootStarts is the number of measured cold starts per stack; 0 skips
	// the boot suite.
	BootStarts int  `json:"boot_starts"`
	Gate       Gate `json:"gate"`
	// MinEffect is the smallest relative shift a step calls a gain or a
	// loss (0.05 = 5 %); an interval within ± it is called same.
	MinEffect float64 `json:"min_effect"`
	// Family is how false calls are controlled: FamilyRun (also when
	// empty) over all of the run's step-metric calls at once, FamilyStep
	// for each call on its own.
	Family string `json:"family,omitempty"`
	// Spread draws ids, pages and token subjects from a deterministic
	// sequence over all users instead of the fixed requests.
	Spread bool `json:"spread"`
	// Placement is where the generator, the server and the database run:
	// shared CPUs or lanes of their own, resolved on the host that
	// resolved the plan.
	Placement Placement `json:"placement"`
	// Profiling adds the profiling phase (profiling: on, --profiling):
	// after the measured rounds, one extra window per cell with sampling
	// on, never counted among the calls' windows (docs/profiles.md).
	Profiling bool `json:"profiling,omitempty"`
	// Latency adds the latency windows (latency: {rate: …},
	// --latency-rate): right after each cell's closed-loop window of a
	// round (from LatencyRate.FirstRound), one open-loop window on the
	// same process at one offered rate for every stack of the case and
	// concurrency; steps call their p50 and p99 (latency.go). Nil without.
	Latency *LatencyRate `json:"latency,omitempty"`
	// Calls are the metrics each step is called on, the headline first
	// (calls:, --calls; MetricThroughput …); empty calls every metric the
	// run measures (CalledMetrics). Only these join the false-call family.
	Calls []string `json:"calls,omitempty"`
	// LatencyRoundOne, with a latency share in an interleaved layout with
	// a fresh process per round, measures round 1's latency windows too:
	// at the end of round 1, once every closed-loop window that fixes
	// the rate is in, each on its stack's process of the round (all are
	// still up), in the round's order. Its calls then get a pair in every
	// round. Journals written before it (false) start such windows in
	// round 2.
	LatencyRoundOne bool `json:"latency_round_one,omitempty"`
	// LatencyRateRounds is how many rounds' closed-loop windows fix a
	// latency share's rate (RateRounds): DefaultRateRounds when the run
	// has more rounds than that, else 1; 0 in journals written before it
	// (read as 1).
	LatencyRateRounds int `json:"latency_rate_rounds,omitempty"`
	// Spending is how an adaptive run spends α over its looks:
	// SpendingFinal (the last look keeps most of it, stats.LooksLagged)
	// for every adaptive plan made since; empty in journals written
	// before it, whose looks each had an equal share
	// (stats.LooksLaggedEqual), so that they are re-read as they ran.
	Spending string `json:"spending,omitempty"`
	// ClosedLoop is ClosedLoopFirst when the closed-loop windows are
	// measured in the rate rounds only (closed_loop: first, the default when the
	// run calls only metrics of the latency windows): from round 2 a
	// cell's round is its latency window alone, on a process warmed at
	// the offered rate (FixedRateWarmup). Empty: every round
	// (closed_loop: every, and journals written before it).
	ClosedLoop string `json:"closed_loop,omitempty"`
}

// WarmupFor is the warm-up floor and cap of a stack's windows: the
// protocol's, raised to JITWarmup and JITWarmupMax for a JIT runtime;
// floor == max means a fixed warm-up.
func (p Protocol) WarmupFor(s Stack) (floor, max time.Duration) {
	floor, max = p.Warmup, p.WarmupMax
	if JITRuntime(s.Runtime) {
		floor, max = maxDuration(floor, p.JITWarmup), maxDuration(max, p.JITWarmupMax)
	}
	return floor, maxDuration(max, floor)
}

func maxDuration(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

// The families false calls are controlled over (docs/statistics.md).
const (
	FamilyRun  = "run"
	FamilyStep = "step"
)

// CallFamily is Family, FamilyRun when empty.
func (p Protocol) CallFamily() string {
	if p.Family == "" {
		return FamilyRun
	}
	return p.Family
}

// Repeats is Repeat, at least 1.
func (p Protocol) Repeats() int { return max(1, p.Repeat) }

// Interleaved reports whether rounds interleave the stacks (and steps are
// compared in pairs by round).
func (p Protocol) Interleaved() bool { return p.Layout == LayoutInterleaved }

// LastRound is the last round an adaptive run may measure: MaxRounds, or
// fewer when the budget affords fewer (BudgetRounds). For fixed rounds it
// is Rounds.
func (p Protocol) LastRound() int {
	if !p.Adaptive {
		return p.Rounds
	}
	if p.BudgetRounds > 0 && p.BudgetRounds < p.MaxRounds {
		return max(p.Rounds, p.BudgetRounds)
	}
	return p.MaxRounds
}

// Gate modes: threshold from the idle baseline measured at start, an
// explicit number of cores, or no gate.
const (
	GateAuto  = "auto"
	GateCores = "cores"
	GateOff   = "off"
)

// Gate is the contention gate: before each window the run waits (at most
// Wait) for foreign CPU under the threshold, and redoes a window whose mean
// foreign CPU crossed it, at most Retries times, before keeping it flagged
// contended.
type Gate struct {
	Mode string `json:"mode"`
	// Cores is the threshold in cores of foreign CPU when Mode is GateCores.
	Cores   float64       `json:"cores,omitempty"`
	Retries int           `json:"retries"`
	Wait    time.Duration `json:"wait_ns"`
}
