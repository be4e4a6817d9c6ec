package journal

import "github.com/stackbench/stackbench/internal/load"

// LoadDrainPhaseOf converts v to its journaled form.
func LoadDrainPhaseOf(v load.DrainPhase) LoadDrainPhase {
	return LoadDrainPhase{
		LoadPhase: LoadPhaseOf(v.Phase),
		Abandoned: v.Abandoned,
	}
}

// Load converts v back to a load.DrainPhase.
func (v LoadDrainPhase) Load() load.DrainPhase {
	return load.DrainPhase{
		Phase:     v.LoadPhase.Load(),
		Abandoned: v.Abandoned,
	}
}

// LoadLatencyOf converts v to its journaled form.
func LoadLatencyOf(v load.Latency) LoadLatency {
	return LoadLatency{
		P50:   v.P50,
		P75:   v.P75,
		P90:   v.P90,
		P99:   v.P99,
		P999:  v.P999,
		P9999: v.P9999,
		Max:   v.Max,
		Mean:  v.Mean,
	}
}

// Load converts v back to a load.Latency.
func (v LoadLatency) Load() load.Latency {
	return load.Latency{
		P50:   v.P50,
		P75:   v.P75,
		P90:   v.P90,
		P99:   v.P99,
		P999:  v.P999,
		P9999: v.P9999,
		Max:   v.Max,
		Mean:  v.Mean,
	}
}

// LoadPhaseOf converts v to its journaled form.
func LoadPhaseOf(v load.Phase) LoadPhase {
	return LoadPhase{
		Attempts:  v.Attempts,
		Successes: v.Successes,
		Errors:    v.Errors,
	}
}

// Load converts v back to a load.Phase.
func (v LoadPhase) Load() load.Phase {
	return load.Phase{
		Attempts:  v.Attempts,
		Successes: v.Successes,
		Errors:    v.Errors,
	}
}

// LoadResultOf converts v to its journaled form.
func LoadResultOf(v load.Result) LoadResult {
	return LoadResult{
		SchemaVersion:            v.SchemaVersion,
		URL:                      v.URL,
		Method:                   v.Method,
		Protocol:                 v.Protocol,
		TLS:                      ConvertPtr(v.TLS, LoadTLSStatsOf),
		H2:                       ConvertPtr(v.H2, LoadH2StatsOf),
		GRPCMethod:               v.GRPCMethod,
		Mode:                     v.Mode,
		DurationSeconds:          v.DurationSeconds,
		Interrupted:              v.Interrupted,
		WarmupSeconds:            v.WarmupSeconds,
		WarmupEnd:                v.WarmupEnd,
		WarmupSliceSeconds:       v.WarmupSliceSeconds,
		WarmupSlices:             v.WarmupSlices,
		TimeoutSeconds:           v.TimeoutSeconds,
		Connections:              v.Connections,
		Rate:                     v.Rate,
		Expect:                   v.Expect,
		PoolSize:                 v.PoolSize,
		Attempts:                 v.Attempts,
		Successes:                v.Successes,
		ThroughputRPS:            v.ThroughputRPS,
		Errors:                   v.Errors,
		Unsent:                   v.Unsent,
		LatencyMicros:            LoadLatencyOf(v.LatencyMicros),
		LatencyUncorrectedMicros: ConvertPtr(v.LatencyUncorrectedMicros, LoadLatencyOf),
		ErrorLatencyMicros:       LoadLatencyOf(v.ErrorLatencyMicros),
		LatencyHist:              v.LatencyHist,
		LatencyUncorrectedHist:   v.LatencyUncorrectedHist,
		ErrorLatencyHist:         v.ErrorLatencyHist,
		Reconnects:               v.Reconnects,
		LateSends:                v.LateSends,
		GeneratorCPUSeconds:      v.GeneratorCPUSeconds,
		GeneratorWaitSeconds:     v.GeneratorWaitSeconds,
		CoresAvailable:           v.CoresAvailable,
		ClientBound:              v.ClientBound,
		Warmup:                   LoadPhaseOf(v.Warmup),
		Drain:                    LoadDrainPhaseOf(v.Drain),
		Timeline:                 ConvertSlice(v.Timeline, LoadSecondOf),
		Halves:                   v.Halves,
		MeasureStartUnixNano:     v.MeasureStartUnixNano,
		MeasureEndUnixNano:       v.MeasureEndUnixNano,
		ReadyUnixNano:            v.ReadyUnixNano,
		Routes:                   ConvertSlice(v.Routes, LoadRouteOf),
		MixSeed:                  v.MixSeed,
		Flow:                     ConvertPtr(v.Flow, LoadFlowOf),
	}
}

