package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// VerdictLines is the verdict of a run in three lines, as every report
// surface opens with it: what was decided (the steps' calls on the run's
// headline metric, throughput unless calls: says otherwise, and the
// thresholds), what was not and why, and what would decide it.
func VerdictLines(m *Model) []string {
	counts := map[stats.Call]int{}
	var needed []int
	var noise []float64
	unit := "windows a side"
	headline := m.Header.Headline()
	for i := range m.Steps {
		c := m.Steps[i].Metric(headline)
		if c == nil {
			counts[stats.CallInvalid]++
			continue
		}
		counts[c.Call]++
		if c.Call == stats.CallUndecided && c.PairedSDPct != nil {
			noise = append(noise, *c.PairedSDPct)
		}
		if c.Call == stats.CallUndecided && c.WindowsNeeded > 0 {
			needed = append(needed, c.WindowsNeeded)
			// The unit each case's line uses (windowsNeededText).
			unit = neededUnit(*c)
		}
	}
	n := len(m.Steps)
	decided := counts[stats.CallGain] + counts[stats.CallLoss] + counts[stats.CallSame]
	var lines [3]string
	switch {
	case n == 0:
		lines[0] = "Decided: no step to call (a run of one stack)"
	default:
		var parts []string
		for _, c := range []stats.Call{stats.CallGain, stats.CallLoss, stats.CallSame} {
			if counts[c] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[c], c))
			}
		}
		lines[0] = fmt.Sprintf("Decided: %d of %d step calls on %s", decided, n, analysis.MetricLabel(headline))
		if len(parts) > 0 {
			lines[0] += " (" + strings.Join(parts, ", ") + ")"
		}
		if o := overallCounts(m.Steps, headline); o != "" {
			lines[0] += "; " + o
		}
	}
	if l := latencyCounts(m.Steps, headline); l != "" {
		lines[0] += "; latency at a fixed rate: " + l
	}
	if t := thresholdCounts(m.Thresholds); t != "" {
		lines[0] += "; thresholds: " + t
	}
	lines[0] += "."
	undecided, invalid := counts[stats.CallUndecided], counts[stats.CallInvalid]
	switch {
	case undecided == 0 && invalid == 0:
		lines[1] = "Not decided: nothing."
	default:
		var why []string
		if undecided > 0 {
			w := fmt.Sprintf("%d undecided", undecided)
			switch d := m.Header.Dispersion; {
			case len(noise) > 0:
				// What the undecided calls rest on: their pairs' noise.
				med, _ := stats.Quantile(noise, 0.5)
				w += fmt.Sprintf(": their paired noise is %.1f %% (median), against a minimum effect of %.0f %%", med, 100*m.Header.MinEffect)
			case d.Known && headline == plan.MetricThroughput:
				w += fmt.Sprintf(": windows vary %.0f %% (median robust CV), against a minimum effect of %.0f %%", 100*d.MedianCV, 100*m.Header.MinEffect)
			}
			why = append(why, w)
		}
		if invalid > 0 {
			why = append(why, fmt.Sprintf("%d invalid: a cell was insufficient, failed or not measured", invalid))
		}
		lines[1] = "Not decided: " + strings.Join(why, "; ") + "."
	}
	switch {
	case undecided > 0 && len(needed) > 0:
		slices.Sort(needed)
		med := needed[len(needed)/2]
		if med >= stats.MaxWindowsNeeded {
			lines[2] = fmt.Sprintf("To decide: more than %d %s; the effects are below what this host can resolve — raise min_effect or quiet the host.", stats.MaxWindowsNeeded, unit)
		} else {
			lines[2] = fmt.Sprintf("To decide: half of them need ~%d %s or fewer (each decided in 80 %% of runs at its need) — more rounds (--rounds, or rounds: auto with a larger --budget) or the full profile.", med, unit)
		}
	case undecided > 0:
		lines[2] = "To decide: more rounds (--rounds, or rounds: auto with a larger --budget) or the full profile."
	case invalid > 0:
		lines[2] = "To decide: see why each invalid cell failed (its windows' flags) and rerun."
	default:
		lines[2] = "To decide: nothing left."
	}
	return lines[:]
}

// overallCounts says how many of the calls are the first → last steps,
// which restate the layers' findings together ("of them 4 first → last: 2
// loss, 2 same"), so that a finding is not read as two; "" without
// overall steps.
func overallCounts(steps []analysis.Step, headline string) string {
	counts := map[stats.Call]int{}
	n := 0
	for i := range steps {
		if steps[i].Kind != analysis.StepOverall {
			continue
		}
		n++
		if c := steps[i].Metric(headline); c != nil {
			counts[c.Call]++
		}
	}
	if n == 0 {
		return ""
	}
	var parts []string
	for _, c := range []stats.Call{stats.CallGain, stats.CallLoss, stats.CallSame, stats.CallUndecided, stats.CallInvalid} {
		if counts[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[c], c))
		}
	}
	return fmt.Sprintf("of them %d first → last, the layers' findings together (%s)", n, strings.Join(parts, ", "))
}

// latencyCounts counts the steps' p50, p99 and fixed-rate cost calls, "3
// of 6 decided (1 loss, 2 same)", leaving out the headline metric (counted
// already) and the metrics not called; "" when there are none.
func latencyCounts(steps []analysis.Step, headline string) string {
	counts := map[stats.Call]int{}
	n := 0
	for i := range steps {
		for _, name := range plan.LatencyMetrics {
			if c := steps[i].Metric(name); c != nil && name != headline && c.Call != stats.CallNotCalled {
				counts[c.Call]++
				n++
			}
		}
	}
	if n == 0 {
		return ""
	}
	var parts []string
	for _, c := range []stats.Call{stats.CallGain, stats.CallLoss, stats.CallSame} {
		if counts[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[c], c))
		}
	}
	s := fmt.Sprintf("%d of %d p50, p99 and cost calls decided", counts[stats.CallGain]+counts[stats.CallLoss]+counts[stats.CallSame], n)
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// thresholdCounts counts the threshold verdicts, "2 pass, 1 fail"; "" when
// there are none.
func thresholdCounts(ts []ThresholdCheck) string {
	if len(ts) == 0 {
		return ""
	}
	counts := map[string]int{}
	for _, t := range ts {
		counts[t.Verdict]++
	}
	var parts []string
	for _, v := range []string{ThresholdPass, ThresholdFail, ThresholdUndecided, ThresholdInvalid} {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	return strings.Join(parts, ", ")
}

// thresholdLines are the threshold checks, one line each (ThresholdText).
func thresholdLines(m *Model) []string {
	var out []string
	for _, t := range m.Thresholds {
		out = append(out, ThresholdText(t))
	}
	return out
}
