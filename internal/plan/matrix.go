package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/stats"
	"github.com/stackbench/stackbench/internal/workload"
)

// Plan is a resolved comparison: what to run, how, and in which order.
type Plan struct {
	// File is the comparison file the plan comes from.
	File string `json:"file"`
	// WorkloadName names the workload (File.Workload is the workload).
	WorkloadName string          `json:"workload"`
	Database     string          `json:"-"` // may hold a password; never journaled
	Protocol     Protocol        `json:"protocol"`
	Stacks       []Stack         `json:"stacks"`
	Cases        []workload.Case `json:"-"`
	// NeedsDatabase is true when the workload uses the fixture (some of its
	// cases do, selected or not).
	NeedsDatabase bool     `json:"needs_database"`
	JWTSecret     string   `json:"-"`
	Windows       []Window `json:"windows"`
	// Fingerprint is a hash of everything that shapes the matrix and its
	// measurement: the protocol, the stacks' definitions and the cases'
	// requests. A resumed run refuses a plan whose fingerprint changed.
	Fingerprint string `json:"fingerprint"`
	// Capacity is the capacity phase, nil without a capacity section
	// (capacity.go).
	Capacity *Capacity `json:"capacity,omitempty"`
	// Thresholds are the limits each selected case's windows must meet
	// (thresholds.go), in plan order; cases without one are left out.
	Thresholds []CaseThresholds `json:"thresholds,omitempty"`
	// Hosts and Roles are the file's hosts: and roles: (hosts.go); empty
	// when everything runs on this machine.
	Hosts []Host `json:"hosts,omitempty"`
	Roles *Roles `json:"roles,omitempty"`
}

// Window is one measured interval of load on one (stack, case, concurrency)
// in one round.
type Window struct {
	// Key identifies the window across runs: "r2/gin/order/c100".
	Key   string `json:"key"`
	Index int    `json:"index"` // position in Plan.Windows
	// Round is 1-based; Slot is the stack's 0-based position in the
	// sequence the window was laid out by: its case's (interleaved) or the
	// round's (grouped); see layRound.
	Round int `json:"round"`
	// Repeat numbers the windows of one cell in a round from 1 (protocol
	// repeat); 0 or 1 when there is one.
	Repeat      int    `json:"repeat,omitempty"`
	Slot        int    `json:"slot"`
	Stack       string `json:"stack"`
	Case        string `json:"case"`
	Concurrency int    `json:"concurrency"`
	// Process numbers the server processes of the plan from 0; the run
	// starts a fresh process when it changes. NewProcess marks the first
	// window of each process.
	Process    int  `json:"process"`
	NewProcess bool `json:"new_process"`
	// Inserts is true when the case writes rows: the orders table is
	// reset before the window.
	Inserts bool `json:"inserts"`
}

// WindowKey is the stable key of a window.
func WindowKey(round int, stack, cas string, concurrency int) string {
	return fmt.Sprintf("r%d/%s/%s/c%d", round, stack, cas, concurrency)
}

// RepeatKey is the key of a cell's repeat-th window of a round: the
// WindowKey for the first, "r1/gin/user/c10/w2" for the second.
func RepeatKey(round int, stack, cas string, concurrency, repeat int) string {
	k := WindowKey(round, stack, cas, concurrency)
	if repeat > 1 {
		k += fmt.Sprintf("/w%d", repeat)
	}
	return k
}

