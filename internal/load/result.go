package load

// SchemaVersion is the version of Result's JSON form. It changes when a
// key changes meaning or disappears; new keys may be added within a version.
//
// Version 2: the requests still unanswered when the drain ends are failures
// of the window (errors.unfinished, in attempts), no longer drain.abandoned;
// unsent (open loop) is new; the histograms' range covers the schedule.
//
// Version 3: in open loop, latency_hist (and latency_us) holds every
// request due in the window: those answered in it, those answered only in
// the drain (at their latency), and the unfinished and unsent ones at their
// lower-bound latency, the time they had waited when the worker closed the
// window.
const SchemaVersion = 3

// Result is the outcome of a run, and with its json tags the versioned
// JSON output of `stackbench load -o json`. Counts cover the measured
// window; a response belongs to the window in which it completed.
type Result struct {
	SchemaVersion int    `json:"schema_version"`
	URL           string `json:"url"`
	Method        string `json:"method"`
	// Protocol is how the requests went on the wire: "http1" (HTTP/1.1),
	// "h2c", "h2" or "grpc". Empty in results written before it was
	// recorded (journals keep them), which were all HTTP/1.1; a run
	// always sets it.
	Protocol string `json:"protocol,omitempty"`
	// TLS describes the TLS layer; absent in cleartext.
	TLS *TLSStats `json:"tls,omitempty"`
	// H2 describes the HTTP/2 layer; absent for HTTP/1.1.
	H2 *H2Stats `json:"h2,omitempty"`
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
	// the whole schedule (warm-up, window, drain). In open loop it holds
	// every request due in the window: the ones answered only in the drain
	// at their latency, and the unfinished and unsent ones at their
	// lower-bound latency (their age when the window closed after its
	// drain), so that a stall at the window's end is in the tail (schema 3).
	LatencyMicros Latency `json:"latency_us"`
	// LatencyUncorrectedMicros (open loop only) measures from the actual send.
	LatencyUncorrectedMicros *Latency `json:"latency_uncorrected_us,omitempty"`
	// ErrorLatencyMicros is the time to each failure, measured like
	// LatencyMicros.
	ErrorLatencyMicros Latency `json:"error_latency_us"`
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
	ClientBound bool `json:"client_bound"`

	Warmup Phase `json:"warmup"`
	// Drain is the requests in flight at the end of the window that were
	// answered, or failed, while they were waited for (up to a second, or
	// the timeout if shorter); not counted in the window. Those still
	// unanswered then are the window's errors.unfinished.
	Drain DrainPhase `json:"drain"`
	// Timeline has one entry per second of the window.
	Timeline []Second `json:"timeline"`
	// Halves are the window's successes in its first and second half
	// (of Duration): Trend compares them.
	Halves [2]int64 `json:"halves"`

	// MeasureStartUnixNano and MeasureEndUnixNano bound the window.
	MeasureStartUnixNano int64 `json:"measure_start_unix_ns"`
	MeasureEndUnixNano   int64 `json:"measure_end_unix_ns"`
	// ReadyUnixNano is, for a run given an instant to start at
	// (Config.StartAt), when it was ready to: its requests prepared and
	// its connections open. After StartAt, the run started that late.
	// 0 without StartAt, and in a Merge (the parts' clocks differ: each
	// part's own is what tells).
	ReadyUnixNano int64 `json:"ready_unix_ns,omitempty"`

	// Routes are a mix's routes (Config.Mix), each counted apart like the
	// whole, in the mix's order; absent for one route. MixSeed is the
	// seed the mix's sequence started from.
	Routes  []RouteResult `json:"routes,omitempty"`
	MixSeed uint64        `json:"mix_seed,omitempty"`
	// Flow is a flow run's figures: flows per second, whole-flow latency,
	// failed flows by step and class, each step's requests.
	Flow *FlowResult `json:"flow,omitempty"`
}

