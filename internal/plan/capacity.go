package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/workload"
)

// Capacity is the capacity phase (the file's capacity: section): after
// the closed-loop windows, and after any adaptive rounds, the run searches
// each stack × case that has an SLO for the highest open-loop rate that
// meets it (internal/capacity; docs/capacity.md). Nil when the file has no
// capacity section.
type Capacity struct {
	// Cases are the cases searched, in plan order, each with its SLO.
	Cases []CapacityCase `json:"cases"`
	// MaxErrorShare bounds a passing probe's errors (a fraction).
	MaxErrorShare float64 `json:"max_error_share"`
	// Resolution is the bisection's stopping width and the step down
	// after a failed confirmation (a fraction).
	Resolution float64 `json:"resolution"`
	// Confirmations are the windows the rate found must pass in a row;
	// Retries the repeats of a failed probe before it is believed.
	Confirmations int `json:"confirmations"`
	Retries       int `json:"retries"`
	// Probe and Warmup are each probe's window and warm-up.
	Probe  time.Duration `json:"probe_ns"`
	Warmup time.Duration `json:"warmup_ns"`
	// Budget bounds each stack × case search, not the whole phase: a
	// search out of budget reports its bracket.
	Budget time.Duration `json:"budget_ns"`
	// Connections is the generator's most requests in flight (open loop).
	Connections int `json:"connections"`
	// StartFraction is the share of the cell's closed-loop throughput,
	// measured in this run, that the climb starts from.
	StartFraction float64 `json:"start_fraction"`
	// MaxGeneratorWaitShare is the most the generator may wait for a CPU,
	// in seconds per second of probe, before a probe fails as starved.
	MaxGeneratorWaitShare float64 `json:"max_generator_wait_share"`
	// Searches is how many times each stack × case is searched, each
	// search in a fresh process, the stacks taking turns search by search
	// in a balanced order (stats.WilliamsSequence): the capacity is the
	// median of the searches' capacities and a capacity step compares the
	// two stacks' searches (docs/capacity.md). 0 in journals written
	// before it: one search (SearchCount).
	Searches int `json:"searches,omitempty"`
}

// SearchCount is Searches, at least 1.
func (c Capacity) SearchCount() int { return max(1, c.Searches) }

// CapacityCase is one case searched and its objective.
type CapacityCase struct {
	Case string `json:"case"`
	// SLO is the objective as written ("p99=20ms"; capacity.ParseSLO):
	// for a flow case, on the whole flow's latency from its scheduled
	// start, the search offering flows per second.
	SLO string `json:"slo"`
	// Steps are a flow case's objectives on its steps' own latencies
	// (capacity: cases: {session: {slo: …, steps: {login: p99=50ms}}}),
	// in the flow's step order: a probe passes only when every one holds
	// besides SLO. Empty for a case that is not a flow.
	Steps []StepSLO `json:"steps,omitempty"`
}

// StepSLO is one flow step's objective in a capacity search.
type StepSLO struct {
	Step string `json:"step"`
	SLO  string `json:"slo"`
}

// ParsedSLO returns the parsed objective of a searched step.
func (s StepSLO) ParsedSLO() capacity.SLO {
	slo, _ := capacity.ParseSLO(s.SLO) // checked when the file was read
	return slo
}

// Defaults of the capacity section. Confirm is the capacity command's 3:
// a capacity step compares the two stacks' searches, not their
// confirmation windows. A run with steps searches each stack × case 5
// times (DefaultCapacitySearches), a run of one stack once: a capacity
// step's two-sample interval needs 4 searches a side to be finite at
// α = 0.05 (3 against 3 reach at best 2 ÷ C(6, 3) = 0.1, stats.MinP), and
// a search that confirms nothing is dropped, so 5 survive one lost search
// (5 against 4: 2 ÷ C(9, 4) = 0.016; 3 against 4, 2 ÷ 35, never can).
const (
	DefaultCapacityConfirm     = 3
	DefaultCapacityConnections = 256
	DefaultCapacityBudget      = 3 * time.Minute
	DefaultCapacitySearches    = 5
	// MaxCapacitySearches bounds searches: each is a whole search.
	MaxCapacitySearches = 20
)