// Resolve applies the profile, the file's protocol section and o, in that
// order of precedence, selects stacks and cases, and lays out the windows.
// Invalid overrides are a *ConfigError.
func (f *File) Resolve(o Overrides) (*Plan, error) {
	if ps := o.check(f); len(ps) > 0 {
		return nil, &ConfigError{Problems: ps}
	}
	name := f.Profile
	if o.Profile != "" {
		name = o.Profile
	}
	proto, _ := Profile(name)
	f.protocol.apply(&proto)
	o.apply(&proto)
	if proto.Adaptive {
		if proto.MaxRounds == 0 {
			proto.MaxRounds = max(proto.Rounds, DefaultMaxRounds)
		}
		if proto.MaxRounds < proto.Rounds {
			return nil, &ConfigError{Problems: []Problem{{Msg: fmt.Sprintf(
				"rounds: auto runs %d to %d rounds, and %d is fewer than %d: set max_rounds (--max-rounds) to at least min_rounds (--min-rounds)",
				proto.Rounds, proto.MaxRounds, proto.MaxRounds, proto.Rounds)}}}
		}
	} else {
		proto.MaxRounds, proto.Budget = 0, 0
	}
	if err := f.resolvePlacement(o, &proto); err != nil {
		return nil, err
	}
	cases := selectCases(f.Workload, proto.Cases)
	proto.Cases = make([]string, len(cases))
	// The stacks open their pools at start and the parity gate checks every
	// case, so the database is needed whenever the workload uses it, even
	// when the selected cases do not.
	needsDB := f.Workload.NeedsDatabase
	for i, c := range cases {
		proto.Cases[i] = c.Name
	}
	proto.Order = OrderWilliams
	proto.LatencyRoundOne = proto.Latency != nil && proto.Latency.Share > 0 && proto.Interleaved() && proto.Fresh == FreshRound
	if proto.Latency != nil && proto.Latency.Share > 0 {
		proto.LatencyRateRounds = 1
		// A second rate round costs no latency round where the rate
		// round's latency windows wait for its end; with enough rounds
		// left for a cell's latency windows after it.
		if proto.LatencyRoundOne && proto.LastRound() >= DefaultRateRounds-1+minLatencyWindows {
			proto.LatencyRateRounds = DefaultRateRounds
		}
	}
	proto.resolveClosedLoop()
	if proto.Adaptive {
		proto.Spending = SpendingFinal
	}
	p := &Plan{
		File:          f.Path,
		WorkloadName:  f.Workload.Name,
		Database:      f.Database,
		Protocol:      proto,
		Stacks:        selectStacks(f.Stacks, o.Stacks),
		Cases:         cases,
		NeedsDatabase: needsDB,
		JWTSecret:     f.JWTSecret,
		Hosts:         f.Hosts,
		Roles:         f.Roles,
	}
	if ps := append(checkWireCases(f.Name, p.Stacks, cases), checkFlowCases(f.Name, p, cases)...); len(ps) > 0 {
		return nil, &ConfigError{Problems: ps}
	}
	p.Thresholds = f.thresholds.resolve(cases)
	if msg := checkLatency(proto); msg != "" {
		return nil, &ConfigError{Problems: []Problem{{Msg: msg}}}
	}
	if msg := checkCalls(proto); msg != "" {
		return nil, &ConfigError{Problems: []Problem{{Msg: msg}}}
	}
	if msg := checkClosedLoop(proto); msg != "" {
		return nil, &ConfigError{Problems: []Problem{{Msg: msg}}}
	}
	p.Windows = matrix(p.Stacks, cases, proto)
	if proto.Adaptive && proto.Budget > 0 {
		p.Protocol.BudgetRounds = p.budgetRounds()
	}
	p.Fingerprint = fingerprint(p, filepath.Dir(f.Path), f.Scenario, f.Fixture)
	if err := p.addCapacity(f); err != nil {
		return nil, err
	}
	return p, nil
}

// selectStacks keeps the stacks named (all when names is empty) in file
// order. A kept stack whose from: was left out steps from that stack's own
// from, and so on up; with no kept ancestor, from the previous kept stack.
// The first kept stack has no from.
func selectStacks(all []Stack, names []string) []Stack {
	if len(names) == 0 {
		return append([]Stack(nil), all...)
	}
	byName := map[string]Stack{}
	for _, s := range all {
		byName[s.Name] = s
	}
	var out []Stack
	for _, s := range all {
		if !slices.Contains(names, s.Name) {
			continue
		}
		from := s.From
		for from != "" && !slices.Contains(names, from) {
			from = byName[from].From
			if from == "" {
				// The left-out ancestor stepped from its previous stack:
				// follow the file order instead.
				from = previousKept(all, names, s.Name)
			}
		}
		if len(out) == 0 {
			from = ""
		}
		s.From = from
		out = append(out, s)
	}
	return out
}

// previousKept is the kept stack listed last before name, or "".
func previousKept(all []Stack, names []string, name string) string {
	prev := ""
	for _, s := range all {
		if s.Name == name {
			return prev
		}
		if slices.Contains(names, s.Name) {
			prev = s.Name
		}
	}
	return prev
}

// matrix lays out the windows of rounds 1 … p.Rounds (layRound).
func matrix(stacks []Stack, cases []workload.Case, p Protocol) []Window {
	var ws []Window
	process := -1
	for r := 1; r <= p.Rounds; r++ {
		ws = append(ws, layRound(r, stacks, cases, p, nil, len(ws), process)...)
		process = lastProcess(ws)
	}
	return ws
}

// CellKey names a cell: one stack, case and concurrency.
type CellKey struct {
	Stack, Case string
	Concurrency int
}

