package load

import (
	"errors"
	"fmt"

	"github.com/stackbench/stackbench/internal/hist"
)

// Merge combines the results of generators that loaded the same target over
// the same window (on several hosts, started at one instant) into one
// result: counts, failure classes, phases and the timeline are summed, the
// latency histograms merged, and the percentiles read off the merged
// histograms, never averaged. Throughput is the sum of the generators'
// throughputs, each over its own window; DurationSeconds is the longest
// window and MeasureStart/End span all of them. The generators' CPU and
// cores are summed, and the merged result is client-bound when any
// generator was: starvation is judged per generator, so the caller keeps
// the parts for that. A flow's figures are merged too (mergeFlows): each
// generator ran its own users of the same flow.
func Merge(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("merge load results: none given")
	}
	first := *parts[0]
	out := &first
	out.Errors = map[string]int64{}
	out.Timeline = nil
	out.WarmupSlices = nil
	out.Attempts, out.Successes, out.ThroughputRPS, out.Unsent = 0, 0, 0, 0
	out.Reconnects, out.LateSends = 0, 0
	out.GeneratorCPUSeconds, out.GeneratorWaitSeconds, out.CoresAvailable = 0, 0, 0
	out.ClientBound, out.Interrupted = false, false
	out.Connections = 0
	out.Rate = 0
	out.Warmup, out.Drain, out.Halves = Phase{}, DrainPhase{}, [2]int64{}
	if out.TLS != nil {
		// The counts are summed below; the handshake time stays the first
		// generator's.
		t := *out.TLS
		t.Handshakes, t.Resumed, t.HandshakesInWindow, t.Failures = 0, 0, 0, 0
		out.TLS = &t
	}
	var succ, errs, uncorr *hist.Histogram
	for i, p := range parts {
		if p.SchemaVersion != parts[0].SchemaVersion || p.Mode != parts[0].Mode {
			return nil, fmt.Errorf("merge load results: generator %d reports schema %d, mode %s; generator 1 schema %d, mode %s",
				i+1, p.SchemaVersion, p.Mode, parts[0].SchemaVersion, parts[0].Mode)
		}
		out.Attempts += p.Attempts
		out.Successes += p.Successes
		out.ThroughputRPS += p.ThroughputRPS
		out.Unsent += p.Unsent
		out.Reconnects += p.Reconnects
		out.LateSends += p.LateSends
		out.GeneratorCPUSeconds += p.GeneratorCPUSeconds
		out.GeneratorWaitSeconds += p.GeneratorWaitSeconds
		out.CoresAvailable += p.CoresAvailable
		out.ClientBound = out.ClientBound || p.ClientBound
		out.Interrupted = out.Interrupted || p.Interrupted
		out.Connections += p.Connections
		out.Rate += p.Rate
		out.DurationSeconds = max(out.DurationSeconds, p.DurationSeconds)
		out.WarmupSeconds = max(out.WarmupSeconds, p.WarmupSeconds)
		out.MeasureStartUnixNano = min(out.MeasureStartUnixNano, p.MeasureStartUnixNano)
		out.MeasureEndUnixNano = max(out.MeasureEndUnixNano, p.MeasureEndUnixNano)
		for k, n := range p.Errors {
			out.Errors[k] += n
		}
		if out.H2 != nil && p.H2 != nil && i > 0 {
			h := *out.H2
			h.FlowStalled += p.H2.FlowStalled
			h.GoAways += p.H2.GoAways
			h.RSTStreamsReceived += p.H2.RSTStreamsReceived
			out.H2 = &h
		}
		if out.TLS != nil && p.TLS != nil {
			out.TLS.Handshakes += p.TLS.Handshakes
			out.TLS.Resumed += p.TLS.Resumed
			out.TLS.HandshakesInWindow += p.TLS.HandshakesInWindow
			out.TLS.Failures += p.TLS.Failures
		}
		out.Warmup.add(p.Warmup)
		out.Drain.add(p.Drain.Phase)
		out.Drain.Abandoned += p.Drain.Abandoned
		out.Halves[0] += p.Halves[0]
		out.Halves[1] += p.Halves[1]
		for s, sec := range p.Timeline {
			if s >= len(out.Timeline) {
				out.Timeline = append(out.Timeline, Second{TSeconds: sec.TSeconds})
			}
			out.Timeline[s].Successes += sec.Successes
			out.Timeline[s].Errors += sec.Errors
		}
		var err error
		if succ, err = mergeInto(succ, p.LatencyHist); err != nil {
			return nil, fmt.Errorf("merge load results: generator %d: %w", i+1, err)
		}
		if errs, err = mergeInto(errs, p.ErrorLatencyHist); err != nil {
			return nil, fmt.Errorf("merge load results: generator %d: %w", i+1, err)
		}
		if p.LatencyUncorrectedHist != "" {
			if uncorr, err = mergeInto(uncorr, p.LatencyUncorrectedHist); err != nil {
				return nil, fmt.Errorf("merge load results: generator %d: %w", i+1, err)
			}
		}
	}
	var err error
	out.LatencyMicros, out.ErrorLatencyMicros = summarize(succ), summarize(errs)
	if out.LatencyHist, err = succ.Encode(); err != nil {
		return nil, err
	}
	if out.ErrorLatencyHist, err = errs.Encode(); err != nil {
		return nil, err
	}
	if out.Routes, err = mergeRoutes(parts, out.Attempts); err != nil {
		return nil, err
	}
	if out.Flow, err = mergeFlows(parts, out.Attempts, out.GeneratorCPUSeconds); err != nil {
		return nil, err
	}
	out.LatencyUncorrectedMicros, out.LatencyUncorrectedHist = nil, ""
	if uncorr != nil {
		l := summarize(uncorr)
		out.LatencyUncorrectedMicros = &l
		if out.LatencyUncorrectedHist, err = uncorr.Encode(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergeInto decodes an encoded histogram and merges it into h (the decoded
// one itself when h is nil).
func mergeInto(h *hist.Histogram, encoded string) (*hist.Histogram, error) {
	d, err := hist.Decode(encoded)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return d, nil
	}
	h.Merge(d)
	return h, nil
}