var capacityKeys = []string{"slo", "cases", "errors", "resolution", "confirm", "retries", "probe", "warmup", "budget", "connections", "start_fraction", "generator_wait", "searches"}

// capacitySection is the file's capacity section as written: resolved
// against the selected cases by Resolve.
type capacitySection struct {
	node  *yaml.Node
	slo   string            // for every case without its own
	cases map[string]string // case → SLO
	// steps are a flow case's step SLOs (case → step → SLO), read from
	// a mapping {slo: …, steps: {…}} in cases.
	steps map[string]map[string]string
	// flowNodes are those flows' entries in cases, for their errors.
	flowNodes map[string]*yaml.Node
	c         Capacity // the settings, defaults applied
	// searches is the searches key as written, 0 when absent: the default
	// depends on the stacks selected (resolve).
	searches int
}

const capacityExample = "capacity: {slo: p99=20ms, cases: {order: p99=50ms}, budget: 2m}"

// capacity reads the capacity section. w is nil when the workload itself
// has a problem; case names are then not checked.
func (p *parser) capacity(n *yaml.Node, w *workload.Workload) *capacitySection {
	m, ok := p.fields(n, "capacity", capacityKeys, capacityExample)
	if !ok {
		return nil
	}
	s := &capacitySection{node: deref(n), cases: map[string]string{}, steps: map[string]map[string]string{}, flowNodes: map[string]*yaml.Node{}, c: Capacity{
		MaxErrorShare: capacity.DefaultMaxErrorShare, Resolution: capacity.DefaultResolution,
		Confirmations: DefaultCapacityConfirm, Retries: capacity.DefaultRetries,
		Probe: capacity.DefaultProbe, Warmup: capacity.DefaultWarmup, Budget: DefaultCapacityBudget,
		Connections: DefaultCapacityConnections, StartFraction: capacity.DefaultStartFraction,
		MaxGeneratorWaitShare: capacity.DefaultMaxGeneratorWaitShare,
	}}
	if v := m.get("slo"); v != nil {
		s.slo = p.slo(v, "slo")
	}
	if v := m.get("cases"); v != nil {
		p.capacityCases(v, w, s)
	}
	if !m.has("slo") && !m.has("cases") {
		p.addf(n, "capacity has no SLO; write slo: p99=20ms (every case) or cases: {user: p99=20ms} (only these cases)")
	}
	c := &s.c
	if v := m.get("errors"); v != nil {
		c.MaxErrorShare, _ = p.share(v, "errors", 0, 1, "errors: 0.1%")
	}
	if v := m.get("resolution"); v != nil {
		if r, ok := p.share(v, "resolution", 0, 0.5, "resolution: 2%"); ok && r == 0 {
			p.addf(v, "resolution must be above 0; write e.g. resolution: 2%%")
		} else if ok {
			c.Resolution = r
		}
	}
	if v := m.get("confirm"); v != nil {
		c.Confirmations, _ = p.atLeast(v, "confirm", 1, "confirm: 3")
	}
	if v := m.get("searches"); v != nil {
		if n, ok := p.atLeast(v, "searches", 1, "searches: 4"); ok {
			if n > MaxCapacitySearches {
				p.addf(v, "searches %d is more than %d; each is a whole search (up to the budget), so give e.g. searches: 4", n, MaxCapacitySearches)
			} else {
				s.searches = n
			}
		}
	}
	if v := m.get("retries"); v != nil {
		c.Retries, _ = p.atLeast(v, "retries", 0, "retries: 1 (0: believe a failure at once)")
	}
	if v := m.get("probe"); v != nil {
		c.Probe, _ = p.duration(v, "probe", 200*time.Millisecond)
	}
	if v := m.get("warmup"); v != nil {
		c.Warmup, _ = p.duration(v, "warmup", 100*time.Millisecond)
	}
	if v := m.get("budget"); v != nil {
		c.Budget, _ = p.duration(v, "budget", time.Second)
	}
	if v := m.get("connections"); v != nil {
		if conn, ok := p.atLeast(v, "connections", 1, "connections: 256"); ok {
			if why := SettingOf("concurrency").checkCount(conn); why != "" {
				p.addf(v, "connections %d is %s", conn, why)
			} else {
				c.Connections = conn
			}
		}
	}
	if v := m.get("start_fraction"); v != nil {
		if f, ok := p.share(v, "start_fraction", 0, 1, "start_fraction: 50%"); ok && f == 0 {
			p.addf(v, "start_fraction must be above 0; write e.g. start_fraction: 50%%")
		} else if ok {
			c.StartFraction = f
		}
	}
	if v := m.get("generator_wait"); v != nil {
		if g, ok := p.share(v, "generator_wait", 0, 1, "generator_wait: 50%"); ok && g == 0 {
			p.addf(v, "generator_wait must be above 0: a search that does not judge its generator judges the host; write e.g. generator_wait: 80%%")
		} else if ok {
			c.MaxGeneratorWaitShare = g
		}
	}
	return s
}

