package analysis

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// StackFingerprint identifies what a stack runs, for telling whether two
// runs share an unchanged reference stack: the whole resolved stack as the
// plan has it (commands, environment, health path, revision where the
// plan has one), with its directory relative to the comparison file so a
// moved checkout keeps it, and without its name, its step and its line.
func StackFingerprint(s plan.Stack, file string) string {
	if file != "" {
		if rel, err := filepath.Rel(filepath.Dir(file), s.Dir); err == nil {
			s.Dir = filepath.ToSlash(rel)
		}
	}
	s.Name, s.From, s.Line, s.DX = "", "", 0, nil
	s.TFB = nil                  // labels and parity rules: what the stack serves is the same
	data, err := json.Marshal(s) // maps marshal with sorted keys: stable
	if err != nil {
		panic("analysis: stack fingerprint: " + err.Error()) // plain data; cannot fail
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:12])
}

// SharedReference returns the reference two runs share: want when given
// (it must be in both, with the same fingerprint), else the first stack of
// run a that run b has with the same fingerprint. ok is false, with the
// reason, when there is none.
func SharedReference(a, b *Result, want string) (ref string, ok bool, why string) {
	candidates := a.Header.Stacks
	if want != "" {
		candidates = []string{want}
	}
	for _, s := range candidates {
		fa, inA := a.Header.StackFingerprints[s]
		fb, inB := b.Header.StackFingerprints[s]
		switch {
		case !inA || !inB:
			if want != "" {
				return "", false, fmt.Sprintf("the reference stack %q is not in both runs (or a run was written before stacks were fingerprinted)", want)
			}
		case fa != fb:
			if want != "" {
				return "", false, fmt.Sprintf("the reference stack %q changed between the runs (its build, start, environment or revision differ: %s and %s)", want, fa, fb)
			}
		default:
			return s, true, ""
		}
	}
	return "", false, "no stack is in both runs unchanged (same name, same build, start, environment and revision)"
}

// DefaultBetweenRunSpread is the run-to-run spread of a stack's figure
// (or its ratio to a reference) assumed when each side of a comparison is
// a single run and the user states none: 3 %, the standard deviation on
// the log scale. It is a stated floor, not a measurement of the user's
// machine: measure yours with repeated runs of the same code (report A1
// … -- B1 …) and pass it with --between-run.
const DefaultBetweenRunSpread = 0.03

// CrossRunOptions say how steps between runs are called.
type CrossRunOptions struct {
	// Reference is the stack every run shares unchanged; empty compares
	// the stacks' own windows (pooled).
	Reference string
	// Family controls false calls over all the comparison's calls at
	// once (stats.FamilyRun) or each on its own.
	Family           stats.Family
	MinEffect, Alpha float64
	// BetweenRunSD is the run-to-run spread (standard deviation of the
	// log) each single run adds; with two runs or more a side the runs
	// are the unit and their own spread is used instead.
	BetweenRunSD float64
	// CostBetweenRunSD is the same for the fixed-rate cost, when it was
	// measured apart (SpreadMeasure.CostSD); 0 takes BetweenRunSD.
	CostBetweenRunSD float64
}

