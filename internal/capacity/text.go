package capacity

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteText writes the report for a person: the capacity (or what is
// known), the figures at it, the bracket, the start, and every probe.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	target := strings.TrimSpace(r.Method + " " + r.URL)
	within := fmt.Sprintf("%s ≤ %s, errors ≤ %s", r.SLO.Name(), r.SLO.Latency, pct(r.MaxErrorShare))
	switch r.Status {
	case StatusConfirmed:
		fmt.Fprintf(&b, "capacity of %s within %s: %.1f req/s, confirmed over %d windows of %s\n\n",
			target, within, r.CapacityRPS, r.Confirmations, secs(r.ProbeSeconds))
	case StatusBudget:
		fmt.Fprintf(&b, "capacity of %s within %s: not confirmed within the %s budget; %s\n\n",
			target, within, secs(r.BudgetSeconds), r.bracketText())
	case StatusNoPass:
		fmt.Fprintf(&b, "capacity of %s within %s: none found; no rate down to the floor met it\n\n", target, within)
	default:
		fmt.Fprintf(&b, "capacity of %s within %s: search %s; %s\n\n", target, within, r.Status, r.bracketText())
	}
	if f := r.AtCapacity; f != nil {
		l := f.LatencyMicros
		fmt.Fprintf(&b, "  at capacity   p50 %s  p99 %s  p99.9 %s  max %s  throughput %.1f req/s\n",
			fmtMicros(l.P50), fmtMicros(l.P99), fmtMicros(l.P999), fmtMicros(l.Max), f.ThroughputRPS)
		fmt.Fprintf(&b, "                errors %s  unfinished %s  unsent %s  (%d passing windows merged",
			pct(f.ErrorShare), pct(f.UnfinishedShare), pct(f.UnsentShare), f.Windows)
		if f.Overturned > 0 {
			fmt.Fprintf(&b, "; %d failed window(s) overturned by a repeat, not merged", f.Overturned)
		}
		b.WriteString(")\n")
	}
	fmt.Fprintf(&b, "  bracket       %s (resolution %s)\n", r.bracketText(), pct(r.Resolution))
	if r.ClosedLoopRPS > 0 {
		fmt.Fprintf(&b, "  start         %.1f req/s: %.0f %% of a closed-loop %.1f req/s (%s)\n",
			r.StartRPS, 100*r.StartRPS/r.ClosedLoopRPS, r.ClosedLoopRPS, r.StartFrom)
	}
	fmt.Fprintf(&b, "  search        %d probes in %s (budget %s); each %s warm-up + %s window, open loop, latency from the schedule\n",
		len(r.Probes), secs(r.ElapsedSeconds), secs(r.BudgetSeconds), secs(r.WarmupSeconds), secs(r.ProbeSeconds))
	if r.IgnoreStarvation {
		b.WriteString("                the generator's CPU wait was not judged\n")
	}
	b.WriteString("\n")
	r.writeProbes(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) bracketText() string {
	switch {
	case r.LastPassRPS == 0 && r.FirstFailRPS == 0:
		return "no open-loop probe ran"
	case r.FirstFailRPS == 0:
		return fmt.Sprintf("last pass %.1f req/s, no failing rate found", r.LastPassRPS)
	case r.LastPassRPS == 0:
		return fmt.Sprintf("no passing rate, first fail %.1f req/s", r.FirstFailRPS)
	}
	return fmt.Sprintf("last pass %.1f req/s, first fail %.1f req/s", r.LastPassRPS, r.FirstFailRPS)
}

// writeProbes is the probe table; the SLO's percentile gets a column of
// its own when it is not among p50, p99 and p99.9.
func (r *Report) writeProbes(b *strings.Builder) {
	own := r.SLO.Name()
	extra := own != "p50" && own != "p99" && own != "p99.9"
	fmt.Fprintf(b, "  %5s  %-8s  %10s  %10s  %9s  %9s  %9s", "probe", "phase", "rate", "served", "p50", "p99", "p99.9")
	if extra {
		fmt.Fprintf(b, "  %9s", own)
	}
	fmt.Fprintf(b, "  %7s  %10s  %7s  %s\n", "errors", "unfinished", "unsent", "verdict")
	for _, p := range r.Probes {
		rate := fmt.Sprintf("%.1f", p.RateRPS)
		if p.Phase == PhaseEstimate {
			rate = "closed"
		}
		l := p.LatencyMicros
		fmt.Fprintf(b, "  %5d  %-8s  %10s  %10.1f  %9s  %9s  %9s", p.Index, p.Phase, rate, p.ThroughputRPS,
			fmtMicros(l.P50), fmtMicros(l.P99), fmtMicros(l.P999))
		if extra {
			fmt.Fprintf(b, "  %9s", fmtMicros(l.SLO))
		}
		verdict := "pass"
		switch {
		case p.Phase == PhaseEstimate:
			verdict = "(start estimate, not judged)"
		case !p.Pass:
			verdict = "FAIL: " + strings.Join(p.Reasons, "; ")
		}
		if p.Repeat {
			verdict = "(repeat) " + verdict
		}
		fmt.Fprintf(b, "  %7s  %10s  %7s  %s\n", pct(p.ErrorShare), pct(p.UnfinishedShare), pct(p.UnsentShare), verdict)
	}
}

func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}
