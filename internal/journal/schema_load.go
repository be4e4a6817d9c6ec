package journal

// LoadDrainPhase is load.DrainPhase as the journal records it:
// LoadDrainPhaseOf converts one, LoadDrainPhase.Load converts it back.
//
// load.DrainPhase is the tail after the window. Abandoned requests were in
// flight when a stop (Ctrl-C) cut the run short: the stop, not the server,
// ended them, so they are not failures; it is 0 in a run that ends by
// itself. Attempts includes them.
type LoadDrainPhase struct {
	LoadPhase
	Abandoned int64 `json:"abandoned"`
}

// LoadLatency is load.Latency as the journal records it:
// LoadLatencyOf converts one, LoadLatency.Load converts it back.
//
// load.Latency summarises a histogram, in microseconds.
type LoadLatency struct {
	P50   int64   `json:"p50"`
	P75   int64   `json:"p75"`
	P90   int64   `json:"p90"`
	P99   int64   `json:"p99"`
	P999  int64   `json:"p999"`
	P9999 int64   `json:"p9999"`
	Max   int64   `json:"max"`
	Mean  float64 `json:"mean"`
}

// LoadPhase is load.Phase as the journal records it:
// LoadPhaseOf converts one, LoadPhase.Load converts it back.
//
// load.Phase counts the responses outside the measured window.
type LoadPhase struct {
	Attempts  int64 `json:"attempts"`
	Successes int64 `json:"successes"`
	Errors    int64 `json:"errors"`
}

