package journal

import "time"

// PlanCapacity is plan.Capacity as the journal records it:
// PlanCapacityOf converts one, PlanCapacity.Plan converts it back.
//
// plan.Capacity is the capacity phase (the file's capacity: section): after
// the closed-loop windows, and after any adaptive rounds, the run searches
// each stack × case that has an SLO for the highest open-loop rate that
// meets it (internal/capacity; docs/capacity.md). Nil when the file has no
// capacity section.
type PlanCapacity struct {
	// Cases are the cases searched, in plan order, each with its SLO.
	Cases []PlanCapacityCase `json:"cases"`
	// MaxErrorShare bounds a passing probe's errors (a fraction).
	MaxErrorShare float64 `json:"max_error_share"`
	// Resolution is the bisection's stopping width and the step down
	// after a failed confirmation (a fraction).
	Resolution float64 `json:"resolution"`
	// Confirmations are the windows the rate found must pass in a row;
	// Retries the repeats of a failed probe before it is believed.
	Confirmations int `json:"confirmations"`
	Retries       int `json:"retries"`
	// Probe and Warmup are each probe's window and warm-up.
	Probe  time.Duration `json:"probe_ns"`
	Warmup time.Duration `json:"warmup_ns"`
	// Budget bounds each stack × case search, not the whole phase: a
	// search out of budget reports its bracket.
	Budget time.Duration `json:"budget_ns"`
	// Connections is the generator's most requests in flight (open loop).
	Connections int `json:"connections"`
	// StartFraction is the share of the cell's closed-loop throughput,
	// measured in this run, that the climb starts from.
	StartFraction float64 `json:"start_fraction"`
	// MaxGeneratorWaitShare is the most the generator may wait for a CPU,
	// in seconds per second of probe, before a probe fails as starved.
	MaxGeneratorWaitShare float64 `json:"max_generator_wait_share"`
	// Searches is how many times each stack × case is searched, each
	// search in a fresh process, the stacks taking turns search by search
	// in a balanced order (stats.WilliamsSequence): the capacity is the
	// median of the searches' capacities and a capacity step compares the
	// two stacks' searches (docs/capacity.md). 0 in journals written
	// before it: one search (SearchCount).
	Searches int `json:"searches,omitempty"`
}

// PlanCapacityCase is plan.CapacityCase as the journal records it:
// PlanCapacityCaseOf converts one, PlanCapacityCase.Plan converts it back.
//
// plan.CapacityCase is one case searched and its objective.
type PlanCapacityCase struct {
	Case string `json:"case"`
	// SLO is the objective as written ("p99=20ms"; capacity.ParseSLO).
	SLO string `json:"slo"`
}

// PlanCaseThresholds is plan.CaseThresholds as the journal records it:
// PlanCaseThresholdsOf converts one, PlanCaseThresholds.Plan converts it back.
//
// plan.CaseThresholds are one case's resolved thresholds, as a plan holds them.
type PlanCaseThresholds struct {
	Case string `json:"case"`
	// Route, when set, is a route of the mix Case whose requests the
	// limits are judged on.
	Route      string         `json:"route,omitempty"`
	Thresholds PlanThresholds `json:"thresholds"`
}

// PlanContainer is plan.Container as the journal records it:
// PlanContainerOf converts one, PlanContainer.Plan converts it back.
//
// plan.Container says that a stack runs in a container (the container: key):
// stackbench builds the image (Build) or uses one (Image), runs it with the
// stack's port and environment on the host's network, and measures the
// container's cgroup (docs/containers.md).
type PlanContainer struct {
	// Image is the image to run; for Build, the image stackbench tags
	// ("stackbench-<stack>").
	Image string `json:"image"`
	// Build is the Dockerfile to build the image from, absolute; its
	// directory is the build context.
	Build string `json:"build,omitempty"`
	// Runtime is "docker" or "podman"; "" means whichever is installed
	// (docker first).
	Runtime string `json:"runtime,omitempty"`
}

