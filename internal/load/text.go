package load

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// WriteText writes the result for a person: what was run, throughput,
// the error split, latency, the generator's own load, warm-up and drain.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	mode := "closed loop"
	if r.Mode == "open" {
		mode = fmt.Sprintf("open loop at %g req/s", r.Rate)
	}
	method := r.Method
	switch {
	case r.GRPCMethod != "":
		method = "gRPC " + r.GRPCMethod
	case len(r.Routes) > 0:
		method = fmt.Sprintf("mix of %d routes (pool of %d requests)", len(r.Routes), r.PoolSize)
	case r.Flow != nil:
		method = fmt.Sprintf("flow %s of %d steps", r.Flow.Name, len(r.Flow.Steps))
	case method == "":
		method = fmt.Sprintf("pool of %d requests", r.PoolSize)
	}
	if r.Protocol != "" && r.Protocol != ProtoHTTP1 {
		method += " over " + r.Protocol
	}
	fmt.Fprintf(&b, "%s %s: %s, %d connections, %s measured", method, r.URL, mode, r.Connections, secs(r.DurationSeconds))
	if r.Interrupted {
		b.WriteString(" (interrupted: the window was cut short)")
	}
	if r.WarmupSeconds > 0 {
		fmt.Fprintf(&b, " after %s warm-up", secs(r.WarmupSeconds))
	}
	fmt.Fprintf(&b, ", timeout %s\n\n", secs(r.TimeoutSeconds))

	fmt.Fprintf(&b, "  throughput    %.1f req/s (successes ÷ window)\n", r.ThroughputRPS)
	fmt.Fprintf(&b, "  attempts      %d: %d succeeded, %d failed\n", r.Attempts, r.Successes, r.ErrorCount())
	fmt.Fprintf(&b, "  errors        %s\n", ErrorSplit(r.Errors))
	if n := r.Errors["unfinished"]; n > 0 {
		fmt.Fprintf(&b, "  unfinished    %d sent and still unanswered when the drain ended (failures; their age is in the error time)\n", n)
	}
	if r.Mode == "open" {
		fmt.Fprintf(&b, "  unsent        %d due by the window's end and never sent (failures)\n", r.Unsent)
	}
	if f := r.Failures(); f > 0 {
		fmt.Fprintf(&b, "  failures      %.2f %% of %d requests (errors, unfinished and unsent)\n", 100*r.FailureShare(), r.Attempts+r.Unsent)
	}
	fmt.Fprintf(&b, "  latency       %s\n", latencyLine(r.LatencyMicros, r.Successes))
	if r.LatencyUncorrectedMicros != nil {
		fmt.Fprintf(&b, "  uncorrected   %s  (from the actual send; the line above counts from the schedule)\n",
			latencyLine(*r.LatencyUncorrectedMicros, r.Successes))
	}
	if n := r.ErrorCount(); n > 0 {
		fmt.Fprintf(&b, "  error time    %s\n", latencyLine(r.ErrorLatencyMicros, n))
	}
	writeRoutes(&b, r)
	writeFlow(&b, r.Flow, r.Slots())
	if h := r.H2; h != nil {
		fmt.Fprintf(&b, "  http/2        %d streams per connection; windows granted: stream %d B, connection %d B; server's: stream %d B",
			h.StreamsPerConnection, h.StreamWindowBytes, h.ConnectionWindowBytes, h.PeerInitialWindowBytes)
		if h.PeerMaxStreams > 0 {
			fmt.Fprintf(&b, ", at most %d streams", h.PeerMaxStreams)
		}
		if h.GoAways+h.RSTStreamsReceived+h.FlowStalled > 0 {
			fmt.Fprintf(&b, "; %d GOAWAY, %d RST_STREAM, %d failed while stalled by the server's window", h.GoAways, h.RSTStreamsReceived, h.FlowStalled)
		}
		if h.FirstProtocolError != "" {
			fmt.Fprintf(&b, "; PROTOCOL ERROR: %s", h.FirstProtocolError)
		}
		b.WriteString("\n")
	}
	if t := r.TLS; t != nil {
		fmt.Fprintf(&b, "  tls           %s %s", t.Version, t.CipherSuite)
		if t.ALPN != "" {
			fmt.Fprintf(&b, ", ALPN %s", t.ALPN)
		}
		if t.RecordLayer != "" {
			fmt.Fprintf(&b, ", records by %s", t.RecordLayer)
		}
		fmt.Fprintf(&b, "; %d handshakes (%d in the window, %d resumed, resumption %s), each p50 %s max %s",
			t.Handshakes, t.HandshakesInWindow, t.Resumed, onOff(t.Resumption), us(t.HandshakeMicros.P50), us(t.HandshakeMicros.Max))
		if t.Failures > 0 {
			fmt.Fprintf(&b, "; %d FAILED, the first: %s", t.Failures, t.FirstError)
		}
		if t.FirstRecordError != "" {
			fmt.Fprintf(&b, "; RECORD FAILED: %s", t.FirstRecordError)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "  reconnects    %d", r.Reconnects)
	if r.Mode == "open" {
		fmt.Fprintf(&b, "   late sends %d (no free connection when due)", r.LateSends)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  generator     %.2f CPU-s in %s on %d cores (%.0f %%)", r.GeneratorCPUSeconds,
		secs(r.DurationSeconds), r.CoresAvailable, 100*r.GeneratorCPUSeconds/(r.DurationSeconds*float64(r.CoresAvailable)))
	if r.GeneratorWaitSeconds > 0 {
		fmt.Fprintf(&b, ", %.2f s waiting for a CPU", r.GeneratorWaitSeconds)
	}
	if r.ClientBound {
		b.WriteString("  CLIENT-BOUND: the generator was the bottleneck; these figures describe it, not the server")
	}
	b.WriteString("\n")
	if r.WarmupSeconds > 0 {
		fmt.Fprintf(&b, "  warm-up       %d attempts, %d succeeded, %d failed (not counted above)",
			r.Warmup.Attempts, r.Warmup.Successes, r.Warmup.Errors)
		switch r.WarmupEnd {
		case "steady":
			fmt.Fprintf(&b, "; steady after %d slices of %s", len(r.WarmupSlices), secs(r.WarmupSliceSeconds))
		case "cap":
			fmt.Fprintf(&b, "; NOT STEADY at the cap (%d slices of %s)", len(r.WarmupSlices), secs(r.WarmupSliceSeconds))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "  drain         %d answered after the window: %d succeeded, %d failed (not counted above)",
		r.Drain.Attempts-r.Drain.Abandoned, r.Drain.Successes, r.Drain.Errors)
	if r.Drain.Abandoned > 0 {
		fmt.Fprintf(&b, "; %d cut short by the stop", r.Drain.Abandoned)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRoutes writes a mix's routes, one line each.
func writeRoutes(b *strings.Builder, r *Result) {
	if len(r.Routes) == 0 {
		return
	}
	fmt.Fprintf(b, "  mix           %d routes, seed %d; per route: share of attempts (weight's share), throughput, latency, errors\n", len(r.Routes), r.MixSeed)
	for _, rt := range r.Routes {
		fmt.Fprintf(b, "    %-12s %5.1f %% (%5.1f %%)  %.1f req/s  %s  errors %s\n", rt.Name, 100*rt.Share, 100*rt.WeightShare,
			rt.ThroughputRPS, latencyLine(rt.LatencyMicros, rt.Successes), ErrorSplit(rt.Errors))
	}
}

// Slots is the most requests a run keeps in flight at once, and a flow
// run's number of users: its connections, times the streams of each over
// HTTP/2.
func (r *Result) Slots() int {
	if r.H2 != nil && r.H2.StreamsPerConnection > 0 {
		return r.Connections * r.H2.StreamsPerConnection
	}
	return r.Connections
}

// writeFlow writes a flow run's flows and steps, by users users.
func writeFlow(b *strings.Builder, f *FlowResult, users int) {
	if f == nil {
		return
	}
	fmt.Fprintf(b, "  flows         %.1f flows/s", f.FlowsPerSecond)
	if users > 0 {
		fmt.Fprintf(b, " by %d users", users)
	}
	fmt.Fprintf(b, ": %d started, %d completed, %d failed", f.Started, f.Completed, f.Failed)
	if f.Unsent > 0 {
		fmt.Fprintf(b, ", %d due and never started (no user free)", f.Unsent)
	}
	if f.GeneratorCPUMicrosPerFlow > 0 {
		fmt.Fprintf(b, "; %.0f generator CPU-µs per flow", f.GeneratorCPUMicrosPerFlow)
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "  flow time     %s  (first send to last answer, think times included)\n", latencyLine(f.LatencyMicros, f.Completed))
	if f.Failed > 0 {
		fmt.Fprintf(b, "  failed flows  %s  (step: class of the first failing step)\n", ErrorSplit(f.Failures))
	}
	for _, s := range f.Steps {
		fmt.Fprintf(b, "    %-12s %.1f req/s  %s  errors %s\n", s.Name, s.ThroughputRPS, latencyLine(s.LatencyMicros, s.Successes), ErrorSplit(s.Errors))
	}
}

// ErrorSplit lists the non-zero error classes of a Result's Errors,
// largest first ("status_503 12, timeout 3"), or "none".
func ErrorSplit(errs map[string]int64) string {
	type kv struct {
		k string
		v int64
	}
	var list []kv
	for k, v := range errs {
		if v > 0 {
			list = append(list, kv{k, v})
		}
	}
	if len(list) == 0 {
		return "none"
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].v != list[j].v {
			return list[i].v > list[j].v
		}
		return list[i].k < list[j].k
	})
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = fmt.Sprintf("%s %d", e.k, e.v)
	}
	return strings.Join(parts, ", ")
}

func latencyLine(l Latency, n int64) string {
	if n == 0 {
		return "n/a (no response)"
	}
	return fmt.Sprintf("p50 %s  p75 %s  p90 %s  p99 %s  p99.9 %s  p99.99 %s  max %s  mean %s",
		us(l.P50), us(l.P75), us(l.P90), us(l.P99), us(l.P999), us(l.P9999), us(l.Max), us(int64(l.Mean)))
}

// us formats microseconds with a readable unit.
func us(v int64) string {
	d := time.Duration(v) * time.Microsecond
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", v)
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(v)/1e3)
	}
	return fmt.Sprintf("%.2fs", float64(v)/1e6)
}

func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
