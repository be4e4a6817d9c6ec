package stats

import (
	"errors"
	"fmt"
	"math"

	mstats "github.com/aclements/go-moremath/stats"
)

// Between-run spread (docs/statistics.md, "Comparing two runs"). Two runs
// of the same code differ by more than their rounds say: a rebuild, the
// memory layout, the database's state, the hour each move a whole run.
// A comparison of runs must carry that spread, from repeated runs (runs
// as the unit: RunsShift) or from a stated floor (WithBetweenRun).

// RunsShift compares runs as the unit: from and to hold one value per run
// (each run's own figure), and the shift is the difference of the mean
// logs with Welch's t interval at 1 − alpha and its two-sided p-value.
// With two to five runs a side a rank interval cannot be finite at 5 %
// (2 ÷ C(6, 3) = 0.1), so the t interval is the one that can answer; it
// assumes the runs' log values are roughly normal. Each side needs two
// runs or more and positive values.
func RunsShift(from, to []float64, alpha float64) (Shift, error) {
	if len(from) < 2 || len(to) < 2 {
		return Shift{}, fmt.Errorf("runs shift: %d and %d runs; each side needs at least two", len(from), len(to))
	}
	if !(alpha > 0 && alpha < 1) {
		return Shift{}, fmt.Errorf("runs shift: alpha %g is not in (0, 1)", alpha)
	}
	mx, vx, err := logMeanVar(from)
	if err != nil {
		return Shift{}, err
	}
	my, vy, err := logMeanVar(to)
	if err != nil {
		return Shift{}, err
	}
	nx, ny := float64(len(from)), float64(len(to))
	d := my - mx
	s := Shift{N1: len(from), N2: len(to), Estimate: math.Expm1(d)}
	se2 := vx/nx + vy/ny
	if se2 == 0 {
		// Identical runs on each side: the difference is exact.
		s.Lo, s.Hi, s.Bounded, s.Confidence = s.Estimate, s.Estimate, true, 1
		s.P = 1
		if d != 0 {
			s.P = 0
		}
		return s, nil
	}
	// Welch–Satterthwaite degrees of freedom.
	df := se2 * se2 / (vx*vx/(nx*nx*(nx-1)) + vy*vy/(ny*ny*(ny-1)))
	t := mstats.TDist{V: df}
	se := math.Sqrt(se2)
	s.P = min(1, 2*t.CDF(-math.Abs(d)/se))
	q := tQuantile(df, 1-alpha/2)
	s.Lo, s.Hi = math.Expm1(d-q*se), math.Expm1(d+q*se)
	s.Bounded, s.Confidence = true, 1-alpha
	return s, nil
}

// WithBetweenRun widens a shift between two single runs by a stated
// between-run spread and gives its interval at level: sd is the standard
// deviation, on the log scale, of one run's figure from run to run (0.03
// for 3 %). The shift's own interval, computed at sAlpha, carries its
// within-run spread and is read as a normal one, se_w = half its log
// width ÷ z(sAlpha); each run adds sd², so the difference's standard
// error is √(se_w² + 2·sd²), and the interval at level and the p-value
// are the normal ones at that error. An unbounded shift (too few values
// at sAlpha) stays unbounded.
func WithBetweenRun(s Shift, sAlpha, sd, level float64) Shift {
	if !s.Bounded {
		return s
	}
	lo, hi := math.Log1p(s.Lo), math.Log1p(s.Hi)
	seW := (hi - lo) / (2 * normalQuantile(1-sAlpha/2))
	se := math.Sqrt(seW*seW + 2*sd*sd)
	d := math.Log1p(s.Estimate)
	z := normalQuantile(1 - level/2)
	out := s
	out.Confidence = 1 - level
	if se == 0 {
		out.Lo, out.Hi, out.P = s.Estimate, s.Estimate, 1
		if d != 0 {
			out.P = 0
		}
		return out
	}
	out.Lo, out.Hi = math.Expm1(d-z*se), math.Expm1(d+z*se)
	out.P = min(1, 2*normalCDF(-math.Abs(d)/se))
	return out
}

// DecideShift calls a shift computed elsewhere (RunsShift,
// WithBetweenRun): at returns its interval at a level, asked at alpha and
// at SameLevel(alpha); the reason names how: what. An error at alpha is an
// invalid call.
func DecideShift(at func(level float64) (Shift, error), what string, minEffect, alpha float64) Verdict {
	v := Verdict{Call: CallInvalid, MinEffect: minEffect, Alpha: alpha}
	s, err := at(alpha)
	if err != nil {
		v.Reason = err.Error()
		return v
	}
	v.decide(s, at, minEffect, alpha)
	level := fmt.Sprintf("%s %%", trimPct(100*v.Shift.Confidence))
	switch v.Call {
	case CallGain, CallLoss:
		v.Reason = fmt.Sprintf("%s: the %s interval excludes 0", what, level)
		if v.Size == SizeLarge {
			v.Reason += fmt.Sprintf(" and lies wholly past ±%s", pct(minEffect))
		}
	case CallSame:
		v.Reason = fmt.Sprintf("%s: the whole %s interval lies within ±%s (two one-sided tests at α=%.2g)", what, level, pct(minEffect), alpha)
	default:
		if !s.Bounded {
			v.Reason = fmt.Sprintf("%s: too few values for any finite interval at α=%.2g", what, alpha)
		} else {
			v.Reason = fmt.Sprintf("%s: the %s interval includes 0 and reaches past ±%s, and the %s interval is not within it", what, level, pct(minEffect), levelOf(v.sameShift))
		}
	}
	return v
}

func logMeanVar(xs []float64) (mean, variance float64, err error) {
	for _, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return 0, 0, errors.New("runs shift: " + ErrNotPositive.Error())
		}
		mean += math.Log(x)
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		d := math.Log(x) - mean
		variance += d * d
	}
	return mean, variance / float64(len(xs)-1), nil
}

// tQuantile is Student's t quantile at p with df degrees of freedom, by
// bisection on its CDF.
func tQuantile(df, p float64) float64 {
	t := mstats.TDist{V: df}
	lo, hi := -1e3, 1e3
	for range 200 {
		mid := (lo + hi) / 2
		if t.CDF(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