// CompareRuns calls each stack's change from the runs as to the runs bs
// (one or more a side), per case and concurrency, every call in one
// false-call family. A run's figure for a stack is its per-round ratio to
// the reference (or, pooled, its per-process values). With one run a
// side the two runs' figures are compared as two independent samples
// (the Hodges–Lehmann shift) and the interval widened by the stated
// run-to-run spread of each run (stats.WithBetweenRun): the rounds alone
// carry none of what moves a whole run. With two runs or more a side each
// run gives one value (the geometric mean of its figures) and the runs
// are compared as the unit (stats.RunsShift), so their own spread is the
// between-run term.
func CompareRuns(as, bs []*Result, stacks []string, cases []CaseInfo, levels []int, opt CrossRunOptions) []Step {
	withCost := hasCost(as) && hasCost(bs)
	var steps []Step
	var pairs []stats.SidePair
	var cells [][2]Cell
	for _, s := range stacks {
		if s == opt.Reference {
			continue
		}
		for _, ci := range cases {
			for _, conc := range levels {
				st := Step{Kind: StepCompare, From: s, To: s, Case: ci.Name, Concurrency: conc, Database: ci.Database}
				for _, runs := range [][]*Result{as, bs} {
					for _, r := range runs {
						st.Flagged = append(st.Flagged, countedFlags(r.CellOrMissing(s, ci, conc))...)
					}
				}
				for _, metric := range stepMetrics {
					sp, from, to := crossRunPair(as, bs, s, ci, conc, metric.value, opt, closedLoopCell)
					pairs, cells = append(pairs, sp), append(cells, [2]Cell{from, to})
				}
				if withCost {
					co := opt
					if opt.CostBetweenRunSD > 0 {
						co.BetweenRunSD = opt.CostBetweenRunSD
					}
					sp, from, to := crossRunPair(as, bs, s, ci, conc, costMetric, co, costCellOf)
					pairs, cells = append(pairs, sp), append(cells, [2]Cell{from, to})
				}
				steps = append(steps, st)
			}
		}
	}
	vs := stats.DecideFamily(opt.Family, stats.Independent, pairs, opt.MinEffect, opt.Alpha)
	k := len(stepMetrics)
	if withCost {
		k++
	}
	for i := range steps {
		steps[i].Throughput = crossRunChange(vs[k*i], cells[k*i], len(as), len(bs), opt)
		steps[i].PerCPU = crossRunChange(vs[k*i+1], cells[k*i+1], len(as), len(bs), opt)
		if withCost {
			c := crossRunChange(lowerIsBetter(vs[k*i+2]), cells[k*i+2], len(as), len(bs), opt)
			c.LowerIsBetter = true
			steps[i].Cost = &c
		}
	}
	return steps
}

// hasCost reports whether every run has fixed-rate cost windows (latency
// cells), so that the comparison can call cost.
func hasCost(runs []*Result) bool {
	for _, r := range runs {
		if len(r.LatencyCells) == 0 {
			return false
		}
	}
	return len(runs) > 0
}

// costMetric is a window's fixed-rate cost.
func costMetric(w WindowFigures) float64 { return callCost(w) }

// closedLoopCell and costCellOf are the cells a cross-run metric reads:
// the closed-loop cell, or the latency cell as the cost call sees it
// (costCell).
func closedLoopCell(r *Result, stack string, ci CaseInfo, conc int) Cell {
	return r.CellOrMissing(stack, ci, conc)
}

func costCellOf(r *Result, stack string, ci CaseInfo, conc int) Cell {
	return costCell(r.latencyCellOrMissing(stack, ci, conc))
}

// crossRunPair is one metric of one stack's step between the runs, with
// the cells that name an invalid side (the stack's, or the reference's
// when it is the one not valid), from the first run of each side.
func crossRunPair(as, bs []*Result, stack string, ci CaseInfo, conc int, metric func(WindowFigures) float64, opt CrossRunOptions,
	cellOf func(r *Result, stack string, ci CaseInfo, conc int) Cell) (stats.SidePair, Cell, Cell) {
	figures := func(r *Result) (stats.Side, Cell) {
		c := cellOf(r, stack, ci, conc)
		if opt.Reference == "" {
			v, rounds := processValues(c, metric)
			return stats.Side{Valid: c.State == CellValid && positive(c, metric), Windows: v, Rounds: rounds}, c
		}
		ref := cellOf(r, opt.Reference, ci, conc)
		if c.State == CellValid && ref.State != CellValid {
			c = ref
		}
		return ratioSide(cellOf(r, stack, ci, conc), ref, metric), c
	}
	what := "each run's per-process values"
	if opt.Reference != "" {
		what = "each run's per-round ratio to the reference " + opt.Reference
	}
	fa, ca := figures(as[0])
	fb, cb := figures(bs[0])
	sp := stats.SidePair{From: fa, To: fb}
	if len(as) == 1 && len(bs) == 1 {
		sd := opt.BetweenRunSD
		sp.Decide = func(level float64) stats.Verdict {
			if !fa.Valid || !fb.Valid {
				return stats.Verdict{Call: stats.CallInvalid, Reason: "a side is not valid", MinEffect: opt.MinEffect, Alpha: level}
			}
			// The within-run spread from the interval at the comparison's
			// α (a property of the rounds, not of the level asked).
			s, err := stats.HodgesLehmann(fa.Windows, fb.Windows, opt.Alpha)
			at := func(l float64) (stats.Shift, error) { return stats.WithBetweenRun(s, opt.Alpha, sd, l), err }
			return stats.DecideShift(at, fmt.Sprintf("%s (%d in A, %d in B), with a run-to-run spread of %s a run", what, len(fa.Windows), len(fb.Windows), pctText(sd)), opt.MinEffect, level)
		}
		return sp, ca, cb
	}
	runValues := func(runs []*Result) (vals []float64, invalid int) {
		for _, r := range runs {
			f, _ := figures(r)
			if !f.Valid || len(f.Windows) == 0 {
				invalid++
				continue
			}
			vals = append(vals, geoMean(f.Windows))
		}
		return vals, invalid
	}
	va, ia := runValues(as)
	vb, ib := runValues(bs)
	sp.From, sp.To = stats.Side{Valid: len(va) >= 2, Windows: va}, stats.Side{Valid: len(vb) >= 2, Windows: vb}
	sp.Decide = func(level float64) stats.Verdict {
		if len(va) < 2 || len(vb) < 2 {
			return stats.Verdict{Call: stats.CallInvalid, MinEffect: opt.MinEffect, Alpha: level,
				Reason: fmt.Sprintf("%d of %d runs in A and %d of %d in B have a valid cell; the runs as the unit need two a side", len(va), len(as), len(vb), len(bs))}
		}
		at := func(l float64) (stats.Shift, error) { return stats.RunsShift(va, vb, l) }
		what := fmt.Sprintf("runs as the unit (%d in A, %d in B, Welch's t on %s, one value a run)", len(va), len(vb), what)
		if ia+ib > 0 {
			what += fmt.Sprintf("; %d run(s) left out for a cell that is not valid", ia+ib)
		}
		return stats.DecideShift(at, what, opt.MinEffect, level)
	}
	return sp, ca, cb
}

