package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/workload"
	"go.yaml.in/yaml/v3"
)

var (
	// protocolKeys are the protocol section's keys: the settings' (a
	// nested one's parent: gate, latency) and the ones with shapes of
	// their own; gateKeys are gate's.
	protocolKeys = append(settingKeys(""), "cases", "placement")
	gateKeys     = settingKeys("gate")
)

// settingKeys lists the keys of the settings under parent ("": the
// protocol section), each once, in the table's order.
func settingKeys(parent string) []string {
	var keys []string
	for _, s := range Settings {
		key := s.Key
		if parent != "" {
			p, k, ok := strings.Cut(s.Key, ".")
			if !ok || p != parent {
				continue
			}
			key = k
		} else {
			key, _, _ = strings.Cut(s.Key, ".")
		}
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	return keys
}

// protocol reads the file's protocol section into the fields it overrides.
// w is nil when the workload itself has a problem; cases are then not checked.
// The settings of the table (Settings) are read through it; cases,
// placement and the gate's and latency's mappings have shapes of their own.
func (p *parser) protocol(n *yaml.Node, w *workload.Workload) Overrides {
	var o Overrides
	m, ok := p.fields(n, "protocol", protocolKeys, "protocol: {window: 10s}")
	if !ok {
		return o
	}
	for _, s := range Settings {
		if strings.Contains(s.Key, ".") {
			continue // gate.*, latency.rate: under their mappings
		}
		if v := m.get(s.Key); v != nil {
			p.setting(v, s, s.Key, &o)
		}
	}
	if v := m.get("cases"); v != nil {
		o.Cases = p.caseNames(v, w)
	}
	if v := m.get("gate"); v != nil {
		p.gate(v, &o)
	}
	if v := m.get("placement"); v != nil {
		o.Placement = p.placement(v)
	}
	if v := m.get("latency"); v != nil {
		p.latency(v, &o)
	}
	return o
}

// setting reads one setting of the table into o; name is the key as the
// file writes it. A bad value's message is the one its flag gets.
func (p *parser) setting(n *yaml.Node, s Setting, name string, o *Overrides) {
	raw, ok := p.settingText(n, s, name)
	if !ok {
		return
	}
	if err := s.Set(o, raw); err != nil {
		p.addf(n, "%s %v", name, err)
	}
}

// settingText is a setting's value as text: a scalar's, or a list's
// items joined by commas for a CountList or a ChoiceList (one value
// counts as a list of one, so concurrency: 32 and concurrency: [32] mean
// the same).
func (p *parser) settingText(n *yaml.Node, s Setting, name string) (string, bool) {
	example := name + ": " + s.Example
	if s.Type == CountList || s.Type == ChoiceList {
		example = name + ": [" + s.Example + "]"
		items, ok := p.items(n, name, example)
		if !ok {
			return "", false
		}
		var vals []string
		for _, it := range items {
			v, ok := p.str(it, name, example)
			if !ok {
				return "", false
			}
			vals = append(vals, v)
		}
		return strings.Join(vals, ","), true
	}
	return p.str(n, name, example)
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
	if deref(n).Kind == yaml.ScalarNode {
		p.setting(n, SettingOf("gate.threshold"), "gate", o)
		return
	}
	m, ok := p.fields(n, "gate", gateKeys, "gate: {threshold: auto, retries: 3, wait: 30s}")
	if !ok {
		return
	}
	for _, key := range gateKeys {
		if v := m.get(key); v != nil {
			p.setting(v, SettingOf("gate."+key), "gate "+key, o)
		}
	}
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
