package analysis

import (
	"fmt"
	"strings"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// Capacity steps are called here, as every call is (docs/capacity.md);
// report builds the capacity rows from the journal's searches and
// renders what this decides.

// CapacitySide is one stack's searches of one case as a capacity step
// reads them: its confirmed searches' capacities, and how many searches
// it had.
type CapacitySide struct {
	Stack string
	// Status is the stack's capacity status, said when it has none.
	Status              string
	Searches, Confirmed int
	CapacitiesRPS       []float64
}

// CapacityStepInput is one capacity step's two sides.
type CapacityStepInput struct {
	From, To CapacitySide
}

// CallCapacitySteps calls every capacity step of the run (each stack pair
// on each searched case, in) at once: under family run their false calls are
// controlled together, a family of their own (Benjamini–Hochberg at α over
// the capacity steps, stated in each reason; the throughput family is not
// changed by them), else each at α.
func CallCapacitySteps(in []CapacityStepInput, family stats.Family, minEffect, alpha float64) []Change {
	var sides []stats.SidePair
	for _, st := range in {
		from, to := st.From, st.To
		sides = append(sides, stats.SidePair{
			From:   stats.Side{Valid: len(from.CapacitiesRPS) > 0, Windows: from.CapacitiesRPS},
			To:     stats.Side{Valid: len(to.CapacitiesRPS) > 0, Windows: to.CapacitiesRPS},
			Decide: func(level float64) stats.Verdict { return CapacityVerdict(from, to, minEffect, level) },
		})
	}
	vs := stats.DecideFamily(family, stats.Independent, sides, minEffect, alpha)
	out := make([]Change, len(in))
	for i, st := range in {
		out[i] = CapacityChange(st.From, st.To, vs[i], alpha)
	}
	return out
}

// CapacityVerdict decides a capacity step from the two stacks' searches:
// each confirmed search gives one value, its capacity (the middle of its
// bracket), and the two-sample Hodges–Lehmann shift between the two sets
// gives the estimate and its Mann–Whitney interval at 1 − alpha
// (stats.HodgesLehmann), called against the run's minimum effect as a
// throughput step of independent windows is: gain or loss when the
// interval excludes 0 (its size says whether it also lies past the
// minimum effect), same when its interval at 1 − 2α lies within ±δ
// (stats.SameLevel). Each search is a fresh
// process's whole search, so the interval holds the spread between
// processes and between searches as the run met it. A side without a
// confirmed search makes the step invalid; too few searches for a finite
// interval leave it undecided (docs/capacity.md).
func CapacityVerdict(from, to CapacitySide, minEffect, alpha float64) stats.Verdict {
	for _, r := range []CapacitySide{from, to} {
		if len(r.CapacitiesRPS) == 0 {
			return stats.Verdict{Call: stats.CallInvalid, MinEffect: minEffect, Alpha: alpha,
				Reason: fmt.Sprintf("%s has no confirmed capacity (%s)", r.Stack, r.Status)}
		}
	}
	v := stats.Decide(stats.Side{Valid: true, Windows: from.CapacitiesRPS}, stats.Side{Valid: true, Windows: to.CapacitiesRPS}, minEffect, alpha)
	if v.Call == stats.CallInvalid {
		return v
	}
	data := fmt.Sprintf("over the two stacks' search capacities (%s)", restsOn(from, to))
	if v.Call == stats.CallUndecided && !v.Shift.Bounded {
		v.Reason = fmt.Sprintf("too few searches (%s) for any finite interval at α=%.2g: %s", restsOn(from, to), alpha, searchesNeeded(alpha))
		return v
	}
	v.Reason = data + ", " + v.Reason
	return v
}

// CapacityChange is a capacity step's verdict as the report shows it,
// counted in searches.
func CapacityChange(from, to CapacitySide, v stats.Verdict, alpha float64) Change {
	c := Change{Call: v.Call, Size: v.Size, MinEffectPct: 100 * v.MinEffect, Reason: v.Reason, FromWindows: len(from.CapacitiesRPS), ToWindows: len(to.CapacitiesRPS),
		Unit: "searches", P: v.Shift.P, FamilyCalls: v.FamilySize, FamilySelected: v.FamilySelected}
	if v.Call == stats.CallInvalid {
		c.P = 0
		return c
	}
	c.EstimatePct = 100 * v.Shift.Estimate
	if v.Shift.Bounded {
		lo, hi := 100*v.Shift.Lo, 100*v.Shift.Hi
		c.CILowPct, c.CIHighPct, c.Confidence = &lo, &hi, v.Shift.Confidence
	}
	// DecideFamily names the run's family; the capacity steps are their own.
	if i := strings.Index(c.Reason, "; selected by false-call control"); i >= 0 {
		c.Reason = c.Reason[:i]
	}
	c.Reason = strings.ReplaceAll(c.Reason, "over the run's", "over the capacity steps'")
	if v.FamilySize > 1 {
		c.Reason += fmt.Sprintf("; the capacity steps are a false-call family of their own (%d calls, Benjamini–Hochberg at α=%g; %d selected)", v.FamilySize, alpha, v.FamilySelected)
	}
	return c
}

// restsOn says how many searches each side of a capacity step rests on:
// "4 and 4 searches", "3 of 4 and 4 searches".
func restsOn(from, to CapacitySide) string {
	side := func(r CapacitySide) string {
		if r.Searches > r.Confirmed {
			return fmt.Sprintf("%d of %d", r.Confirmed, r.Searches)
		}
		return fmt.Sprint(r.Confirmed)
	}
	return side(from) + " and " + side(to) + " searches"
}

// searchesNeeded names the fewest searches a side that can give a capacity
// step a finite interval at α with one search of a side lost.
func searchesNeeded(alpha float64) string {
	for k := 1; k <= plan.MaxCapacitySearches; k++ {
		if stats.MinP(k, k-1) <= alpha {
			return fmt.Sprintf("%d a side can, even with one search lost (capacity: searches: %d)", k, k)
		}
	}
	return "raise capacity: searches"
}
