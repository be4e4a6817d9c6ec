package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/plan"

	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/stats"
)

// orderSplit is one step's per-round log-ratios log(to ÷ from), split by
// which of its two stacks went first in the round (the window of the
// step's cell that the round laid out first).
type orderSplit struct {
	Step                 analysis.Step
	FromFirst, ToFirst   []float64 // log-ratios of the rounds where that side went first
	Difference           stats.Shift
	DifferenceComputable bool
}

// carryOver splits every step's per-round throughput log-ratio by which
// side went first in that round. A round's value of a side is the
// geometric mean of its counted windows of the round (one process a round
// in an interleaved run, as the paired call uses). Difference is the
// two-sample Hodges–Lehmann shift from the to-first rounds' ratios to the
// from-first rounds', with its Mann–Whitney interval at α: with no
// carry-over it is about 0; a carry-over that favours the side going
// second by c shows as about 2c (+c in the from-first rounds, −c in the
// others).
func carryOver(m *report.Model, planned []plan.Window, alpha float64) []orderSplit {
	type cellRound struct {
		stack, cas  string
		conc, round int
	}
	first := map[cellRound]int{}
	for _, w := range planned {
		k := cellRound{w.Stack, w.Case, w.Concurrency, w.Round}
		if i, ok := first[k]; !ok || w.Index < i {
			first[k] = w.Index
		}
	}
	var out []orderSplit
	type stepKey struct {
		from, to, cas string
		conc          int
	}
	seen := map[stepKey]bool{}
	for _, s := range m.Steps {
		// The overall step first → last is the adjacent one with two
		// steps from the first stack (from:): one row is enough.
		if k := (stepKey{s.From, s.To, s.Case, s.Concurrency}); seen[k] {
			continue
		} else {
			seen[k] = true
		}
		from, okF := m.Cell(s.From, s.Case, s.Concurrency)
		to, okT := m.Cell(s.To, s.Case, s.Concurrency)
		if !okF || !okT {
			continue
		}
		fr, tr := roundLogs(from), roundLogs(to)
		o := orderSplit{Step: s}
		for r, lt := range tr {
			lf, ok := fr[r]
			if !ok {
				continue
			}
			fi, okF := first[cellRound{s.From, s.Case, s.Concurrency, r}]
			ti, okT := first[cellRound{s.To, s.Case, s.Concurrency, r}]
			switch {
			case !okF || !okT:
			case fi < ti:
				o.FromFirst = append(o.FromFirst, lt-lf)
			default:
				o.ToFirst = append(o.ToFirst, lt-lf)
			}
		}
		if len(o.FromFirst) > 0 && len(o.ToFirst) > 0 {
			sh, err := stats.HodgesLehmann(exps(o.ToFirst), exps(o.FromFirst), alpha)
			o.Difference, o.DifferenceComputable = sh, err == nil
		}
		out = append(out, o)
	}
	return out
}

// roundLogs is a cell's mean log throughput per round over its counted
// windows.
func roundLogs(c analysis.Cell) map[int]float64 {
	sum, n := map[int]float64{}, map[int]int{}
	for _, w := range c.PerWindow {
		if !w.Counted || !(w.ThroughputRPS > 0) {
			continue
		}
		sum[w.Round] += math.Log(w.ThroughputRPS)
		n[w.Round]++
	}
	out := map[int]float64{}
	for r, s := range sum {
		out[r] = s / float64(n[r])
	}
	return out
}

func exps(logs []float64) []float64 {
	out := make([]float64, len(logs))
	for i, l := range logs {
		out[i] = math.Exp(l)
	}
	return out
}

// medianPct is the median of log-ratios as a percent change, and "–" for
// none.
func medianPct(logs []float64) string {
	if len(logs) == 0 {
		return "–"
	}
	m, _ := stats.Quantile(logs, 0.5)
	return fmt.Sprintf("%+.1f %%", 100*math.Expm1(m))
}

// printCarryOver writes the split of every step (all kinds, every case and
// level) and a summary line.
func printCarryOver(w io.Writer, splits []orderSplit, alpha float64, order string) {
	fmt.Fprintf(w, "carry-over (order %s): each step's per-round throughput change, by which side went first in the round; difference = HL shift from the to-first rounds to the from-first rounds, %.0f %% interval (about twice what going second gains)\n", order, 100*(1-alpha))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "step\tcase\tc\tfrom first\tn\tto first\tn\tdifference\tinterval")
	var diffs []float64
	excluding := 0
	for _, o := range splits {
		s := o.Step
		diff, iv := "–", "–"
		if o.DifferenceComputable {
			diff = fmt.Sprintf("%+.1f %%", 100*o.Difference.Estimate)
			diffs = append(diffs, math.Log1p(o.Difference.Estimate))
			if o.Difference.Bounded {
				iv = fmt.Sprintf("%+.1f … %+.1f %%", 100*o.Difference.Lo, 100*o.Difference.Hi)
				if o.Difference.Lo > 0 || o.Difference.Hi < 0 {
					excluding++
					iv += " *"
				}
			}
		}
		fmt.Fprintf(tw, "%s → %s\t%s\t%d\t%s\t%d\t%s\t%d\t%s\t%s\n", s.From, s.To, s.Case, s.Concurrency,
			medianPct(o.FromFirst), len(o.FromFirst), medianPct(o.ToFirst), len(o.ToFirst), diff, iv)
	}
	tw.Flush()
	if len(diffs) > 0 {
		med, _ := stats.Quantile(diffs, 0.5)
		fmt.Fprintf(w, "median difference over %d steps: %+.1f %%; %d interval(s) exclude 0 (*), about %.1f expected by chance at α %.2g\n\n",
			len(diffs), 100*math.Expm1(med), excluding, alpha*float64(len(diffs)), alpha)
	}
}
