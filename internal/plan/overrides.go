package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/workload"
)

// Overrides are changes to the protocol from the command line; they take
// precedence over the file's protocol section, which takes precedence over
// the profile. A zero field (nil pointer, empty slice or string) changes
// nothing. The file's protocol section is held in the same form.
type Overrides struct {
	// Profile replaces the file's profile.
	Profile string
	// Stacks selects stacks by name; they keep the file's (step) order.
	Stacks []string
	// Cases selects cases by name, in the order given.
	Cases       []string
	Concurrency []int
	Warmup      time.Duration
	WarmupMax   time.Duration
	// JITWarmup and JITWarmupMax are the floor and cap for JIT runtimes
	// (the file's protocol section only).
	JITWarmup    time.Duration
	JITWarmupMax time.Duration
	Window       time.Duration
	Timeout      time.Duration
	Rounds       int
	// Adaptive is rounds: auto (true) or a number of rounds (false); nil
	// keeps the profile's. MinRounds, MaxRounds and Budget bound it.
	Adaptive  *bool
	MinRounds int
	MaxRounds int
	Budget    time.Duration
	Fresh     string
	// Layout is LayoutInterleaved or LayoutGrouped.
	Layout string
	// Family is FamilyRun or FamilyStep.
	Family string
	// Repeat is the windows per cell, process and round.
	Repeat     int
	BootStarts *int
	// Gate is "auto", "off" or a number of cores of foreign CPU ("0.8").
	Gate        string
	GateRetries *int
	GateWait    time.Duration
	Spread      *bool
	// MinEffect is the smallest shift a step calls a gain or a loss, as a
	// fraction (0.05).
	MinEffect float64
	// Placement is the placement as written; nil keeps the file's, and
	// with neither the plan resolves auto (docs/placement.md).
	Placement *PlacementSpec
	// Profiling is profiling: on (true) or off (false); nil keeps the
	// file's.
	Profiling *bool
	// Latency is the latency windows' rate (latency: {rate: …},
	// --latency-rate); nil keeps the file's.
	Latency *LatencyRate
	// Calls are the metrics the run calls (calls:, --calls); empty keeps
	// the file's.
	Calls []string
	// ClosedLoop is ClosedLoopEvery or ClosedLoopFirst (closed_loop:,
	// --closed-loop); empty leaves it to the calls (Resolve).
	ClosedLoop string
	// NoLatency drops the file's latency windows (and with them
	// closed_loop: first, and the calls of their metrics): every round
	// is closed-loop windows alone.
	// Latency, when also set, puts them back at its rate.
	NoLatency bool
}

// MaxRepeat bounds protocol repeat: past a few windows a process adds
// nothing the report can use.
const MaxRepeat = 5

// Minimums for durations; anything shorter measures start-up noise.
const (
	minWarmup  = 100 * time.Millisecond
	minWindow  = 500 * time.Millisecond
	minTimeout = 10 * time.Millisecond
	// maxConcurrency bounds concurrency to something a loopback test can open.
	maxConcurrency = 100000
)