// capacityCases reads the per-case SLOs: a mapping of case names to SLOs.
func (p *parser) capacityCases(n *yaml.Node, w *workload.Workload, s *capacitySection) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.addf(n, "capacity cases must be a mapping of case names to SLOs, not %s; write cases: {user: p99=20ms, order: p99=50ms}", describe(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		name := k.Value
		switch {
		case k.Kind != yaml.ScalarNode:
			p.addf(k, "a case name in capacity cases must be a plain word, not %s", describe(k))
			continue
		case w != nil && !slices.Contains(w.CaseNames(), name):
			p.addf(k, "capacity cases: %s", unknownCase(name, w))
			continue
		}
		if _, dup := s.cases[name]; dup {
			p.addf(k, "case %q appears twice in capacity cases; keep one", name)
			continue
		}
		if v.Kind == yaml.MappingNode {
			p.capacityFlow(v, w, name, s)
			continue
		}
		if slo := p.slo(v, "the SLO of case "+name); slo != "" {
			s.cases[name] = slo
		}
	}
}

// slo reads an objective such as p99=20ms.
func (p *parser) slo(n *yaml.Node, field string) string {
	s, ok := p.str(n, field, "p99=20ms")
	if !ok {
		return ""
	}
	if _, err := capacity.ParseSLO(s); err != nil {
		p.addf(n, "%s: %v", field, err)
		return ""
	}
	return s
}

// share reads a share written "0.1%" or 0.001, from lo to hi.
func (p *parser) share(n *yaml.Node, field string, lo, hi float64, example string) (float64, bool) {
	s, ok := p.str(n, field, example)
	if !ok {
		return 0, false
	}
	v, err := capacity.ParseShare(s)
	if err == nil && (v < lo || v > hi) {
		err = fmt.Errorf("%q must lie from %g %% to %g %%", s, 100*lo, 100*hi)
	}
	if err != nil {
		p.addf(n, "%s: %v; write %s", field, err, example)
		return 0, false
	}
	return v, true
}