// ExtraRound lays out adaptive round `round` after the windows the plan
// already has: only the cells in need, laid out as a planned round is
// (layRound). Indexes and process numbers continue from the plan's last
// window. The plan is not changed; the run appends the windows (and
// journals them) when it decides to measure them.
func (p *Plan) ExtraRound(round int, need map[CellKey]bool) []Window {
	process := lastProcess(p.Windows)
	var cases []workload.Case
	for _, c := range p.Cases {
		if slices.Contains(p.Protocol.Cases, c.Name) {
			cases = append(cases, c)
		}
	}
	if need == nil {
		need = map[CellKey]bool{}
	}
	return layRound(round, p.Stacks, cases, p.Protocol, need, len(p.Windows), process)
}

// repeatField is a window's Repeat: 0 when the protocol has no repeats,
// so that plans without them journal as before.
func repeatField(rep int, p Protocol) int {
	if p.Repeats() == 1 {
		return 0
	}
	return rep
}

// lastProcess is the highest process number among ws, −1 when empty.
func lastProcess(ws []Window) int {
	last := -1
	for _, w := range ws {
		last = max(last, w.Process)
	}
	return last
}

// layRound lays out round r (from 1), numbering windows from index and
// processes after lastProcess; with need non-nil, only the cells in it.
// The stacks' order is a balanced (Williams) one (stats.WilliamsSequence).
//
// Interleaved: for each case and each of its levels in order, every stack
// serves it in turn. Case k (its index in the plan's cases) takes
// Williams sequence S = (r − 1 + offset(k)) mod cycle (sequenceOf); its
// first turn (first level, first repeat) runs S, the next reversed, and so
// on (S, S reversed, S …), so that a step's two windows are neighbours in
// time and the last window of a turn and the first of the next are the
// same stack's. Within a case, over a cycle of rounds, every stack then
// comes immediately after every other stack equally often (and after
// itself, at the turns' boundaries, equally often), and first equally
// often. Grouped: the stacks serve their cases in a row, in the order of
// sequence (r − 1) mod cycle, each case at every concurrency level.
//
// With protocol repeat R, each cell gets R windows of the round: in a row
// (grouped) or R turns (interleaved). A process serves one stack's windows
// of a round (fresh: round) or of one case (fresh: case); interleaved, a
// stack's process of the round stays up between its windows. A window's
// Slot is its stack's position in the sequence it was laid out by (its
// case's, interleaved).
func layRound(r int, stacks []Stack, cases []workload.Case, p Protocol, need map[CellKey]bool, index, lastProcess int) []Window {
	n := len(stacks)
	orderOf := func(k int) ([]Stack, map[string]int) {
		seq := stats.WilliamsSequence(n, sequenceOf(r, k, n))
		order := make([]Stack, n)
		slot := map[string]int{}
		for i, si := range seq {
			order[i] = stacks[si]
			slot[stacks[si].Name] = i
		}
		return order, slot
	}
	type unit struct {
		s    Stack
		c    workload.Case
		cc   int
		rep  int
		slot int
	}
	var units []unit
	if p.Layout == LayoutInterleaved {
		for k, c := range cases {
			order, slot := orderOf(k)
			reverse := slices.Clone(order)
			slices.Reverse(reverse)
			turn := 0
			for _, cc := range p.Concurrency {
				for rep := 1; rep <= p.Repeats(); rep++ {
					seq := order
					if turn%2 == 1 {
						seq = reverse
					}
					for _, s := range seq {
						units = append(units, unit{s, c, cc, rep, slot[s.Name]})
					}
					turn++
				}
			}
		}
	} else {
		order, slot := orderOf(0)
		for _, s := range order {
			for _, c := range cases {
				for _, cc := range p.Concurrency {
					for rep := 1; rep <= p.Repeats(); rep++ {
						units = append(units, unit{s, c, cc, rep, slot[s.Name]})
					}
				}
			}
		}
	}
	// One process per stack (fresh: round) or per stack and case (fresh:
	// case), numbered in order of first use.
	procOf := map[string]int{}
	var ws []Window
	for _, u := range units {
		if need != nil && !need[CellKey{u.s.Name, u.c.Name, u.cc}] {
			continue
		}
		key := u.s.Name
		if p.Fresh == FreshCase {
			key += "\x00" + u.c.Name
		}
		proc, seen := procOf[key]
		if !seen {
			lastProcess++
			proc, procOf[key] = lastProcess, lastProcess
		}
		ws = append(ws, Window{
			Key: RepeatKey(r, u.s.Name, u.c.Name, u.cc, u.rep), Index: index + len(ws),
			Round: r, Repeat: repeatField(u.rep, p), Slot: u.slot, Stack: u.s.Name, Case: u.c.Name, Concurrency: u.cc,
			Process: proc, NewProcess: !seen, Inserts: u.c.Inserts,
		})
	}
	return ws
}

