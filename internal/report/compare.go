package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/stats"
)

// Comparison is two runs of the same stacks and cases measured against each
// other: each stack of run A against the same stack of run B, per case and
// concurrency, with the same step machinery as within a run.
type Comparison struct {
	ModelVersion int     `json:"model_version"`
	A            RunRef  `json:"a"`
	B            RunRef  `json:"b"`
	Alpha        float64 `json:"alpha"`
	// MinEffect is the larger of the two runs' minimum effects.
	MinEffect float64 `json:"min_effect"`
	// DispersionA and DispersionB are the two runs' quality figures.
	DispersionA analysis.Dispersion `json:"dispersion_a"`
	DispersionB analysis.Dispersion `json:"dispersion_b"`
	// Method is CompareReference (through Reference, a stack both runs
	// share unchanged) or ComparePooled.
	Method    string `json:"method"`
	Reference string `json:"reference,omitempty"`
	// CannotJudge, when not empty, says why a change between the runs may
	// be the hosts' rather than the code's: the calls are shown, but a
	// regression gate must not act on them.
	CannotJudge []string `json:"cannot_judge,omitempty"`
	// Steps go from A's cell to B's (Kind StepCompare, From = To = stack).
	Steps  []analysis.Step      `json:"steps"`
	Groups []analysis.GroupStep `json:"groups"`
	// Warnings say what differs between the runs beyond the stacks.
	Warnings []string `json:"warnings,omitempty"`
}

// RunRef identifies one side of a comparison.
type RunRef struct {
	RunID         string        `json:"run_id"`
	Started       time.Time     `json:"started"`
	ToolVersion   string        `json:"tool_version"`
	Profile       string        `json:"profile"`
	State         string        `json:"state"`
	Host          analysis.Host `json:"host"`
	ParitySkipped bool          `json:"parity_skipped"`
}

// CompareOptions are the choices of a comparison between two runs.
type CompareOptions struct {
	// Reference names the stack both runs share unchanged; empty takes
	// the first of run A's stacks that run B has with the same fingerprint.
	Reference string
	// AssumeSameHost lets a comparison without a shared reference be
	// judged when the hosts look alike (same machine, host-speed probes
	// within half the minimum effect).
	AssumeSameHost bool
	// Alpha is one minus the intervals' confidence; 0 means
	// stats.DefaultAlpha. A comparison is one decision per step, at this
	// level, whatever looks either run made.
	Alpha float64
}

// The methods of a comparison.
const (
	// CompareReference: each stack's per-round ratio to a reference both
	// runs share, run A's against run B's (analysis.CompareToReference).
	CompareReference = "reference"
	// ComparePooled: each stack's windows of run A against those of run B
	// as independent samples; the spread between runs is not in the
	// interval, so a gate cannot judge it unless told the hosts are alike.
	ComparePooled = "pooled"
)

// Compare measures run b against run a. Only stacks, cases and
// concurrencies present in both are compared, and a warning names the rest;
// with no stack or no case in common there is nothing to compare. With a
// reference stack both runs share unchanged, each other stack is compared
// through its ratio to it (a change of the host between the runs cancels);
// without one the windows are pooled, and a gate cannot judge unless
// opt.AssumeSameHost. Compare(a, b) and Compare(b, a) give reversed
// intervals and opposite calls.
func Compare(a, b *Model, opt CompareOptions) (*Comparison, error) {
	stacks := common(a.Header.Stacks, b.Header.Stacks)
	if len(stacks) == 0 {
		return nil, fmt.Errorf("the runs have no stack in common (A: %s; B: %s): compare two runs of the same stacks",
			strings.Join(a.Header.Stacks, ", "), strings.Join(b.Header.Stacks, ", "))
	}
	var cases []analysis.CaseInfo
	for _, c := range a.Header.Cases {
		if slices.ContainsFunc(b.Header.Cases, func(o analysis.CaseInfo) bool { return o.Name == c.Name }) {
			cases = append(cases, c)
		}
	}
	levels := common(a.Header.Concurrency, b.Header.Concurrency)
	if len(cases) == 0 || len(levels) == 0 {
		return nil, fmt.Errorf("the runs have no case and concurrency in common: compare two runs of the same workload and protocol")
	}
	if opt.Alpha == 0 {
		opt.Alpha = stats.DefaultAlpha
	}
	minEffect := max(a.Header.MinEffect, b.Header.MinEffect)
	c := &Comparison{ModelVersion: ModelVersion, A: runRef(a), B: runRef(b), Alpha: opt.Alpha,
		MinEffect: minEffect, Warnings: compareWarnings(a, b)}
	c.DispersionA, c.DispersionB = a.Header.Dispersion, b.Header.Dispersion
	ref, shared, why := analysis.SharedReference(a.result(), b.result(), opt.Reference)
	if opt.Reference != "" && !shared {
		return nil, fmt.Errorf("--reference %s: %s", opt.Reference, why)
	}
	hosts := hostsDiffer(a, b, minEffect/2)
	switch {
	case shared:
		c.Method, c.Reference = CompareReference, ref
		for _, h := range hosts {
			c.Warnings = append(c.Warnings, h+" (the reference "+ref+" measured the same change, so it cancels in the ratios)")
		}
	case opt.AssumeSameHost:
		c.Method, c.CannotJudge = ComparePooled, hosts
		c.Warnings = append(c.Warnings, "no shared reference ("+why+"): the windows of the two runs are pooled, so the spread between runs is not in the intervals; judged only because --assume-same-host was given")
	default:
		c.Method = ComparePooled
		c.CannotJudge = append([]string{why + ", so a change between the runs cannot be told from a change of the host or of the hour: add a stack that does not change to both runs (and name it with --reference), or give --assume-same-host"}, hosts...)
	}
	var pairs []analysis.StackPair
	for _, s := range stacks {
		if shared && s == ref {
			continue
		}
		pairs = append(pairs, analysis.StackPair{Kind: analysis.StepCompare, From: s, To: s})
		for _, ci := range cases {
			for _, conc := range levels {
				if shared {
					c.Steps = append(c.Steps, analysis.CompareToReference(a.result(), b.result(), s, ref, ci, conc, minEffect, opt.Alpha))
					continue
				}
				c.Steps = append(c.Steps, analysis.NewStep(analysis.StepCompare, a.result().CellOrMissing(s, ci, conc), b.result().CellOrMissing(s, ci, conc), stats.Independent, minEffect, opt.Alpha))
			}
		}
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("the runs share only the reference stack %s: nothing else to compare", ref)
	}
	c.Groups = analysis.GroupStepsOf(c.Steps, pairs, levels)
	return c, nil
}

