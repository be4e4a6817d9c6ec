package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/workload"
	"go.yaml.in/yaml/v3"
)

var (
	protocolKeys = []string{"concurrency", "warmup", "warmup_max", "jit_warmup", "jit_warmup_max", "window", "timeout", "rounds", "cases", "fresh", "layout", "repeat", "boot_starts", "gate", "spread", "min_effect", "family", "min_rounds", "max_rounds", "budget", "placement", "profiling", "latency"}
	gateKeys     = []string{"threshold", "retries", "wait"}
)

// protocol reads the file's protocol section into the fields it overrides.
// w is nil when the workload itself has a problem; cases are then not checked.
func (p *parser) protocol(n *yaml.Node, w *workload.Workload) Overrides {
	var o Overrides
	m, ok := p.fields(n, "protocol", protocolKeys, "protocol: {window: 10s}")
	if !ok {
		return o
	}
	if v := m.get("concurrency"); v != nil {
		o.Concurrency = p.concurrency(v)
	}
	if v := m.get("warmup"); v != nil {
		o.Warmup, _ = p.duration(v, "warmup", minWarmup)
	}
	if v := m.get("warmup_max"); v != nil {
		o.WarmupMax, _ = p.duration(v, "warmup_max", minWarmup)
	}
	if v := m.get("jit_warmup"); v != nil {
		o.JITWarmup, _ = p.duration(v, "jit_warmup", minWarmup)
	}
	if v := m.get("jit_warmup_max"); v != nil {
		o.JITWarmupMax, _ = p.duration(v, "jit_warmup_max", minWarmup)
	}
	if v := m.get("window"); v != nil {
		o.Window, _ = p.duration(v, "window", minWindow)
	}
	if v := m.get("timeout"); v != nil {
		o.Timeout, _ = p.duration(v, "timeout", minTimeout)
	}
	if v := m.get("rounds"); v != nil {
		if deref(v).Kind == yaml.ScalarNode && deref(v).Value == "auto" {
			yes := true
			o.Adaptive = &yes
		} else if r, ok := p.atLeast(v, "rounds", 1, "rounds: 5, or rounds: auto"); ok {
			no := false
			o.Rounds, o.Adaptive = r, &no
		}
	}
	if v := m.get("min_rounds"); v != nil {
		o.MinRounds, _ = p.atLeast(v, "min_rounds", 1, "min_rounds: 4")
	}
	if v := m.get("max_rounds"); v != nil {
		o.MaxRounds, _ = p.atLeast(v, "max_rounds", 1, "max_rounds: 12")
	}
	if v := m.get("budget"); v != nil {
		o.Budget, _ = p.duration(v, "budget", time.Minute)
	}
	if v := m.get("cases"); v != nil {
		o.Cases = p.caseNames(v, w)
	}
	if v := m.get("fresh"); v != nil {
		if s, ok := p.str(v, "fresh", "fresh: round"); ok {
			if s == FreshRound || s == FreshCase {
				o.Fresh = s
			} else {
				p.addf(v, "fresh %q is not known; write fresh: round (one process serves all cases of a round) or fresh: case (a fresh process per case)", s)
			}
		}
	}
	if v := m.get("layout"); v != nil {
		if s, ok := p.str(v, "layout", "layout: interleaved"); ok {
			if s == LayoutInterleaved || s == LayoutGrouped {
				o.Layout = s
			} else {
				p.addf(v, "layout %q is not known; write layout: interleaved (stacks take turns case by case, steps paired by round) or layout: grouped (each stack serves its cases in a row)", s)
			}
		}
	}
	if v := m.get("repeat"); v != nil {
		if r, ok := p.atLeast(v, "repeat", 1, "repeat: 2"); ok {
			if r > MaxRepeat {
				p.addf(v, "repeat %d is more than %d; a process's windows of a cell vary little, so give 2 to see that spread, or 1", r, MaxRepeat)
			} else {
				o.Repeat = r
			}
		}
	}
	if v := m.get("boot_starts"); v != nil {
		if b, ok := p.atLeast(v, "boot_starts", 0, "boot_starts: 10 (0 skips the boot suite)"); ok {
			o.BootStarts = &b
		}
	}
	if v := m.get("spread"); v != nil {
		if b, ok := p.boolean(v, "spread"); ok {
			o.Spread = &b
		}
	}
	if v := m.get("gate"); v != nil {
		p.gate(v, &o)
	}
	if v := m.get("min_effect"); v != nil {
		o.MinEffect, _ = p.fraction(v, "min_effect", "min_effect: 5%")
	}
	if v := m.get("family"); v != nil {
		if s, ok := p.str(v, "family", "family: run"); ok {
			if s == FamilyRun || s == FamilyStep {
				o.Family = s
			} else {
				p.addf(v, "family %q is not known; write family: run (false gains and losses controlled over all the run's calls at once) or family: step (each call on its own, at α)", s)
			}
		}
	}
	if v := m.get("placement"); v != nil {
		o.Placement = p.placement(v)
	}
	if v := m.get("profiling"); v != nil {
		o.Profiling = p.onOff(v, "profiling")
	}
	if v := m.get("latency"); v != nil {
		o.Latency = p.latency(v)
	}
	return o
}

