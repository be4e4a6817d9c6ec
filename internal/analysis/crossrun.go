package analysis

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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

// CompareToReference is a stack's change from run a to run b measured
// against a reference stack both runs share: each run gives, per round,
// the ratio of the stack to the reference (their process values paired by
// round), and the step compares run a's ratios with run b's as two
// independent samples — a difference in differences, the two-sample
// Hodges–Lehmann shift with its exact Mann–Whitney interval at alpha. A
// drift of the host within a run lands on both stacks of a round and
// cancels; a change of the host between the runs lands on the reference
// too and cancels; only what changed the stack relative to the reference
// remains. Swapping a and b reverses the interval exactly.
func CompareToReference(a, b *Result, stack, ref string, ci CaseInfo, conc int, minEffect, alpha float64) Step {
	sa, ra := a.CellOrMissing(stack, ci, conc), a.CellOrMissing(ref, ci, conc)
	sb, rb := b.CellOrMissing(stack, ci, conc), b.CellOrMissing(ref, ci, conc)
	st := Step{Kind: StepCompare, From: stack, To: stack, Case: ci.Name, Concurrency: conc, Database: ci.Database,
		Flagged: append(append(countedFlags(sa), countedFlags(sb)...), append(countedFlags(ra), countedFlags(rb)...)...)}
	for i, metric := range stepMetrics {
		from := ratioSide(sa, ra, metric)
		to := ratioSide(sb, rb, metric)
		v := stats.DecideBy(stats.Independent, from, to, minEffect, alpha)
		c := changeOf(v, sa, sb)
		if v.Call == stats.CallInvalid {
			c.Reason = invalidReason(ra, rb, invalidReason(sa, sb, v.Reason))
		} else {
			c.Reason += fmt.Sprintf("; each run's per-round ratio to the reference %s (%d rounds in A, %d in B)", ref, len(from.Windows), len(to.Windows))
		}
		if i == 0 {
			st.Throughput = c
		} else {
			st.PerCPU = c
		}
	}
	return st
}

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