// LoadResult is load.Result as the journal records it:
// LoadResultOf converts one, LoadResult.Load converts it back.
//
// load.Result is the outcome of a run, and with its json tags the versioned
// JSON output of `stackbench load -o json`. Counts cover the measured
// window; a response belongs to the window in which it completed.
type LoadResult struct {
	SchemaVersion int    `json:"schema_version"`
	URL           string `json:"url"`
	Method        string `json:"method"`
	// Protocol is how the requests went on the wire: "http1", "h2", "h2c"
	// or "grpc" (load schema 8; empty in older records, which were all
	// HTTP/1.1).
	Protocol string `json:"protocol,omitempty"`
	// TLS describes the TLS layer; absent in cleartext.
	TLS *LoadTLSStats `json:"tls,omitempty"`
	// H2 describes the HTTP/2 layer; absent for HTTP/1.1.
	H2 *LoadH2Stats `json:"h2,omitempty"`
	// GRPCMethod is a gRPC run's method.
	GRPCMethod string `json:"grpc_method,omitempty"`
	// Mode is "closed" or "open".
	Mode string `json:"mode"`
	// DurationSeconds is the measured window's wall time; throughput
	// divides by it.
	DurationSeconds float64 `json:"duration_s"`
	// Interrupted is true when the run was stopped (Ctrl-C) inside the
	// window: DurationSeconds is then the part measured, and every figure
	// covers that part only.
	Interrupted bool `json:"interrupted,omitempty"`
	// WarmupSeconds is how long the warm-up ran: the fixed warm-up, or
	// an adaptive one's whole slices (Config.WarmupMax).
	WarmupSeconds float64 `json:"warmup_s"`
	// WarmupEnd says how the warm-up ended: "fixed" (a fixed length),
	// "steady" (the last slices agreed, WarmupRule) or "cap" (WarmupMax
	// reached first; the window is then flagged not_steady by the
	// harness); empty without a warm-up.
	WarmupEnd string `json:"warmup_end,omitempty"`
	// WarmupSliceSeconds and WarmupSlices are an adaptive warm-up's slice
	// length and completions (successes and failures) per slice, up to the
	// slice after which the rule decided (the last slice, run before the
	// window as announced, is not in it).
	WarmupSliceSeconds float64 `json:"warmup_slice_s,omitempty"`
	WarmupSlices       []int64 `json:"warmup_slices,omitempty"`
	TimeoutSeconds     float64 `json:"timeout_s"`
	Connections        int     `json:"connections"`
	// Rate is the open loop's requests per second; 0 in closed loop.
	Rate float64 `json:"rate"`
	// Expect lists the success statuses; empty means any 2xx.
	Expect []int `json:"expect,omitempty"`
	// PoolSize is the number of distinct requests sent round-robin.
	PoolSize int `json:"pool_size"`
	// Attempts = Successes + every error count: each request whose outcome
	// fell in the window, the unfinished ones included.
	Attempts      int64   `json:"attempts"`
	Successes     int64   `json:"successes"`
	ThroughputRPS float64 `json:"throughput_rps"`
	// Errors counts failures by class: timeout, reset, refused, closed,
	// other, unfinished, and status_<code> for each unexpected status. The
	// first six are always present. unfinished counts the requests sent
	// (in the warm-up or the window) and still unanswered when the drain
	// ended; their age then is recorded in the error latency, a lower bound
	// of their latency. They are not in the timeline, which counts
	// completions.
	Errors map[string]int64 `json:"errors"`
	// Unsent (open loop) counts requests due before the window's end that
	// were never sent: no connection came free for them in time. They are
	// failures of the window (see FailureShare) but not attempts.
	Unsent int64 `json:"unsent"`
	// LatencyMicros is the latency of successes; in open loop, measured from
	// the intended send time (corrected for coordinated omission) and never
	// clamped at the timeout: the histograms range over the timeout plus
	// the whole schedule (warm-up, window, drain).
	LatencyMicros LoadLatency `json:"latency_us"`
	// LatencyUncorrectedMicros (open loop only) measures from the actual send.
	LatencyUncorrectedMicros *LoadLatency `json:"latency_uncorrected_us,omitempty"`
	// ErrorLatencyMicros is the time to each failure, measured like
	// LatencyMicros.
	ErrorLatencyMicros LoadLatency `json:"error_latency_us"`
	// LatencyHist, LatencyUncorrectedHist and ErrorLatencyHist are the
	// histograms behind the figures (hist.Encode), for merging windows.
	LatencyHist            string `json:"latency_hist"`
	LatencyUncorrectedHist string `json:"latency_uncorrected_hist,omitempty"`
	ErrorLatencyHist       string `json:"error_latency_hist"`
	// Reconnects counts connections reopened in the window after the server
	// closed them or a request on them failed.
	Reconnects int64 `json:"reconnects"`
	// LateSends (open loop) counts sends in the window that found no free
	// connection when their time came and went out later; their latency
	// still counts from the intended time.
	LateSends int64 `json:"late_sends"`
	// GeneratorCPUSeconds is this process's user+system CPU over the window.
	GeneratorCPUSeconds float64 `json:"generator_cpu_s"`
	// GeneratorWaitSeconds is the time the generator's threads spent
	// runnable but waiting for a CPU over the window, summed over threads
	// (Linux schedstat): a generator starved by other processes on its
	// cores shows here even when its own CPU use is low, which
	// ClientBound cannot see.
	GeneratorWaitSeconds float64 `json:"generator_wait_s"`
	// CoresAvailable is the number of cores the generator may run on.
	CoresAvailable int `json:"cores_available"`
	// ClientBound is set when the generator used 85 % or more of its cores:
	// the result then describes the generator more than the server.
	ClientBound bool      `json:"client_bound"`
	Warmup      LoadPhase `json:"warmup"`
	// Drain is the requests in flight at the end of the window that were
	// answered, or failed, while they were waited for (up to a second, or
	// the timeout if shorter); not counted in the window. Those still
	// unanswered then are the window's errors.unfinished.
	Drain LoadDrainPhase `json:"drain"`
	// Timeline has one entry per second of the window.
	Timeline []LoadSecond `json:"timeline"`
	// Halves are the window's successes in its first and second half
	// (of Duration): Trend compares them.
	Halves [2]int64 `json:"halves"`
	// MeasureStartUnixNano and MeasureEndUnixNano bound the window.
	MeasureStartUnixNano int64 `json:"measure_start_unix_ns"`
	MeasureEndUnixNano   int64 `json:"measure_end_unix_ns"`
	// ReadyUnixNano is when a generator given an instant to start at was
	// ready to (its connections open); after that instant, it started
	// late. 0 without one.
	ReadyUnixNano int64 `json:"ready_unix_ns,omitempty"`
	// Routes are a mix's routes, each counted apart like the whole, in
	// the mix's order; absent for one route. MixSeed is the seed its
	// sequence started from.
	Routes  []LoadRoute `json:"routes,omitempty"`
	MixSeed uint64      `json:"mix_seed,omitempty"`
	// Flow is a flow run's figures (load.FlowResult).
	Flow *LoadFlow `json:"flow,omitempty"`
}