// resolve keeps the selected cases that have an SLO, in plan order, and
// sets the searches: as written, else DefaultCapacitySearches when the run
// has steps (stacks > 1) and 1 for a single stack.
func (s *capacitySection) resolve(name string, cases []workload.Case, stacks int) (*Capacity, []Problem) {
	c := s.c
	switch {
	case s.searches > 0:
		c.Searches = s.searches
	case stacks > 1:
		c.Searches = DefaultCapacitySearches
	default:
		c.Searches = 1
	}
	var problems []Problem
	for _, wc := range cases {
		slo, ok := s.cases[wc.Name]
		if !ok {
			slo = s.slo
		}
		steps := s.flowSteps(wc)
		switch {
		case slo == "" && len(steps) > 0:
			at := s.node
			if n := s.flowNodes[wc.Name]; n != nil {
				at = n
			}
			problems = append(problems, Problem{File: name, Line: at.Line, Col: at.Column,
				Msg: fmt.Sprintf("capacity: flow %s has SLOs on its steps and none on the whole flow; add slo: to it (cases: {%s: {slo: p99=500ms, steps: …}}) or slo: for every case", wc.Name, wc.Name)})
		case slo != "":
			c.Cases = append(c.Cases, CapacityCase{Case: wc.Name, SLO: slo, Steps: steps})
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	if len(c.Cases) == 0 {
		return nil, []Problem{{File: name, Line: s.node.Line, Col: s.node.Column,
			Msg: "capacity: none of the cases this run measures has an SLO; give one for all (slo: p99=20ms) or name a selected case under cases:"}}
	}
	return &c, nil
}

// addCapacity sets the plan's capacity phase from the file's section and
// folds it into the fingerprint (a plan without one keeps its fingerprint).
func (p *Plan) addCapacity(f *File) error {
	if f.capacity == nil {
		return nil
	}
	c, problems := f.capacity.resolve(f.Name, p.Cases, len(p.Stacks))
	if c != nil && p.Roles != nil && len(p.Roles.Generators) > 0 {
		for _, cc := range c.Cases {
			if wc, ok := f.Workload.Case(cc.Case); ok && wc.IsFlow() {
				problems = append(problems, Problem{File: f.Name, Msg: fmt.Sprintf("capacity: case %q is a flow, and a capacity search offers it fixed rates, which are not yet split across generator hosts; leave generators: out of roles:, or give the flow no SLO", cc.Case)})
			}
		}
	}
	if len(problems) > 0 {
		return &ConfigError{Problems: problems}
	}
	p.Capacity = c
	data, err := json.Marshal(struct {
		Matrix   string
		Capacity *Capacity
	}{p.Fingerprint, c})
	if err != nil {
		panic("plan: capacity fingerprint: " + err.Error()) // plain data; cannot fail
	}
	sum := sha256.Sum256(data)
	p.Fingerprint = "sha256:" + hex.EncodeToString(sum[:16])
	return nil
}

// ParsedSLO returns the parsed objective of a searched case.
func (c CapacityCase) ParsedSLO() capacity.SLO {
	s, _ := capacity.ParseSLO(c.SLO) // checked when the file was read
	return s
}

// Rough costs of a capacity search for EstimateCapacity: a search on this
// project's 2-core host takes about 15 probes (climb, bisection to 2 %, a
// repeat or two, confirmation).
const capacityProbesPerSearch = 15

// EstimateCapacity is a rough duration of the capacity phase: each search
// takes about capacityProbesPerSearch probes, or its budget if that is
// shorter, and each stack × case is searched SearchCount times, plus a
// process start per stack and search (per stack, case and search with
// fresh: case).
func (p *Plan) EstimateCapacity() time.Duration {
	if p.Capacity == nil {
		return 0
	}
	c := p.Capacity
	search := min(time.Duration(capacityProbesPerSearch+c.Confirmations)*(c.Warmup+c.Probe+windowOverhead), c.Budget)
	searches := time.Duration(c.SearchCount())
	var d time.Duration
	for _, cc := range c.Cases {
		cs, _ := p.Case(cc.Case)
		n := time.Duration(len(p.Stacks)) * searches
		d += n * search
		if cs.Inserts {
			d += n * (capacityProbesPerSearch + time.Duration(c.Confirmations)) * resetOrders
		}
	}
	starts := time.Duration(len(p.Stacks)) * searches
	if p.Protocol.Fresh == FreshCase {
		starts *= time.Duration(len(c.Cases))
	}
	return d + starts*processStart
}

// casesOrNone is c's searched cases; none for a nil c.
func (c *Capacity) casesOrNone() []CapacityCase {
	if c == nil {
		return nil
	}
	return c.Cases
}