// Load converts v back to a load.Result.
func (v LoadResult) Load() load.Result {
	return load.Result{
		SchemaVersion:            v.SchemaVersion,
		URL:                      v.URL,
		Method:                   v.Method,
		Protocol:                 v.Protocol,
		TLS:                      ConvertPtr(v.TLS, LoadTLSStats.Load),
		H2:                       ConvertPtr(v.H2, LoadH2Stats.Load),
		GRPCMethod:               v.GRPCMethod,
		Mode:                     v.Mode,
		DurationSeconds:          v.DurationSeconds,
		Interrupted:              v.Interrupted,
		WarmupSeconds:            v.WarmupSeconds,
		WarmupEnd:                v.WarmupEnd,
		WarmupSliceSeconds:       v.WarmupSliceSeconds,
		WarmupSlices:             v.WarmupSlices,
		TimeoutSeconds:           v.TimeoutSeconds,
		Connections:              v.Connections,
		Rate:                     v.Rate,
		Expect:                   v.Expect,
		PoolSize:                 v.PoolSize,
		Attempts:                 v.Attempts,
		Successes:                v.Successes,
		ThroughputRPS:            v.ThroughputRPS,
		Errors:                   v.Errors,
		Unsent:                   v.Unsent,
		LatencyMicros:            v.LatencyMicros.Load(),
		LatencyUncorrectedMicros: ConvertPtr(v.LatencyUncorrectedMicros, LoadLatency.Load),
		ErrorLatencyMicros:       v.ErrorLatencyMicros.Load(),
		LatencyHist:              v.LatencyHist,
		LatencyUncorrectedHist:   v.LatencyUncorrectedHist,
		ErrorLatencyHist:         v.ErrorLatencyHist,
		Reconnects:               v.Reconnects,
		LateSends:                v.LateSends,
		GeneratorCPUSeconds:      v.GeneratorCPUSeconds,
		GeneratorWaitSeconds:     v.GeneratorWaitSeconds,
		CoresAvailable:           v.CoresAvailable,
		ClientBound:              v.ClientBound,
		Warmup:                   v.Warmup.Load(),
		Drain:                    v.Drain.Load(),
		Timeline:                 ConvertSlice(v.Timeline, LoadSecond.Load),
		Halves:                   v.Halves,
		MeasureStartUnixNano:     v.MeasureStartUnixNano,
		MeasureEndUnixNano:       v.MeasureEndUnixNano,
		ReadyUnixNano:            v.ReadyUnixNano,
		Routes:                   ConvertSlice(v.Routes, LoadRoute.Load),
		MixSeed:                  v.MixSeed,
		Flow:                     ConvertPtr(v.Flow, LoadFlow.Load),
	}
}

// LoadRouteOf converts v to its journaled form.
func LoadRouteOf(v load.RouteResult) LoadRoute {
	return LoadRoute{Name: v.Name, Weight: v.Weight, WeightShare: v.WeightShare, Share: v.Share,
		Attempts: v.Attempts, Successes: v.Successes, ThroughputRPS: v.ThroughputRPS, Errors: v.Errors,
		LatencyMicros: LoadLatencyOf(v.LatencyMicros), ErrorLatencyMicros: LoadLatencyOf(v.ErrorLatencyMicros),
		LatencyHist: v.LatencyHist, ErrorLatencyHist: v.ErrorLatencyHist}
}

// Load converts v back to a load.RouteResult.
func (v LoadRoute) Load() load.RouteResult {
	return load.RouteResult{Name: v.Name, Weight: v.Weight, WeightShare: v.WeightShare, Share: v.Share,
		Attempts: v.Attempts, Successes: v.Successes, ThroughputRPS: v.ThroughputRPS, Errors: v.Errors,
		LatencyMicros: v.LatencyMicros.Load(), ErrorLatencyMicros: v.ErrorLatencyMicros.Load(),
		LatencyHist: v.LatencyHist, ErrorLatencyHist: v.ErrorLatencyHist}
}

// LoadSecondOf converts v to its journaled form.
func LoadSecondOf(v load.Second) LoadSecond {
	return LoadSecond{
		TSeconds:  v.TSeconds,
		Successes: v.Successes,
		Errors:    v.Errors,
	}
}