// LoadSecond is load.Second as the journal records it:
// LoadSecondOf converts one, LoadSecond.Load converts it back.
//
// load.Second is one second of the window's timeline; TSeconds is 1 for the
// first second.
type LoadSecond struct {
	TSeconds  int   `json:"t_s"`
	Successes int64 `json:"successes"`
	Errors    int64 `json:"errors"`
}

// LoadTLSStats is load.TLSStats as the journal records it: the TLS layer
// of a run, its handshakes counted apart from requests.
type LoadTLSStats struct {
	Version            string      `json:"version"`
	CipherSuite        string      `json:"cipher_suite"`
	ALPN               string      `json:"alpn,omitempty"`
	Resumption         bool        `json:"resumption"`
	Handshakes         int64       `json:"handshakes"`
	Resumed            int64       `json:"resumed"`
	HandshakesInWindow int64       `json:"handshakes_in_window"`
	Failures           int64       `json:"failures"`
	FirstError         string      `json:"first_error,omitempty"`
	HandshakeMicros    LoadLatency `json:"handshake_us"`
	RecordLayer        string      `json:"record_layer,omitempty"`
	FirstRecordError   string      `json:"first_record_error,omitempty"`
}

// LoadH2Stats is load.H2Stats as the journal records it: the HTTP/2
// layer of a run, its settings and what the server did besides answering.
type LoadH2Stats struct {
	StreamsPerConnection   int    `json:"streams_per_connection"`
	StreamWindowBytes      int64  `json:"stream_window_bytes"`
	ConnectionWindowBytes  int64  `json:"connection_window_bytes"`
	PeerMaxStreams         int64  `json:"peer_max_streams"`
	PeerInitialWindowBytes int64  `json:"peer_initial_window_bytes"`
	FlowStalled            int64  `json:"flow_stalled"`
	GoAways                int64  `json:"goaways"`
	RSTStreamsReceived     int64  `json:"rst_streams_received"`
	FirstProtocolError     string `json:"first_protocol_error,omitempty"`
}

// LoadRoute is load.RouteResult as the journal records it: LoadRouteOf
// converts one, LoadRoute.Load converts it back.
//
// load.RouteResult is one route of a mix in the measured window, counted
// like the whole: the requests of the route whose outcome fell in the
// window, its successes, failure classes and latency. Share is its part
// of the window's attempts, WeightShare its weight's part of the weights.
type LoadRoute struct {
	Name               string           `json:"name"`
	Weight             int              `json:"weight"`
	WeightShare        float64          `json:"weight_share"`
	Share              float64          `json:"share"`
	Attempts           int64            `json:"attempts"`
	Successes          int64            `json:"successes"`
	ThroughputRPS      float64          `json:"throughput_rps"`
	Errors             map[string]int64 `json:"errors"`
	LatencyMicros      LoadLatency      `json:"latency_us"`
	ErrorLatencyMicros LoadLatency      `json:"error_latency_us"`
	LatencyHist        string           `json:"latency_hist"`
	ErrorLatencyHist   string           `json:"error_latency_hist"`
}

// LoadFlow is load.FlowResult as the journal records it: LoadFlowOf
// converts one, LoadFlow.Load converts it back.
//
// load.FlowResult is a flow run's figures in the measured window: flows
// started, completed and failed (by "step: class" of the first failing
// step), flows per second, generator CPU per flow, the whole flows'
// latency, and each step's requests.
type LoadFlow struct {
	Name                      string           `json:"name"`
	Started                   int64            `json:"started"`
	Completed                 int64            `json:"completed"`
	Failed                    int64            `json:"failed"`
	Failures                  map[string]int64 `json:"failures"`
	FlowsPerSecond            float64          `json:"flows_per_s"`
	GeneratorCPUMicrosPerFlow float64          `json:"generator_cpu_us_per_flow,omitempty"`
	LatencyMicros             LoadLatency      `json:"latency_us"`
	LatencyHist               string           `json:"latency_hist"`
	Steps                     []LoadRoute      `json:"steps"`
	Unsent                    int64            `json:"unsent,omitempty"`
}
