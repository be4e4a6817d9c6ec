package load

import (
	"crypto/tls"
	"runtime"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
)

// clientBoundShare is the share of its cores above which the generator is
// the bottleneck.
const clientBoundShare = 0.85

// result merges the workers' counts into the Result.
func (r *run) result() (*Result, error) {
	cfg := r.cfg
	window := cfg.Duration
	if r.measured > 0 {
		window = r.measured
	}
	res := &Result{
		SchemaVersion:        SchemaVersion,
		URL:                  r.tgt.url.Redacted(),
		Method:               cfg.Method,
		Protocol:             cfg.Protocol,
		Mode:                 "closed",
		DurationSeconds:      window.Seconds(),
		Interrupted:          r.measured > 0,
		WarmupSeconds:        time.Duration(r.warmEnd.Load() - r.t0).Seconds(),
		TimeoutSeconds:       cfg.Timeout.Seconds(),
		Connections:          cfg.Connections,
		Rate:                 cfg.Rate,
		Expect:               cfg.Expect,
		PoolSize:             len(r.reqs),
		Errors:               map[string]int64{},
		CoresAvailable:       min(runtime.NumCPU(), runtime.GOMAXPROCS(0)),
		MeasureStartUnixNano: r.measStartUnix,
		MeasureEndUnixNano:   r.measEndUnix,
		ReadyUnixNano:        r.readyUnix,
		Timeline:             make([]Second, min(r.seconds, int((window+time.Second-1)/time.Second))),
	}
	if r.open {
		res.Mode = "open"
	}
	if cfg.Warmup > 0 {
		res.WarmupEnd = r.warmupEnd
	}
	if r.adaptive {
		res.WarmupSliceSeconds = r.rule.Slice.Seconds()
		res.WarmupSlices = make([]int64, r.warmSlices)
		for _, w := range r.workers {
			for i := range res.WarmupSlices {
				res.WarmupSlices[i] += w.warmSlices[i].Load()
			}
		}
	}
	if len(cfg.Requests) > 0 {
		res.Method = ""
	}
	succ, errs := hist.New(r.histMax), hist.New(r.histMax)
	var uncorr *hist.Histogram
	if r.open {
		uncorr = hist.New(r.histMax)
	}
	var classes [numClasses]int64
	var status [grpcStatusBase + grpcCodes]int64
	for _, w := range r.workers {
		for s := 0; s < len(w.timeline); s += 2 {
			res.Successes += w.timeline[s].Load()
		}
		res.Reconnects += w.meas.reconnects
		res.LateSends += w.meas.lateSends
		for c, n := range w.meas.errs {
			classes[c] += n
		}
		for s, n := range w.meas.status {
			status[s] += n
		}
		res.Warmup.add(w.warm)
		res.Halves[0] += w.halves[0]
		res.Halves[1] += w.halves[1]
		res.Drain.add(w.drain)
		res.Drain.Attempts += w.abandoned
		res.Drain.Abandoned += w.abandoned
		if r.open {
			// Due before the window's end (or the cut) and never sent:
			// the schedule's index of the worker's next send says how many
			// it sent.
			res.Unsent += max(r.dueBefore(w.index, r.warmEnd.Load()+int64(window))-w.nextK, 0)
		}
		succ.Merge(w.hSucc)
		errs.Merge(w.hErr)
		if uncorr != nil {
			uncorr.Merge(w.hUncorr)
		}
		for s := range res.Timeline {
			res.Timeline[s].TSeconds = s + 1
			res.Timeline[s].Successes += w.timeline[2*s].Load()
			res.Timeline[s].Errors += w.timeline[2*s+1].Load()
		}
	}
	r.mergeRouteHists(succ, errs)
	res.Attempts = res.Successes
	for c, n := range classes {
		if c < alwaysReported || n > 0 {
			res.Errors[classNames[c]] = n
		}
		res.Attempts += n
	}
	for s, n := range status {
		if n > 0 {
			res.Errors[statusKey(s)] = n
			res.Attempts += n
		}
	}
	var err error
	if res.Routes, err = r.routeResults(window.Seconds(), res.Attempts); err != nil {
		return nil, err
	}
	if r.mix != nil {
		res.MixSeed = r.cfg.Seed
	}
	res.TLS = r.tlsStats()
	res.H2 = r.h2Stats()
	if cfg.GRPC != nil {
		res.GRPCMethod = cfg.GRPC.Method
		res.Method = ""
	}
	res.ThroughputRPS = float64(res.Successes) / window.Seconds()
	res.GeneratorCPUSeconds = r.cpuEnd - r.cpuStart
	if w := r.waitEnd - r.waitStart; w >= 0 { // NaN (no schedstat) stays 0
		res.GeneratorWaitSeconds = w
	}
	res.ClientBound = res.GeneratorCPUSeconds >= clientBoundShare*float64(res.CoresAvailable)*window.Seconds()
	if err := r.flowResult(res, window.Seconds()); err != nil {
		return nil, err
	}

	res.LatencyMicros = summarize(succ)
	res.ErrorLatencyMicros = summarize(errs)
	if res.LatencyHist, err = succ.Encode(); err != nil {
		return nil, err
	}
	if res.ErrorLatencyHist, err = errs.Encode(); err != nil {
		return nil, err
	}
	if uncorr != nil {
		l := summarize(uncorr)
		res.LatencyUncorrectedMicros = &l
		if res.LatencyUncorrectedHist, err = uncorr.Encode(); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (p *Phase) add(o Phase) {
	p.Attempts += o.Attempts
	p.Successes += o.Successes
	p.Errors += o.Errors
}

// summarize reads the reported percentiles off a histogram.
func summarize(h *hist.Histogram) Latency {
	return Latency{
		P50:   h.PercentileMicros(50),
		P75:   h.PercentileMicros(75),
		P90:   h.PercentileMicros(90),
		P99:   h.PercentileMicros(99),
		P999:  h.PercentileMicros(99.9),
		P9999: h.PercentileMicros(99.99),
		Max:   h.MaxMicros(),
		Mean:  h.MeanMicros(),
	}
}

// tlsStats merges the workers' handshake counts; nil in cleartext.
func (r *run) tlsStats() *TLSStats {
	if r.tlsConfig == nil {
		return nil
	}
	r.tlsNotes.mu.Lock()
	s := &TLSStats{Resumption: r.cfg.TLSResume, FirstError: r.tlsNotes.firstErr, FirstRecordError: r.tlsNotes.firstRecordErr}
	if st := r.tlsNotes.state; st != nil {
		s.Version = tls.VersionName(st.Version)
		s.CipherSuite = tls.CipherSuiteName(st.CipherSuite)
		s.ALPN = st.NegotiatedProtocol
		s.RecordLayer = "crypto/tls"
		if r.tlsNotes.engine {
			s.RecordLayer = "engine"
		}
	}
	r.tlsNotes.mu.Unlock()
	h := hist.New(r.cfg.Timeout)
	for _, w := range r.workers {
		s.Handshakes += w.handshakes
		s.Resumed += w.resumed
		s.HandshakesInWindow += w.windowHandshakes
		s.Failures += w.tlsFailures
		h.Merge(w.hHandshake)
	}
	s.HandshakeMicros = summarize(h)
	return s
}

// h2Stats merges the workers' HTTP/2 counts; nil for HTTP/1.1.
func (r *run) h2Stats() *H2Stats {
	if !r.h2 {
		return nil
	}
	s := &H2Stats{StreamsPerConnection: r.streams, StreamWindowBytes: h2StreamWindowBytes,
		ConnectionWindowBytes: h2ConnWindowBytes, PeerInitialWindowBytes: h2DefaultWindow}
	r.tlsNotes.mu.Lock()
	s.FirstProtocolError = r.protocolErr
	r.tlsNotes.mu.Unlock()
	for _, w := range r.workers {
		s.FlowStalled += w.h2.flowStalled
		s.GoAways += w.h2.goaways
		s.RSTStreamsReceived += w.h2.rstReceived
		if m := int64(w.h2.peerMaxStreams); m < h2MaxStreamID && (s.PeerMaxStreams == 0 || m < s.PeerMaxStreams) {
			s.PeerMaxStreams = m
		}
		if w.h2.peerInitWin > 0 {
			s.PeerInitialWindowBytes = w.h2.peerInitWin
		}
	}
	return s
}
