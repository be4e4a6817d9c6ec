// Command precision re-analyses finished runs under both designs, paired by
// round and independent samples, at each run's own α, and prints every
// layer step's throughput call and interval width side by side: what
// pairing the rounds buys on the same windows. Then, for every step, an
// estimate of the carry-over from one window to the next: the step's
// per-round log-ratio split by which of its two stacks went first in the
// round (carryover.go), so that one can see whether the order mattered.
//
//	go run ./bench/precision results/20261201-…  [more results directories]
package main

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"os"
	"slices"
	"text/tabwriter"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/stats"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/precision RESULTS_DIR...")
		os.Exit(2)
	}
	for _, dir := range os.Args[1:] {
		if err := compare(dir); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", dir, err)
			os.Exit(1)
		}
	}
}

func compare(dir string) error {
	res, err := journal.ReadDir(dir)
	if err != nil {
		return err
	}
	models := map[stats.Design]*report.Model{}
	for _, d := range []stats.Design{stats.Paired, stats.Independent} {
		if models[d], err = report.FromResults(res, report.BuildOptions{Design: d}); err != nil {
			return err
		}
	}
	p, ind := models[stats.Paired], models[stats.Independent]
	h := p.Header
	fmt.Printf("%s: layout %s, α %.4g, min effect %.0f %%\n", dir, h.Layout, h.Alpha, 100*h.MinEffect)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "step\tcase\tpaired\twidth\tindependent\twidth")
	var pw, iw []float64
	for i, s := range p.Steps {
		if s.Kind != analysis.StepAdjacent {
			continue
		}
		a, b := s.Throughput, ind.Steps[i].Throughput
		fmt.Fprintf(tw, "%s → %s\t%s\t%s\t%s\t%s\t%s\n", s.From, s.To, s.Case, report.CallText(a), width(a, &pw), report.CallText(b), width(b, &iw))
	}
	tw.Flush()
	if len(pw) > 0 && len(iw) > 0 {
		mp, _ := stats.Quantile(pw, 0.5)
		mi, _ := stats.Quantile(iw, 0.5)
		fmt.Printf("median interval width: paired %.1f points, independent %.1f points (steps with a finite interval: %d and %d)\n\n", mp, mi, len(pw), len(iw))
	}
	printCarryOver(os.Stdout, carryOver(p, res.PlannedWindows(), 0.05), 0.05, h.Order)
	return nil
}

// width is a change's interval width in percentage points, "–" when it has
// none; finite widths are collected in ws.
func width(c analysis.Change, ws *[]float64) string {
	if !c.Bounded() {
		return "–"
	}
	w := *c.CIHighPct - *c.CILowPct
	*ws = slices.Insert(*ws, len(*ws), w)
	return fmt.Sprintf("%.1f", w)
}
