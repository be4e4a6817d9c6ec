package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/stats"
)

// Comparison is runs of the same stacks and cases measured against each
// other: each stack of run A (or runs A1 … Ak) against the same stack of
// run B (B1 … Bl), per case and concurrency, every call in one false-call
// family.
type Comparison struct {
	ModelVersion int     `json:"model_version"`
	A            RunRef  `json:"a"`
	B            RunRef  `json:"b"`
	Alpha        float64 `json:"alpha"`
	// MinEffect is the larger of the runs' minimum effects.
	MinEffect float64 `json:"min_effect"`
	// RunsA and RunsB are the run ids of each side when a side has more
	// than one run (runs as the unit); A and B are then the first of each.
	RunsA []string `json:"runs_a,omitempty"`
	RunsB []string `json:"runs_b,omitempty"`
	// BetweenRunPct is the run-to-run spread each single run's interval
	// was widened by, in percent; 0 when the runs are the unit.
	BetweenRunPct float64 `json:"between_run_pct,omitempty"`
	// CostBetweenRunPct is the same for the cost calls, when measured
	// apart; BetweenRunSource says where the spreads came from: "assumed"
	// (the default), "given" (--between-run) or the measurement.
	CostBetweenRunPct float64 `json:"cost_between_run_pct,omitempty"`
	BetweenRunSource  string  `json:"between_run_source,omitempty"`
	// Family is how false calls were controlled over the comparison's
	// FamilyCalls calls ("run": Benjamini–Hochberg over all of them).
	Family      string `json:"family"`
	FamilyCalls int    `json:"family_calls,omitempty"`
	// HostCompared lists what of the hosts was compared (CPU model,
	// count, memory, kernel, OS and architecture).
	HostCompared []string `json:"host_compared"`
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

// CompareOptions are the choices of a comparison between runs.
type CompareOptions struct {
	// Reference names the stack both runs share unchanged; empty takes
	// the first of run A's stacks that run B has with the same fingerprint.
	Reference string
	// AssumeSameHost lets a comparison be judged although the hosts
	// differ (or, without a shared reference, although the windows are
	// pooled): the user vouches that the machine did not change the
	// figures.
	AssumeSameHost bool
	// Alpha is one minus the confidence of the intervals a gain or a loss
	// reads (same reads 1 − 2·Alpha: stats.SameLevel); 0 means
	// stats.DefaultAlpha. A comparison is one decision per step, at this
	// level, whatever looks either run made.
	Alpha float64
	// BetweenRun is the run-to-run spread of a run's figure (standard
	// deviation of its log) that widens each single run's interval; 0
	// means analysis.DefaultBetweenRunSpread. With two runs or more a side
	// the runs' own spread is used.
	BetweenRun float64
	// CostBetweenRun is the same for the fixed-rate cost; 0 takes
	// BetweenRun. BetweenRunSource says where the two came from ("" for
	// the default; a measured spread's "measured from 3 runs on …").
	CostBetweenRun   float64
	BetweenRunSource string
}

// The methods of a comparison.
const (
	// CompareReference: each stack's per-round ratio to a reference both
	// runs share, run A's against run B's.
	CompareReference = "reference"
	// ComparePooled: each stack's windows of run A against those of run B
	// as independent samples; a change of the hour is not cancelled, so a
	// gate cannot judge it unless told the hosts are alike.
	ComparePooled = "pooled"
)

// Compare measures run b against run a (CompareRuns with one run a side).
func Compare(a, b *Model, opt CompareOptions) (*Comparison, error) {
	return CompareRuns([]*Model{a}, []*Model{b}, opt)
}

// CompareRuns measures the runs bs against the runs as. Only stacks, cases
// and concurrencies present in all of them are compared, and a warning
// names the rest; with no stack or no case in common there is nothing to
// compare. With a reference stack every run shares unchanged, each other
// stack is compared through its ratio to it; without one the windows are
// pooled, and a gate cannot judge unless opt.AssumeSameHost. Runs measured
// on different hosts (hostsDiffer) cannot be judged either, reference or
// not, unless opt.AssumeSameHost: stacks scale differently with cores, so
// no reference cancels a change of machine. Every call is in one family
// (the runs' own, family: run or step), and each carries a between-run
// term (analysis.CompareRuns). Reversing the sides reverses the intervals.
func CompareRuns(as, bs []*Model, opt CompareOptions) (*Comparison, error) {
	if len(as) == 0 || len(bs) == 0 {
		return nil, fmt.Errorf("a comparison needs a run on each side")
	}
	a, b := as[0], bs[0]
	all := append(slices.Clip(as), bs...)
	stacks, cases, levels := a.Header.Stacks, a.Header.Cases, a.Header.Concurrency
	for _, m := range all[1:] {
		stacks, levels = common(stacks, m.Header.Stacks), common(levels, m.Header.Concurrency)
		cases = slices.DeleteFunc(slices.Clone(cases), func(c analysis.CaseInfo) bool {
			return !slices.ContainsFunc(m.Header.Cases, func(o analysis.CaseInfo) bool { return o.Name == c.Name })
		})
	}
	if len(stacks) == 0 {
		return nil, fmt.Errorf("the runs have no stack in common (A: %s; B: %s): compare runs of the same stacks",
			strings.Join(a.Header.Stacks, ", "), strings.Join(b.Header.Stacks, ", "))
	}
	if len(cases) == 0 || len(levels) == 0 {
		return nil, fmt.Errorf("the runs have no case and concurrency in common: compare runs of the same workload and protocol")
	}
	if opt.Alpha == 0 {
		opt.Alpha = stats.DefaultAlpha
	}
	if opt.BetweenRun == 0 {
		opt.BetweenRun = analysis.DefaultBetweenRunSpread
		if opt.BetweenRunSource == "" {
			opt.BetweenRunSource = "assumed"
		}
	}
	minEffect := 0.0
	family := stats.FamilyStep
	for _, m := range all {
		minEffect = max(minEffect, m.Header.MinEffect)
		if m.Header.Family == string(stats.FamilyRun) {
			family = stats.FamilyRun
		}
	}
	c := &Comparison{ModelVersion: ModelVersion, A: runRef(a), B: runRef(b), Alpha: opt.Alpha, MinEffect: minEffect,
		Family: string(family), HostCompared: hostCompared, Warnings: compareWarnings(a, b)}
	if len(as) > 1 || len(bs) > 1 {
		c.RunsA, c.RunsB = runIDs(as), runIDs(bs)
	}
	if len(as) == 1 && len(bs) == 1 {
		c.BetweenRunPct, c.CostBetweenRunPct, c.BetweenRunSource = 100*opt.BetweenRun, 100*opt.CostBetweenRun, opt.BetweenRunSource
	}
	c.DispersionA, c.DispersionB = a.Header.Dispersion, b.Header.Dispersion
	ref, shared, why := analysis.SharedReference(a.result(), b.result(), opt.Reference)
	for _, m := range all[1:] {
		if !shared {
			break
		}
		if r, ok, w := analysis.SharedReference(a.result(), m.result(), ref); !ok || r != ref {
			shared, why = false, fmt.Sprintf("run %s: %s", m.Header.RunID, w)
		}
	}
	if opt.Reference != "" && !shared {
		return nil, fmt.Errorf("--reference %s: %s", opt.Reference, why)
	}
	var hosts []string
	for _, m := range all[1:] {
		hosts = append(hosts, hostsDiffer(a, m, minEffect/2)...)
	}
	machine, speed := splitHostReasons(hosts)
	switch {
	case opt.AssumeSameHost:
		c.Method = ComparePooled
		if shared {
			c.Method, c.Reference = CompareReference, ref
		} else {
			c.Warnings = append(c.Warnings, "no shared reference ("+why+"): the windows of the runs are pooled, so a change of the hour is not cancelled; judged only because --assume-same-host was given")
		}
		for _, h := range hosts {
			c.Warnings = append(c.Warnings, h+" (judged anyway: --assume-same-host)")
		}
	case shared:
		c.Method, c.Reference, c.CannotJudge = CompareReference, ref, machine
		for _, h := range speed {
			c.Warnings = append(c.Warnings, h+" (the reference "+ref+" measured the same change, so it cancels in the ratios)")
		}
		if len(machine) > 0 {
			c.CannotJudge = append(c.CannotJudge, "a reference stack does not cancel a change of machine: stacks scale differently with cores, memory and kernel; rerun both versions on one host, or give --assume-same-host if the hosts are in fact the same")
		}
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
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("the runs share only the reference stack %s: nothing else to compare", ref)
	}
	xo := analysis.CrossRunOptions{Family: family, MinEffect: minEffect, Alpha: opt.Alpha, BetweenRunSD: opt.BetweenRun, CostBetweenRunSD: opt.CostBetweenRun}
	if shared {
		xo.Reference = ref
	}
	c.Steps = analysis.CompareRuns(results(as), results(bs), stacks, cases, levels, xo)
	for _, s := range c.Steps {
		c.FamilyCalls = max(c.FamilyCalls, s.Throughput.FamilyCalls, s.PerCPU.FamilyCalls)
	}
	c.Groups = analysis.GroupStepsOf(c.Steps, pairs, levels)
	return c, nil
}

// hostCompared names what hostsDiffer compares of two runs' hosts.
var hostCompared = []string{"CPU model", "CPU count", "memory", "kernel", "OS and architecture"}

// hostsDiffer says why two runs' hosts may have run at different speeds:
// another machine (CPU model, CPU count, memory, kernel, OS or
// architecture differ: machine reasons), or the same one at another speed
// (its fixed-work probe; two runs on one machine can still differ, and
// only a probe measured in both can tell, so the message says so when
// either run lacks one).
func hostsDiffer(a, b *Model, tolerance float64) []string {
	var out []string
	ha, hb := a.Header.Host, b.Header.Host
	var diff []string
	if ha.CPU != hb.CPU {
		diff = append(diff, fmt.Sprintf("CPU model %q against %q", ha.CPU, hb.CPU))
	}
	if ha.Cores != hb.Cores {
		diff = append(diff, fmt.Sprintf("%d CPUs against %d", ha.Cores, hb.Cores))
	}
	if ha.MemoryBytes != hb.MemoryBytes && ha.MemoryBytes > 0 && hb.MemoryBytes > 0 {
		diff = append(diff, fmt.Sprintf("memory %s against %s", bytesText(ha.MemoryBytes), bytesText(hb.MemoryBytes)))
	}
	if ha.Kernel != hb.Kernel && ha.Kernel != "" && hb.Kernel != "" {
		diff = append(diff, fmt.Sprintf("kernel %q against %q", ha.Kernel, hb.Kernel))
	}
	if ha.OS != hb.OS || ha.Arch != hb.Arch {
		diff = append(diff, fmt.Sprintf("%s/%s against %s/%s", ha.OS, ha.Arch, hb.OS, hb.Arch))
	}
	if len(diff) > 0 {
		out = append(out, fmt.Sprintf("the runs measured on different hosts (A %s, B %s: %s)", a.Header.RunID, b.Header.RunID, strings.Join(diff, "; ")))
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

// splitHostReasons separates hostsDiffer's reasons into another machine
// (no reference cancels it) and a speed that may differ (a reference
// measured in both runs cancels it).
func splitHostReasons(reasons []string) (machine, speed []string) {
	for _, r := range reasons {
		if strings.HasPrefix(r, "the runs measured on different hosts") {
			machine = append(machine, r)
		} else {
			speed = append(speed, r)
		}
	}
	return machine, speed
}

func bytesText(n int64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }

func runIDs(ms []*Model) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Header.RunID)
	}
	return out
}