// concurrency reads one level or a list of levels.
func (p *parser) concurrency(n *yaml.Node) []int {
	items, ok := p.items(n, "concurrency", "concurrency: [10, 100]")
	if !ok {
		return nil
	}
	var out []int
	seen := map[int]bool{}
	for _, it := range items {
		c, ok := p.integer(it, "concurrency", "concurrency: [10, 100]")
		if !ok {
			continue
		}
		if msg := checkConcurrency(c); msg != "" {
			p.addf(it, "%s", msg)
			continue
		}
		if seen[c] {
			p.addf(it, "concurrency %d is listed twice; list each level once", c)
			continue
		}
		seen[c] = true
		out = append(out, c)
	}
	if len(out) < len(items) {
		return nil
	}
	return out
}

// caseNames reads the cases to run and checks them against the workload.
func (p *parser) caseNames(n *yaml.Node, w *workload.Workload) []string {
	items, ok := p.items(n, "cases", "cases: [health, user]")
	if !ok {
		return nil
	}
	var out []string
	for _, it := range items {
		name, ok := p.str(it, "a case", "cases: [health, user]")
		if !ok {
			continue
		}
		switch {
		case slices.Contains(out, name):
			p.addf(it, "case %q is listed twice; list each case once", name)
		case w != nil && !slices.Contains(w.CaseNames(), name):
			p.addf(it, "%s", unknownCase(name, w))
		default:
			out = append(out, name)
		}
	}
	return out
}

// gate reads "gate: auto|off|cores" or a mapping with threshold, retries and wait.
func (p *parser) gate(n *yaml.Node, o *Overrides) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode {
		p.gateThreshold(n, o)
		return
	}
	m, ok := p.fields(n, "gate", gateKeys, "gate: {threshold: auto, retries: 3, wait: 30s}")
	if !ok {
		return
	}
	if v := m.get("threshold"); v != nil {
		p.gateThreshold(v, o)
	}
	if v := m.get("retries"); v != nil {
		if r, ok := p.atLeast(v, "retries", 0, "retries: 3"); ok {
			o.GateRetries = &r
		}
	}
	if v := m.get("wait"); v != nil {
		o.GateWait, _ = p.duration(v, "wait", time.Second)
	}
}

func (p *parser) gateThreshold(n *yaml.Node, o *Overrides) {
	s, ok := p.str(n, "gate threshold", "auto")
	if !ok {
		return
	}
	if _, _, err := parseGate(s); err != nil {
		p.addf(n, "gate %q is not known; %v", s, err)
		return
	}
	o.Gate = s
}

// fraction reads a share written as a percentage ("5%") or a fraction
// (0.05), strictly between 0 and 1.
func (p *parser) fraction(n *yaml.Node, field, example string) (float64, bool) {
	s, ok := p.str(n, field, example)
	if !ok {
		return 0, false
	}
	f, err := ParseFraction(s)
	if err != nil {
		p.addf(n, "%s %q: %v; write %s", field, s, err, example)
		return 0, false
	}
	return f, true
}

// ParseFraction reads "5%", "5 %" or "0.05" as 0.05. The value must be
// strictly between 0 and 1 (0 % and 100 % are not shares anyone means).
func ParseFraction(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if rest, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = strings.TrimSpace(rest), 100
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not a number or a percentage")
	}
	f /= scale
	if f <= 0 || f >= 1 {
		return 0, fmt.Errorf("must be above 0 %% and below 100 %%")
	}
	return f, nil
}