// apply writes the set fields of o over p. o must be valid.
func (o Overrides) apply(p *Protocol) {
	if len(o.Concurrency) > 0 {
		p.Concurrency = append([]int(nil), o.Concurrency...)
	}
	if len(o.Cases) > 0 {
		p.Cases = append([]string(nil), o.Cases...)
	}
	setIf(&p.Warmup, o.Warmup)
	setIf(&p.WarmupMax, o.WarmupMax)
	setIf(&p.JITWarmup, o.JITWarmup)
	setIf(&p.JITWarmupMax, o.JITWarmupMax)
	setIf(&p.Window, o.Window)
	setIf(&p.Timeout, o.Timeout)
	setIf(&p.Rounds, o.Rounds)
	if o.Adaptive != nil {
		p.Adaptive = *o.Adaptive
	}
	setIf(&p.Rounds, o.MinRounds)
	setIf(&p.MaxRounds, o.MaxRounds)
	setIf(&p.Budget, o.Budget)
	setIf(&p.Fresh, o.Fresh)
	setIf(&p.Layout, o.Layout)
	setIf(&p.ClosedLoop, o.ClosedLoop)
	setIf(&p.Family, o.Family)
	setIf(&p.Repeat, o.Repeat)
	setIf(&p.Gate.Wait, o.GateWait)
	setIf(&p.MinEffect, o.MinEffect)
	if o.BootStarts != nil {
		p.BootStarts = *o.BootStarts
	}
	if o.GateRetries != nil {
		p.Gate.Retries = *o.GateRetries
	}
	if o.Spread != nil {
		p.Spread = *o.Spread
	}
	if o.Profiling != nil {
		p.Profiling = *o.Profiling
	}
	if o.NoLatency {
		// The latency metrics are no longer measured: not called either.
		p.Latency, p.ClosedLoop = nil, ClosedLoopEvery
		p.Calls = slices.DeleteFunc(slices.Clone(p.Calls), func(m string) bool { return slices.Contains(LatencyMetrics, m) })
	}
	if o.Latency != nil {
		l := *o.Latency
		p.Latency = &l
	}
	if len(o.Calls) > 0 {
		p.Calls = append([]string(nil), o.Calls...)
	}
	if o.Gate != "" {
		p.Gate.Mode, p.Gate.Cores, _ = parseGate(o.Gate)
	}
}

func setIf[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

// check validates command-line overrides against the file; each problem
// names the flag it comes from.
func (o Overrides) check(f *File) []Problem {
	var ps []Problem
	bad := func(format string, a ...any) { ps = append(ps, Problem{Msg: fmt.Sprintf(format, a...)}) }
	if o.Profile != "" {
		if _, ok := profiles[o.Profile]; !ok {
			bad("--profile %s: unknown profile; %s", o.Profile, didYouMean(o.Profile, ProfileNames()))
		}
	}
	for _, msg := range checkNames("--stacks", o.Stacks, f.StackNames(), "stack") {
		bad("%s", msg)
	}
	if f.Workload != nil {
		for _, msg := range checkNames("--cases", o.Cases, f.Workload.CaseNames(), "case") {
			bad("%s", msg)
		}
	}
	for _, st := range Settings {
		if err := st.Check(o); err != nil {
			name := st.Key
			if st.Flag != "" {
				name = "--" + st.Flag
			}
			bad("%s %v", name, err)
		}
	}
	return ps
}

// checkNames checks that every name is known and given once.
func checkNames(flag string, names, known []string, what string) []string {
	var msgs []string
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case !slices.Contains(known, n):
			msgs = append(msgs, fmt.Sprintf("%s: unknown %s %q; %s", flag, what, n, didYouMean(n, known)))
		case seen[n]:
			msgs = append(msgs, fmt.Sprintf("%s: %s %q is listed twice; list it once", flag, what, n))
		}
		seen[n] = true
	}
	return msgs
}

// parseGate reads "auto", "off" or a positive number of cores.
func parseGate(s string) (mode string, cores float64, err error) {
	switch s = strings.TrimSpace(s); s {
	case GateAuto, GateOff:
		return s, 0, nil
	}
	cores, err = strconv.ParseFloat(s, 64)
	if err != nil || cores <= 0 {
		return "", 0, fmt.Errorf("the gate is auto (idle baseline + 0.25 cores), off, or a number of cores of foreign CPU above 0, e.g. 0.8")
	}
	return GateCores, cores, nil
}

// selectCases returns the workload's cases named in names, in that order;
// all of them when names is empty.
func selectCases(w *workload.Workload, names []string) []workload.Case {
	if len(names) == 0 {
		return append([]workload.Case(nil), w.Cases...)
	}
	out := make([]workload.Case, 0, len(names))
	for _, n := range names {
		c, _ := w.Case(n)
		out = append(out, c)
	}
	return out
}