func results(ms []*Model) []*analysis.Result {
	var out []*analysis.Result
	for _, m := range ms {
		out = append(out, m.result())
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

// NothingInCommon says why two runs cannot be compared at all — no stack,
// no case or no concurrency in common — or "" when they can.
func NothingInCommon(a, b *Model) string {
	shared := func(x, y []string) bool {
		return slices.ContainsFunc(x, func(s string) bool { return slices.Contains(y, s) })
	}
	caseNames := func(m *Model) []string {
		var out []string
		for _, c := range m.Header.Cases {
			out = append(out, c.Name)
		}
		return out
	}
	levels := func(m *Model) []string {
		var out []string
		for _, c := range m.Header.Concurrency {
			out = append(out, strconv.Itoa(c))
		}
		return out
	}
	for _, d := range []struct {
		what string
		a, b []string
	}{{"stack", a.Header.Stacks, b.Header.Stacks}, {"case", caseNames(a), caseNames(b)}, {"concurrency", levels(a), levels(b)}} {
		if !shared(d.a, d.b) {
			return fmt.Sprintf("the runs have no %s in common (A: %s; B: %s): compare two runs of the same stacks, workload and protocol", d.what, strings.Join(d.a, ", "), strings.Join(d.b, ", "))
		}
	}
	return ""
}