// crossRunChange is a cross-run verdict as the report shows it: counts in
// runs when the runs are the unit.
func crossRunChange(v stats.Verdict, c [2]Cell, runsA, runsB int, opt CrossRunOptions) Change {
	ch := changeOf(v, c[0], c[1])
	ch.WindowsNeeded = 0 // more windows cannot shrink a between-run term
	if runsA > 1 || runsB > 1 {
		ch.Unit, ch.FromWindows, ch.ToWindows = "runs", runsA, runsB
		ch.FromValues, ch.ToValues = v.Shift.N1, v.Shift.N2
	}
	ch.Detectable80Pct = detectable80(v, opt.Alpha)
	if ch.Detectable80Pct > 0 && ch.Call != stats.CallInvalid {
		ch.Reason += fmt.Sprintf("; this comparison would catch a true change of ±%.1f %% in 80 %% of runs", ch.Detectable80Pct)
	}
	return ch
}

// detectable80 is the smallest true change, in per cent, that a
// comparison with this verdict's interval would call (exclude 0 at
// alpha) in 80 % of repeats: on the log scale, the interval's half-width
// at alpha is z(1−α/2) standard errors, and a change is caught 80 % of
// the time when it lies z(1−α/2) + z(0.8) standard errors from 0 (the
// normal approximation the between-run interval already makes). 0 when
// the interval is not bounded.
func detectable80(v stats.Verdict, alpha float64) float64 {
	sh := v.Shift
	if !sh.Bounded || sh.Lo <= -1 || math.IsInf(sh.Hi, 0) || alpha <= 0 || alpha >= 1 {
		return 0
	}
	halfLog := (math.Log1p(sh.Hi) - math.Log1p(sh.Lo)) / 2
	conf := sh.Confidence
	if conf <= 0 || conf >= 1 {
		conf = 1 - alpha
	}
	zi := normalQuantile(1 - (1-conf)/2)
	se := halfLog / zi
	za := normalQuantile(1 - alpha/2)
	return 100 * math.Expm1((za+normalQuantile(0.8))*se)
}

// normalQuantile is the standard normal's quantile function.
func normalQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

func geoMean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

func pctText(f float64) string { return fmt.Sprintf("%g %%", math.Round(f*1000)/10) }

// ratioSide is one run's per-round ratios of a stack's cell to the
// reference's, for one metric.
func ratioSide(stack, ref Cell, metric func(WindowFigures) float64) stats.Side {
	sp := sidesOf(ref, stack, metric)
	if !sp.From.Valid || !sp.To.Valid {
		return stats.Side{}
	}
	x, y, rounds := stats.Pair(sp.From, sp.To)
	out := stats.Side{Valid: len(rounds) > 0, Rounds: rounds}
	for i := range x {
		out.Windows = append(out.Windows, y[i]/x[i])
	}
	return out
}