// Load converts v back to a load.Second.
func (v LoadSecond) Load() load.Second {
	return load.Second{
		TSeconds:  v.TSeconds,
		Successes: v.Successes,
		Errors:    v.Errors,
	}
}

// ErrorCount is load.Result.ErrorCount of the journaled result.
func (v LoadResult) ErrorCount() int64 { r := v.Load(); return r.ErrorCount() }

// Failures is load.Result.Failures of the journaled result.
func (v LoadResult) Failures() int64 { r := v.Load(); return r.Failures() }

// FailureShare is load.Result.FailureShare of the journaled result.
func (v LoadResult) FailureShare() float64 { r := v.Load(); return r.FailureShare() }

// LoadTLSStatsOf converts a load.TLSStats to its journal form.
func LoadTLSStatsOf(v load.TLSStats) LoadTLSStats {
	return LoadTLSStats{Version: v.Version, CipherSuite: v.CipherSuite, ALPN: v.ALPN, Resumption: v.Resumption,
		Handshakes: v.Handshakes, Resumed: v.Resumed, HandshakesInWindow: v.HandshakesInWindow, Failures: v.Failures,
		FirstError: v.FirstError, HandshakeMicros: LoadLatencyOf(v.HandshakeMicros),
		RecordLayer: v.RecordLayer, FirstRecordError: v.FirstRecordError}
}

// Load converts the journal form back to a load.TLSStats.
func (v LoadTLSStats) Load() load.TLSStats {
	return load.TLSStats{Version: v.Version, CipherSuite: v.CipherSuite, ALPN: v.ALPN, Resumption: v.Resumption,
		Handshakes: v.Handshakes, Resumed: v.Resumed, HandshakesInWindow: v.HandshakesInWindow, Failures: v.Failures,
		FirstError: v.FirstError, HandshakeMicros: v.HandshakeMicros.Load(),
		RecordLayer: v.RecordLayer, FirstRecordError: v.FirstRecordError}
}

// LoadH2StatsOf converts a load.H2Stats to its journal form.
func LoadH2StatsOf(v load.H2Stats) LoadH2Stats {
	return LoadH2Stats{StreamsPerConnection: v.StreamsPerConnection, StreamWindowBytes: v.StreamWindowBytes,
		ConnectionWindowBytes: v.ConnectionWindowBytes, PeerMaxStreams: v.PeerMaxStreams, PeerInitialWindowBytes: v.PeerInitialWindowBytes,
		FlowStalled: v.FlowStalled, GoAways: v.GoAways, RSTStreamsReceived: v.RSTStreamsReceived, FirstProtocolError: v.FirstProtocolError}
}

// Load converts the journal form back to a load.H2Stats.
func (v LoadH2Stats) Load() load.H2Stats {
	return load.H2Stats{StreamsPerConnection: v.StreamsPerConnection, StreamWindowBytes: v.StreamWindowBytes,
		ConnectionWindowBytes: v.ConnectionWindowBytes, PeerMaxStreams: v.PeerMaxStreams, PeerInitialWindowBytes: v.PeerInitialWindowBytes,
		FlowStalled: v.FlowStalled, GoAways: v.GoAways, RSTStreamsReceived: v.RSTStreamsReceived, FirstProtocolError: v.FirstProtocolError}
}

// LoadFlowOf converts v to its journaled form.
func LoadFlowOf(v load.FlowResult) LoadFlow {
	return LoadFlow{Name: v.Name, Started: v.Started, Completed: v.Completed, Failed: v.Failed, Failures: v.Failures,
		FlowsPerSecond: v.FlowsPerSecond, GeneratorCPUMicrosPerFlow: v.GeneratorCPUMicrosPerFlow,
		LatencyMicros: LoadLatencyOf(v.LatencyMicros), LatencyHist: v.LatencyHist, Steps: ConvertSlice(v.Steps, LoadRouteOf), Unsent: v.Unsent}
}

// Load converts v back to a load.FlowResult.
func (v LoadFlow) Load() load.FlowResult {
	return load.FlowResult{Name: v.Name, Started: v.Started, Completed: v.Completed, Failed: v.Failed, Failures: v.Failures,
		FlowsPerSecond: v.FlowsPerSecond, GeneratorCPUMicrosPerFlow: v.GeneratorCPUMicrosPerFlow,
		LatencyMicros: v.LatencyMicros.Load(), LatencyHist: v.LatencyHist, Steps: ConvertSlice(v.Steps, LoadRoute.Load), Unsent: v.Unsent}
}