// PlanDX is plan.DX as the journal records it:
// PlanDXOf converts one, PlanDX.Plan converts it back.
//
// plan.DX is what the developer-experience suite measures of a stack or a
// process-suite command (its dx: key). Paths are absolute; commands run in
// the owner's dir through a shell.
type PlanDX struct {
	// Install is a command that installs the dependencies (e.g. npm ci),
	// timed cold and warm.
	Install string `json:"install,omitempty"`
	// Cold are directories inside dir (e.g. node_modules, a private npm cache
	// or GOCACHE) removed before every cold install and build. Without any,
	// only warm figures are taken.
	Cold []string `json:"cold,omitempty"`
	// Artifact is a file or directory whose size in bytes is reported after
	// the build.
	Artifact string `json:"artifact,omitempty"`
	// DepsDir is a dependency directory (node_modules) to weigh and count;
	// DepsCommand instead is a Go module list command (go list -m all).
	DepsDir     string `json:"deps_dir,omitempty"`
	DepsCommand string `json:"deps_command,omitempty"`
	// Reload is the watch-mode edit to time; nil when not asked.
	Reload *PlanReload `json:"reload,omitempty"`
	// Rounds is the number of cold/warm passes and reloads.
	Rounds int `json:"rounds"`
}

// PlanGate is plan.Gate as the journal records it:
// PlanGateOf converts one, PlanGate.Plan converts it back.
//
// plan.Gate is the contention gate: before each window the run waits (at most
// Wait) for foreign CPU under the threshold, and redoes a window whose mean
// foreign CPU crossed it, at most Retries times, before keeping it flagged
// contended.
type PlanGate struct {
	Mode string `json:"mode"`
	// Cores is the threshold in cores of foreign CPU when Mode is GateCores.
	Cores   float64       `json:"cores,omitempty"`
	Retries int           `json:"retries"`
	Wait    time.Duration `json:"wait_ns"`
}

// PlanGitRevision is plan.GitRevision as the journal records it:
// PlanGitRevisionOf converts one, PlanGitRevision.Plan converts it back.
//
// plan.GitRevision is a stack's git: key resolved when the file is loaded.
type PlanGitRevision struct {
	// Rev is the revision as written ("main", "HEAD", "v1.2"); Commit is
	// the commit it named then.
	Rev    string `json:"rev"`
	Commit string `json:"commit"`
	Subdir string `json:"subdir"`
}

// PlanHost is plan.Host as the journal records it:
// PlanHostOf converts one, PlanHost.Plan converts it back.
//
// plan.Host is one machine of the hosts: section, reached over SSH
// (internal/remote).
type PlanHost struct {
	// Name is the host's key in hosts:, the name roles: use.
	Name string `json:"name"`
	User string `json:"user"`
	// Addr is the host name or IP address to dial; Port its SSH port.
	Addr string `json:"addr"`
	Port int    `json:"port"`
	// Identity is an absolute path to a private key file; empty means the
	// ssh-agent's keys (SSH_AUTH_SOCK).
	Identity string `json:"identity,omitempty"`
}

// PlanLatencyRate is plan.LatencyRate as the journal records it:
// PlanLatencyRateOf converts one, PlanLatencyRate.Plan converts it back.
//
// plan.LatencyRate is the offered rate of the latency windows (latency: {rate:
// …}, --latency-rate): each cell of a round also gets an open-loop window
// at one rate for every stack of its case and concurrency, and steps call
// its p50 and p99 (docs/statistics.md, "Latency at a fixed rate"). Exactly
// one of Share and RPS is set.
type PlanLatencyRate struct {
	// Share is a fraction of the slowest stack's closed-loop median
	// throughput in round 1 (0.5 for rate: 50%): the run fixes the rate
	// once round 1's windows of the case are in, and journals it.
	Share float64 `json:"share,omitempty"`
	// RPS is an absolute rate in requests per second (rate: 800).
	RPS float64 `json:"rps,omitempty"`
}

// PlanPlacement is plan.Placement as the journal records it:
// PlanPlacementOf converts one, PlanPlacement.Plan converts it back.
//
// plan.Placement is the resolved placement of a plan (docs/placement.md). It is
// resolved when the plan is, on the host that resolves it, and is part of
// the fingerprint: a resumed run on a host that would resolve it otherwise
// is refused rather than measured differently.
type PlanPlacement struct {
	Mode string `json:"mode"`
	// Generator, Server and Database are the lanes' CPU lists ("0-3") with
	// lanes; empty with shared. Lanes may share CPUs only where the host
	// has too few (two CPUs) or the user said so; Lanes().Sharing says.
	Generator string `json:"generator_cpus,omitempty"`
	Server    string `json:"server_cpus,omitempty"`
	Database  string `json:"database_cpus,omitempty"`
	// Auto is true when the mode was chosen from the host's CPUs
	// (placement: auto, or no placement given).
	Auto bool `json:"auto,omitempty"`
	// NoAffinity is true when the host's OS has no CPU affinity (macOS),
	// so the placement is shared whatever auto would have chosen.
	NoAffinity bool `json:"no_affinity,omitempty"`
}