// hostsDiffer says why two runs' hosts may have run at different speeds:
// another machine, or another CPU count. (Two runs on one machine can
// still differ in speed; only a fixed-work probe measured in both runs
// can tell, and the message says so when either run lacks one.)
func hostsDiffer(a, b *Model, tolerance float64) []string {
	var out []string
	ha, hb := a.Header.Host, b.Header.Host
	if ha != hb {
		out = append(out, fmt.Sprintf("the runs measured on different hosts (A: %s; B: %s)", hostText(ha), hostText(hb)))
	}
	pa, pb := a.Header.HostSpeed, b.Header.HostSpeed
	switch {
	case pa.ProbeMedianMs <= 0 || pb.ProbeMedianMs <= 0:
		out = append(out, "a run has no host-speed probe, so a change of the host's own speed between the runs cannot be told from a change of the code")
	default:
		if r := pb.ProbeMedianMs/pa.ProbeMedianMs - 1; math.Abs(r) > tolerance {
			out = append(out, fmt.Sprintf("the host ran at a different speed: its fixed-work probe took %.2f ms in A and %.2f ms in B (%+.1f %%, more than ±%.1f %%, half the minimum effect)",
				pa.ProbeMedianMs, pb.ProbeMedianMs, 100*r, 100*tolerance))
		}
	}
	return out
}

func runRef(m *Model) RunRef {
	h := m.Header
	return RunRef{RunID: h.RunID, Started: h.Started, ToolVersion: h.ToolVersion, Profile: h.Profile, State: h.State, Host: h.Host, ParitySkipped: h.ParitySkipped}
}

// compareWarnings lists what makes two runs less comparable.
func compareWarnings(a, b *Model) []string {
	var w []string
	ha, hb := a.Header, b.Header
	if d := only(ha.Stacks, hb.Stacks); len(d) > 0 {
		w = append(w, "only in A, not compared: stacks "+strings.Join(d, ", "))
	}
	if d := only(hb.Stacks, ha.Stacks); len(d) > 0 {
		w = append(w, "only in B, not compared: stacks "+strings.Join(d, ", "))
	}
	casesA, casesB := caseNames(ha.Cases), caseNames(hb.Cases)
	if d := only(casesA, casesB); len(d) > 0 {
		w = append(w, "only in A, not compared: cases "+strings.Join(d, ", "))
	}
	if d := only(casesB, casesA); len(d) > 0 {
		w = append(w, "only in B, not compared: cases "+strings.Join(d, ", "))
	}
	if d := only(ha.Concurrency, hb.Concurrency); len(d) > 0 {
		w = append(w, "only in A, not compared: concurrency "+joinInts(d))
	}
	if d := only(hb.Concurrency, ha.Concurrency); len(d) > 0 {
		w = append(w, "only in B, not compared: concurrency "+joinInts(d))
	}
	if ha.Host != hb.Host {
		w = append(w, fmt.Sprintf("the runs measured on different machines (A: %s; B: %s): differences may be the machine's", hostText(ha.Host), hostText(hb.Host)))
	}
	if ha.Profile != hb.Profile {
		w = append(w, fmt.Sprintf("different profiles (A: %s; B: %s)", ha.Profile, hb.Profile))
	}
	if ha.Workload != hb.Workload {
		w = append(w, fmt.Sprintf("different workloads (A: %s; B: %s)", ha.Workload, hb.Workload))
	}
	if pa, pb := placementKey(ha.Placement), placementKey(hb.Placement); pa != pb {
		w = append(w, fmt.Sprintf("different placements (A: %s; B: %s): the processes had other CPUs to run on", pa, pb))
	}
	for _, side := range []struct {
		name string
		h    analysis.Header
	}{{"A", ha}, {"B", hb}} {
		if side.h.State != "finished" {
			w = append(w, fmt.Sprintf("run %s (%s) is %s: %d of %d windows", side.name, side.h.RunID, side.h.State, side.h.WindowsRecorded, side.h.WindowsPlanned))
		}
		if side.h.ParitySkipped {
			w = append(w, fmt.Sprintf("run %s (%s) skipped the parity gate", side.name, side.h.RunID))
		}
	}
	return w
}

func hostText(h analysis.Host) string {
	return fmt.Sprintf("%s/%s, %d cores, %s", h.OS, h.Arch, h.Cores, h.CPU)
}

// common returns the elements of a that b also has, in a's order.
func common[T comparable](a, b []T) []T {
	var out []T
	for _, v := range a {
		if slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}

// only returns the elements of a that b lacks.
func only[T comparable](a, b []T) []T {
	var out []T
	for _, v := range a {
		if !slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}

func caseNames(cases []analysis.CaseInfo) []string {
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.Name
	}
	return names
}
