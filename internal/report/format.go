package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"math"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/stats"
)

// The number formats every text renderer shares, so the Markdown tables and
// the HTML page say the same figure the same way.

// fmtRate formats a rate (requests per second, per CPU-second) with
// thousands separators, keeping three significant digits below 100.
func fmtRate(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case math.Abs(v) >= 100:
		return groupThousands(int64(math.Round(v)))
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// groupThousands writes n with a comma between groups of three digits.
func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fmtMicros formats a latency given in microseconds in the unit that suits it.
func fmtMicros(us float64) string {
	switch {
	case us <= 0 || math.IsNaN(us):
		return "–"
	case us < 1000:
		return sig3(us) + " µs"
	case us < 1e6:
		return sig3(us/1e3) + " ms"
	default:
		return sig3(us/1e6) + " s"
	}
}

// fmtMillis formats a duration given in milliseconds.
func fmtMillis(ms float64) string { return fmtMicros(ms * 1e3) }

// sig3 formats v (0 < v < 1000) with three significant digits, never in
// exponent form.
func sig3(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// fmtBytes formats a memory size in MiB (KiB under one MiB, GiB from ten
// GiB, where MiB stop being readable).
func fmtBytes(b int64) string {
	switch {
	case b <= 0:
		return "–"
	case b < 1<<20:
		return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10))
	case b >= 10<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	default:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
}

// fmtPct formats a change in percent with its sign.
func fmtPct(pct float64) string {
	if math.Abs(pct) < 0.05 {
		return "±0.0 %"
	}
	return fmt.Sprintf("%+.1f %%", pct)
}

// fmtFraction formats a fraction (0.042) as a percentage ("4.2 %").
func fmtFraction(f float64) string { return fmt.Sprintf("%.1f %%", f*100) }

// fmtCores formats CPU use in cores.
func fmtCores(c float64) string {
	if c <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", c)
}

// fmtUSD formats a monthly price.
func fmtUSD(v float64) string {
	whole := int64(v)
	cents := int64(math.Round((v - float64(whole)) * 100))
	if cents == 100 {
		whole, cents = whole+1, 0
	}
	return fmt.Sprintf("$%s.%02d", groupThousands(whole), cents)
}

// intervalText is a change's confidence interval, "(−12.0 … −2.9 %)", or
// why there is none.
func intervalText(c analysis.Change) string {
	if !c.Bounded() {
		if c.Pairs > 0 {
			return fmt.Sprintf("(no finite interval with %d pairs)", c.Pairs)
		}
		if c.Unit != "" {
			return fmt.Sprintf("(no finite interval with %d and %d %s)", c.FromWindows, c.ToWindows, c.Unit)
		}
		if c.FromValues > 0 && (c.FromValues != c.FromWindows || c.ToValues != c.ToWindows) {
			// The test compared one value per process, not the windows.
			return fmt.Sprintf("(no finite interval with %d and %d processes)", c.FromValues, c.ToValues)
		}
		return fmt.Sprintf("(no finite interval with %d and %d windows)", c.FromWindows, c.ToWindows)
	}
	if c.Confidence <= 0 {
		return fmt.Sprintf("(%s … %s %%)", signed(*c.CILowPct), signed(*c.CIHighPct))
	}
	return fmt.Sprintf("(%s … %s %%, %s)", signed(*c.CILowPct), signed(*c.CIHighPct), levelText(c.Confidence))
}

// levelText names an interval's level, its actual coverage rounded down
// to a tenth of a percent: "95 % interval", "99.8 % interval". Each
// call's interval is the one it was made at (a gain or a loss selected by
// false-call control at its adjusted level), so the level is said with it.
func levelText(confidence float64) string {
	return strconv.FormatFloat(math.Floor(confidence*1000+1e-9)/10, 'f', -1, 64) + " % interval"
}

// pairedNoiseText is a step's paired noise, "; paired noise 4.1 %", or ""
// when the call has none (independent samples, fewer than three pairs).
func pairedNoiseText(c analysis.Change) string {
	if c.PairedSDPct == nil {
		return ""
	}
	return fmt.Sprintf("; paired noise %.1f %%", *c.PairedSDPct)
}

// signed formats a percentage with its sign and one decimal, no unit;
// under 0.05 in size, with two decimals so that its sign still shows (an
// interval end of +0.03 % is above 0: "±0.0" would hide that), and ±0.0
// only for an exact 0.
func signed(pct float64) string {
	switch {
	case pct == 0:
		return "±0.0"
	case math.Abs(pct) < 0.005:
		if pct > 0 {
			return "+<0.01"
		}
		return "−<0.01"
	case math.Abs(pct) < 0.05:
		return fmt.Sprintf("%+.2f", pct)
	}
	return fmt.Sprintf("%+.1f", pct)
}

// estimateText is a change's estimate and interval, "−7.4 % (−12.0 …
// −2.9 %)", or "invalid: why".
func estimateText(c analysis.Change) string {
	if c.Call == stats.CallInvalid {
		return "invalid: " + c.Reason
	}
	if c.Call == stats.CallNotCalled && strings.HasPrefix(c.Reason, stats.NotCalledInvalid) {
		return "not called, and invalid: " + strings.TrimPrefix(c.Reason, stats.NotCalledInvalid)
	}
	if c.Call == stats.CallNotCalled && c.Reason == analysis.RoundOneOnly {
		return "not called: " + c.Reason
	}
	return fmtPct(c.EstimatePct) + " " + intervalText(c) + pairedNoiseText(c)
}

// CallText is the call with what it rests on, one interval at the level
// the call was made at: "loss −7.4 % (−12.0 … −2.9 %, 95 % interval);
// paired noise 3.1 %", its size after it ("past the minimum effect of
// −4.8 %"), and for an undecided call how many windows would likely decide
// it.
func CallText(c analysis.Change) string {
	if c.Call == stats.CallInvalid || c.Call == stats.CallNotCalled && strings.HasPrefix(c.Reason, stats.NotCalledInvalid) {
		return estimateText(c)
	}
	s := string(c.Call) + " " + fmtPct(c.EstimatePct) + " " + intervalText(c) + sizeText(c) + pairedNoiseText(c)
	if c.Call == stats.CallUndecided && c.FamilyCalls > 1 && excludesZero(c) {
		s += fmt.Sprintf("; the interval excludes 0, but not yet at the level false-call control over %d calls needs", c.FamilyCalls)
	}
	if c.Call == stats.CallSame && excludesZero(c) {
		s += "; the interval excludes 0 but lies within the minimum effect, and the step is not called a gain or a loss at the run's level"
	}
	if c.Call == stats.CallUndecided && c.WindowsNeeded > 0 {
		s += "; " + windowsNeededText(c)
	}
	return s
}

// excludesZero says whether a change's interval lies wholly on one side
// of 0.
func excludesZero(c analysis.Change) bool {
	return c.CILowPct != nil && c.CIHighPct != nil && (*c.CILowPct > 0 || *c.CIHighPct < 0)
}

// sizeText qualifies a gain or a loss after its interval: ", past the
// minimum effect of +5.0 %", ", smaller than the minimum effect", or "".
func sizeText(c analysis.Change) string {
	switch c.Size {
	case stats.SizeLarge:
		bound := c.MinEffectPct
		if (c.Call == stats.CallLoss) != c.LowerIsBetter {
			bound = 100 * (1/(1+c.MinEffectPct/100) - 1)
		}
		return fmt.Sprintf(", wholly past the minimum effect of %s", fmtPct(bound))
	case stats.SizeSmall:
		return ", wholly within the minimum effect (small)"
	}
	return ""
}

// callLabel is the call with its size, the same words on every surface:
// "gain (at least +5.0 %)", "loss (small)", "same".
func callLabel(c analysis.Change) string {
	switch c.Size {
	case stats.SizeLarge:
		bound := c.MinEffectPct
		if (c.Call == stats.CallLoss) != c.LowerIsBetter {
			bound = 100 * (1/(1+c.MinEffectPct/100) - 1)
		}
		return fmt.Sprintf("%s (at least %s)", c.Call, fmtPct(bound))
	case stats.SizeSmall:
		return string(c.Call) + " (small)"
	}
	return string(c.Call)
}

// windowsNeededText says how many windows a side (pairs, for a paired
// call) would likely decide an undecided call.
func windowsNeededText(c analysis.Change) string {
	unit := neededUnit(c)
	if c.WindowsNeeded >= stats.MaxWindowsNeeded {
		return fmt.Sprintf("more than %d %s would be needed", stats.MaxWindowsNeeded, unit)
	}
	return fmt.Sprintf("~%d %s would decide it in 80 %% of runs", c.WindowsNeeded, unit)
}

// neededUnit is what an undecided call's need is counted in: pairs (rounds
// with a window on each side) for a paired call, windows a side otherwise.
// The verdict and each case's line say the same.
func neededUnit(c analysis.Change) string {
	if c.Pairs > 0 {
		return "pairs"
	}
	return "windows a side"
}

// CallCounts lists a group's calls that occurred, "1 loss, 3 same".
func CallCounts(calls map[stats.Call]int) string {
	var parts []string
	for _, c := range stats.Calls {
		if n := calls[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, c))
		}
	}
	return strings.Join(parts, ", ")
}

// flagText lists a cell's flags with their window counts.
func flagText(c analysis.Cell) string {
	parts := make([]string, 0, len(c.Flags))
	for _, f := range c.Flags {
		parts = append(parts, fmt.Sprintf("%s ×%d", f.Name, f.Windows))
	}
	return strings.Join(parts, ", ")
}

// stepLabel is "from → to".
func stepLabel(s analysis.Step) string { return s.From + " → " + s.To }