// TLSStats is the TLS layer of a run. Handshakes are counted apart from
// requests: those of the connections opened before the clock started and
// those of connections reopened later, in the warm-up or the window (a
// request that had to wait for one has it in its latency too).
type TLSStats struct {
	// Version and CipherSuite are the first handshake's ("TLS 1.3",
	// "TLS_AES_128_GCM_SHA256"); ALPN the protocol it agreed on.
	Version     string `json:"version"`
	CipherSuite string `json:"cipher_suite"`
	ALPN        string `json:"alpn,omitempty"`
	// Resumption is true when reopened connections offered to resume a
	// session (--tls-resume); Resumed counts the handshakes that did.
	Resumption bool  `json:"resumption"`
	Handshakes int64 `json:"handshakes"`
	Resumed    int64 `json:"resumed"`
	// HandshakesInWindow counts the handshakes completed in the measured
	// window: each one held up its worker's other connections for its
	// length (HandshakeMicros).
	HandshakesInWindow int64 `json:"handshakes_in_window"`
	// Failures counts failed handshakes; FirstError says why the first one
	// failed.
	Failures        int64   `json:"failures"`
	FirstError      string  `json:"first_error,omitempty"`
	HandshakeMicros Latency `json:"handshake_us"`
	// RecordLayer is what carried the first connection's requests after
	// its handshake: "engine" (the engine's own TLS 1.3 record layer) or
	// "crypto/tls" (TLS 1.2, or --tls-resume).
	RecordLayer string `json:"record_layer,omitempty"`
	// FirstRecordError is why a record after a handshake first failed
	// (one that did not decrypt, an alert); those requests are errors.tls.
	FirstRecordError string `json:"first_record_error,omitempty"`
}

// H2Stats is the HTTP/2 layer of a run: its settings and what the server
// did to the connections besides answering.
type H2Stats struct {
	// StreamsPerConnection is Config.Streams: the requests in flight on
	// each connection, at most (the server's limit may lower it).
	StreamsPerConnection int `json:"streams_per_connection"`
	// StreamWindowBytes and ConnectionWindowBytes are the flow-control
	// windows the engine grants the server (topped up when half used).
	StreamWindowBytes     int64 `json:"stream_window_bytes"`
	ConnectionWindowBytes int64 `json:"connection_window_bytes"`
	// PeerMaxStreams is the lowest SETTINGS_MAX_CONCURRENT_STREAMS a
	// server connection stated (0: none stated); requests beyond it wait
	// for a stream. PeerInitialWindowBytes is the server's stream window
	// for request bodies.
	PeerMaxStreams         int64 `json:"peer_max_streams"`
	PeerInitialWindowBytes int64 `json:"peer_initial_window_bytes"`
	// FlowStalled counts failed requests (timed out, unfinished, or on a
	// connection that failed) whose body still waited for the server's
	// flow-control window: the server had stopped granting it.
	FlowStalled int64 `json:"flow_stalled"`
	// GoAways counts GOAWAY frames; RSTStreamsReceived the RST_STREAM
	// frames the server sent (those on a live request are errors.rst_stream).
	GoAways            int64 `json:"goaways"`
	RSTStreamsReceived int64 `json:"rst_streams_received"`
	// FirstProtocolError is the first way the server broke HTTP/2, if it
	// did (the connection was closed, its requests counted in other).
	FirstProtocolError string `json:"first_protocol_error,omitempty"`
}

// Latency summarises a histogram, in microseconds.
type Latency struct {
	P50   int64   `json:"p50"`
	P75   int64   `json:"p75"`
	P90   int64   `json:"p90"`
	P99   int64   `json:"p99"`
	P999  int64   `json:"p999"`
	P9999 int64   `json:"p9999"`
	Max   int64   `json:"max"`
	Mean  float64 `json:"mean"`
}

// Phase counts the responses outside the measured window.
type Phase struct {
	Attempts  int64 `json:"attempts"`
	Successes int64 `json:"successes"`
	Errors    int64 `json:"errors"`
}

// DrainPhase is the tail after the window. Abandoned requests were in
// flight when a stop (Ctrl-C) cut the run short: the stop, not the server,
// ended them, so they are not failures; it is 0 in a run that ends by
// itself. Attempts includes them.
type DrainPhase struct {
	Phase
	Abandoned int64 `json:"abandoned"`
}

// Second is one second of the window's timeline; TSeconds is 1 for the
// first second.
type Second struct {
	TSeconds  int   `json:"t_s"`
	Successes int64 `json:"successes"`
	Errors    int64 `json:"errors"`
}

// ErrorCount is the sum of every error class.
func (r *Result) ErrorCount() int64 {
	var n int64
	for _, c := range r.Errors {
		n += c
	}
	return n
}

// Failures is the number of the window's requests that failed: every error
// class (unfinished included) and, in open loop, the unsent requests.
func (r *Result) Failures() int64 { return r.ErrorCount() + r.Unsent }

// FailureShare is Failures over the window's requests (attempts and
// unsent), from 0 to 1; 0 when there were none.
func (r *Result) FailureShare() float64 {
	total := r.Attempts + r.Unsent
	if total == 0 {
		return 0
	}
	return float64(r.Failures()) / float64(total)
}