// fingerprint hashes what shapes the matrix and the measurement. Stack
// dirs are taken relative to the file so that a moved checkout still
// resumes; the database URL is left out so that a resumed run may reach the
// same database on another port.
// fixtureID is what of a database fixture the fingerprint holds.
type fixtureID struct {
	Hash  string
	Reset []string
}

// hostID is what of a host the fingerprint holds: not its identity file,
// which may move without changing the machine.
type hostID struct {
	Name, User, Addr string
	Port             int
}

func fingerprint(p *Plan, base string, sc *scenario.Scenario, fx *DatabaseFixture) string {
	type stackID struct {
		Name, Dir, Build, Start, Health string
		Env                             map[string]string
		Pprof, Runtime                  string `json:",omitempty"`
		Commit                          string `json:",omitempty"`
		// Container is left out of the hash when nil, so plans without
		// one keep their fingerprints.
		Container *Container `json:",omitempty"`
		Services  []int      `json:",omitempty"`
		// The wire: left out for HTTP/1.1 in cleartext, so plans
		// without one keep their fingerprints.
		Wire *Wire `json:",omitempty"`
		// The stack's own database (its files' hash and reset), left out
		// when it has none.
		Database *fixtureID `json:",omitempty"`
	}
	type caseID struct {
		Name, Method, Path string
		Header             []workload.Header
		Body               []byte
		Expect             []int
		Inserts, Database  bool
		// What parity holds and how the requests vary: left out when
		// unset, so built-in plans keep their fingerprints.
		Compare    string                `json:",omitempty"`
		Ignore     []string              `json:",omitempty"`
		Templated  bool                  `json:",omitempty"`
		GRPC       *workload.GRPCCall    `json:",omitempty"`
		Mix        []workload.MixPart    `json:",omitempty"`
		MixSeed    uint64                `json:",omitempty"`
		Flow       *load.Flow            `json:",omitempty"`
		FlowParity []workload.StepParity `json:",omitempty"`
	}
	v := struct {
		Version    int
		Workload   string
		Protocol   Protocol
		Stacks     []stackID
		Cases      []caseID
		Thresholds []CaseThresholds `json:",omitempty"`
		// A custom workload's setup steps, templated requests, values and
		// database fixture (its files' hash and reset statements).
		Scenario *scenario.Scenario `json:",omitempty"`
		Fixture  *fixtureID         `json:",omitempty"`
		// Where the roles run: a resumed run must not mix windows
		// measured on other machines. Left out without hosts:.
		Roles *Roles   `json:",omitempty"`
		Hosts []hostID `json:",omitempty"`
	}{Version: 1, Workload: p.WorkloadName, Protocol: p.Protocol, Thresholds: p.Thresholds, Scenario: sc}
	v.Roles = p.Roles
	for _, h := range p.Hosts {
		v.Hosts = append(v.Hosts, hostID{h.Name, h.User, h.Addr, h.Port})
	}
	if fx != nil {
		// Its hash covers the files' contents and the commands; its paths
		// are absolute, so they stay out (a moved checkout still resumes).
		v.Fixture = &fixtureID{fx.Hash, fx.Reset}
	}
	for _, s := range p.Stacks {
		dir, err := filepath.Rel(base, s.Dir)
		if err != nil {
			dir = s.Dir
		}
		id := stackID{Name: s.Name, Dir: filepath.ToSlash(dir), Build: s.Build, Start: s.Start, Health: s.Health, Env: s.Env, Pprof: s.Pprof, Runtime: s.Runtime, Services: s.Services}
		if s.Git != nil {
			id.Commit = s.Git.Commit
		}
		if s.Database != nil {
			id.Database = &fixtureID{s.Database.Hash, s.Database.Reset}
		}
		if s.Wire != (Wire{}) {
			w := s.Wire
			id.Wire = &w
		}
		if s.Container != nil {
			c := *s.Container
			if rel, err := filepath.Rel(base, c.Build); err == nil && c.Build != "" {
				c.Build = filepath.ToSlash(rel)
			}
			id.Container = &c
		}
		v.Stacks = append(v.Stacks, id)
	}
	for _, c := range p.Cases {
		v.Cases = append(v.Cases, caseID{c.Name, c.Method, c.Path, c.Header, c.Body, c.Expect, c.Inserts, c.Database, c.Compare, c.Ignore, c.Templated, c.GRPC, c.Mix, c.MixSeed, c.Flow, c.FlowParity})
	}
	data, err := json.Marshal(v) // maps marshal with sorted keys: stable
	if err != nil {
		panic("plan: fingerprint: " + err.Error()) // plain data; cannot fail
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// budgetRounds is how many whole rounds of every cell the budget affords by
// RoundEstimate (at least 1); extra rounds measure only open cells, so
// this undercounts rather than overcounts.
func (p *Plan) budgetRounds() int {
	per := p.RoundEstimate()
	if per <= 0 {
		return 0
	}
	if p.Protocol.ClosedLoop == ClosedLoopFirst {
		// The rate rounds have the closed-loop windows, the later rounds
		// not.
		n := p.Protocol.RateRounds()
		var first []Window
		for _, w := range p.Windows {
			if w.Round <= n {
				first = append(first, w)
			}
		}
		return max(1, n+int((p.Protocol.Budget-p.EstimateWindows(first))/per))
	}
	return max(1, int(p.Protocol.Budget/per))
}

// roundOne is the plan's round-1 windows.
func (p *Plan) roundOne() []Window {
	var first []Window
	for _, w := range p.Windows {
		if w.Round == 1 {
			first = append(first, w)
		}
	}
	return first
}

// RoundEstimate is EstimateWindows of one whole round after the first
// (round 1's windows as round 2 has them): with its latency windows when
// round 1 has none (latency: {rate: 50%}), and without its closed-loop
// ones under closed_loop: first.
func (p *Plan) RoundEstimate() time.Duration {
	var later []Window
	for _, w := range p.roundOne() {
		if p.Protocol.Latency != nil {
			w.Round = max(w.Round, p.Protocol.LatencyFirstRound())
		}
		if p.Protocol.ClosedLoop == ClosedLoopFirst {
			w.Round = p.Protocol.RateRounds() + 1
		}
		later = append(later, w)
	}
	return p.EstimateWindows(later)
}

// Rough costs for Estimate, measured on a 2-core machine with the Go
// reference server (journals of the README demo, December 2026: a window
// took its warm-up, its load and 0.1–0.25 s more (host-speed probes
// before and after, checkpoint, journal, the gate's step now and then);
// the reset 0.18 s, a start 0.01–0.14 s); a gate that waits for a busy
// host adds to them, and slower-starting stacks (Node, Python) to
// processStart.
const (
	windowOverhead = 200 * time.Millisecond // checkpoint, probes, journal, the gate's step now and then
	processStart   = 300 * time.Millisecond // spawn, health, stop
	resetOrders    = 300 * time.Millisecond // reset and VACUUM (FULL, ANALYZE)
	bootStart      = 1500 * time.Millisecond
)

// EstimateWindows is a rough duration for running ws (all windows, or the
// ones a resumed run still has to measure), with the latency windows that
// follow them.
func (p *Plan) EstimateWindows(ws []Window) time.Duration {
	var d time.Duration
	warmup := map[string]time.Duration{}
	for _, s := range p.Stacks {
		warmup[s.Name] = p.Protocol.ExpectedWarmup(s)
	}
	for _, w := range ws {
		if w.NewProcess {
			d += processStart
		}
		if !p.Protocol.ClosedLoopIn(w) {
			continue // its latency window alone (latencyEstimate)
		}
		d += warmup[w.Stack] + p.Protocol.Window + windowOverhead
		if w.Inserts {
			d += resetOrders
		}
	}
	return d + p.latencyEstimate(ws)
}

// EstimateBoot is a rough duration for the boot suite.
func (p *Plan) EstimateBoot() time.Duration {
	if p.Protocol.BootStarts == 0 {
		return 0
	}
	return time.Duration(len(p.Stacks)*(p.Protocol.BootStarts+1)) * bootStart
}

// Estimate is a rough duration of the whole run after builds and the
// parity gate: the boot suite and every window.
func (p *Plan) Estimate() time.Duration {
	return p.EstimateBoot() + p.EstimateWindows(p.Windows) + p.EstimateCapacity() + p.EstimateProfiling()
}

// Case returns the selected case with the given name.
func (p *Plan) Case(name string) (workload.Case, bool) {
	for _, c := range p.Cases {
		if c.Name == name {
			return c, true
		}
	}
	return workload.Case{}, false
}

// Stack returns the selected stack with the given name.
func (p *Plan) Stack(name string) (Stack, bool) {
	for _, s := range p.Stacks {
		if s.Name == name {
			return s, true
		}
	}
	return Stack{}, false
}

// Remaining returns the windows whose keys are not done, in run order; a
// resumed run measures these.
func (p *Plan) Remaining(done map[string]bool) []Window {
	var out []Window
	for _, w := range p.Windows {
		if !done[w.Key] {
			out = append(out, w)
		}
	}
	return out
}