// PlanSpec is plan.Plan as the journal records it:
// PlanSpecOf converts one, PlanSpec.Plan converts it back.
//
// plan.Plan is a resolved comparison: what to run, how, and in which order.
type PlanSpec struct {
	// File is the comparison file the plan comes from.
	File string `json:"file"`
	// WorkloadName names the workload (File.Workload is the workload).
	WorkloadName string       `json:"workload"`
	Protocol     PlanProtocol `json:"protocol"`
	Stacks       []PlanStack  `json:"stacks"`
	// NeedsDatabase is true when the workload uses the fixture (some of its
	// cases do, selected or not).
	NeedsDatabase bool         `json:"needs_database"`
	Windows       []PlanWindow `json:"windows"`
	// Fingerprint is a hash of everything that shapes the matrix and its
	// measurement: the protocol, the stacks' definitions and the cases'
	// requests. A resumed run refuses a plan whose fingerprint changed.
	Fingerprint string `json:"fingerprint"`
	// Capacity is the capacity phase, nil without a capacity section
	// (capacity.go).
	Capacity *PlanCapacity `json:"capacity,omitempty"`
	// Thresholds are the limits each selected case's windows must meet
	// (thresholds.go), in plan order; cases without one are left out.
	Thresholds []PlanCaseThresholds `json:"thresholds,omitempty"`
	// Hosts and Roles are the file's hosts: and roles: (hosts.go); empty
	// when everything runs on this machine.
	Hosts []PlanHost `json:"hosts,omitempty"`
	Roles *PlanRoles `json:"roles,omitempty"`
}

// PlanProtocol is plan.Protocol as the journal records it:
// PlanProtocolOf converts one, PlanProtocol.Plan converts it back.
//
// plan.Protocol is how every stack is measured.
type PlanProtocol struct {
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
	BootStarts int      `json:"boot_starts"`
	Gate       PlanGate `json:"gate"`
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
	Placement PlanPlacement `json:"placement"`
	// Profiling adds the profiling phase (profiling: on, --profiling):
	// after the measured rounds, one extra window per cell with sampling
	// on, never counted among the calls' windows (docs/profiles.md).
	Profiling bool `json:"profiling,omitempty"`
	// Latency adds the latency windows (latency: {rate: …},
	// --latency-rate): right after each cell's closed-loop window of a
	// round (from LatencyRate.FirstRound), one open-loop window on the
	// same process at one offered rate for every stack of the case and
	// concurrency; steps call their p50 and p99 (latency.go). Nil without.
	Latency *PlanLatencyRate `json:"latency,omitempty"`
	// Calls are the metrics each step is called on, the headline first
	// (calls:, --calls); empty calls every metric the run measures.
	Calls []string `json:"calls,omitempty"`
	// LatencyRoundOne: round 1's latency windows are measured at the
	// end of round 1 (false in journals written before it).
	LatencyRoundOne bool `json:"latency_round_one,omitempty"`
	// ClosedLoop is "first" when the closed-loop windows were measured in
	// round 1 only (closed_loop: first); empty: every round (and journals
	// written before it).
	ClosedLoop string `json:"closed_loop,omitempty"`
}

// PlanReload is plan.Reload as the journal records it:
// PlanReloadOf converts one, PlanReload.Plan converts it back.
//
// plan.Reload is a watch-mode start plus a one-line edit: the suite starts
// Start, writes Replace in place of Find in File, and polls Path until the
// answer changes. The file is always restored.
type PlanReload struct {
	Start   string        `json:"start"`
	File    string        `json:"file"`
	Find    string        `json:"find"`
	Replace string        `json:"replace"`
	Path    string        `json:"path"`
	Timeout time.Duration `json:"timeout_ns"`
}

// PlanRoles is plan.Roles as the journal records it:
// PlanRolesOf converts one, PlanRoles.Plan converts it back.
//
// plan.Roles says which host of hosts: runs each role. An empty Server or
// Database runs that role on this machine, as without hosts:; no
// Generators runs the load generator here.
type PlanRoles struct {
	// Server is the host every stack's server runs on.
	Server string `json:"server,omitempty"`
	// Database is the host the embedded PostgreSQL cluster runs on.
	Database string `json:"database,omitempty"`
	// Generators are the hosts the load is split across, in file order.
	Generators []string `json:"generators,omitempty"`
}

// PlanStack is plan.Stack as the journal records it:
// PlanStackOf converts one, PlanStack.Plan converts it back.
//
// plan.Stack is one server configuration under test.
type PlanStack struct {
	Name string `json:"name"`
	// Dir is absolute; Build and Start run in it with a shell.
	Dir   string `json:"dir"`
	Build string `json:"build,omitempty"`
	Start string `json:"start"`
	// Env is added to the variables the harness sets (PORT, DATABASE_URL,
	// JWT_SECRET, NODE_ENV, STACKBENCH_WORKLOAD); EnvOrder lists its keys in
	// file order.
	Env map[string]string `json:"env,omitempty"`
	// Health is the path polled until the first 200.
	Health string `json:"health"`
	// Base is the stack's base path ("/api"); empty at the root.
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
	DX *PlanDX `json:"dx,omitempty"`
	// Git, when set, is the revision of Dir's repository the stack runs:
	// the run builds and starts it in a detached worktree of that commit
	// (stack.Checkout), and Dir is then the same directory inside it.
	Git *PlanGitRevision `json:"git,omitempty"`
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
	Container *PlanContainer `json:"container,omitempty"`
	// Wire is how the load reached the stack; absent for HTTP/1.1 in
	// cleartext (and in journals from before it).
	Wire *PlanWire `json:"wire,omitempty"`
}

// PlanWire is plan.Wire as the journal records it.
type PlanWire struct {
	// Protocol is "h2", "h2c" or "grpc"; "" is HTTP/1.1.
	Protocol string `json:"protocol,omitempty"`
	TLS      bool   `json:"tls,omitempty"`
	// Streams is the requests in flight on each HTTP/2 connection; 0 is 1.
	Streams int `json:"streams,omitempty"`
	// Proto is a gRPC stack's descriptors, as the file names them, or
	// "reflect".
	Proto string `json:"proto,omitempty"`
}

// PlanThresholds is plan.Thresholds as the journal records it:
// PlanThresholdsOf converts one, PlanThresholds.Plan converts it back.
//
// plan.Thresholds are the limits one case's windows must meet, for every stack:
// the k6 idea, judged with an interval (report). A zero field sets no
// limit.
type PlanThresholds struct {
	// P50, P90, P99 and P999 are the most a window's latency percentile
	// (of successful responses) may be.
	P50  time.Duration `json:"p50,omitempty"`
	P90  time.Duration `json:"p90,omitempty"`
	P99  time.Duration `json:"p99,omitempty"`
	P999 time.Duration `json:"p999,omitempty"`
	// ErrorRate is the most a window's failed share of its attempts may be
	// (a fraction: 0.001 is 0.1 %); nil sets no limit, so that 0 (no error
	// at all) can be asked for.
	ErrorRate *float64 `json:"error_rate,omitempty"`
	// ThroughputRPS is the least a window's throughput may be, in
	// successful responses per second.
	ThroughputRPS float64 `json:"throughput_rps,omitempty"`
}

// PlanWindow is plan.Window as the journal records it:
// PlanWindowOf converts one, PlanWindow.Plan converts it back.
//
// plan.Window is one measured interval of load on one (stack, case, concurrency)
// in one round.
type PlanWindow struct {
	// Key identifies the window across runs: "r2/gin/order/c100".
	Key string `json:"key"`
	// position in Plan.Windows
	Index int `json:"index"`
	// Round is 1-based; Slot is the stack's 0-based position in the
	// sequence the window was laid out by: its case's (interleaved) or the
	// round's (grouped); see layRound.
	Round int `json:"round"`
	// Repeat numbers the windows of one cell in a round from 1 (protocol
	// repeat); 0 or 1 when there is one.
	Repeat      int    `json:"repeat,omitempty"`
	Slot        int    `json:"slot"`
	Stack       string `json:"stack"`
	Case        string `json:"case"`
	Concurrency int    `json:"concurrency"`
	// Process numbers the server processes of the plan from 0; the run
	// starts a fresh process when it changes. NewProcess marks the first
	// window of each process.
	Process    int  `json:"process"`
	NewProcess bool `json:"new_process"`
	// Inserts is true when the case writes rows: the orders table is
	// reset before the window.
	Inserts bool `json:"inserts"`
}
