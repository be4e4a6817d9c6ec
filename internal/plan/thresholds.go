package plan

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/workload"
	"go.yaml.in/yaml/v3"
)

// Thresholds are the limits one case's windows must meet, for every stack:
// the k6 idea, judged with an interval (report). A zero field sets no
// limit.
type Thresholds struct {
	// P50, P90, P99 and P999 are the most a window's latency percentile
	// (of successful responses) may be.
	P50  time.Duration `json:"p50,omitempty"`
	P90  time.Duration `json:"p90,omitempty"`
	P99  time.Duration `json:"p99,omitempty"`
	P999 time.Duration `json:"p999,omitempty"`
	// ErrorRate is the most a window's failed share of its attempts may be
	// (a fraction: 0.001 is 0.1 %); nil sets no limit, so that 0 (no error
	// at all) can be asked for.
	ErrorRate *float64 `json:"error_rate,omitempty"`
	// ThroughputRPS is the least a window's throughput may be, in
	// successful responses per second.
	ThroughputRPS float64 `json:"throughput_rps,omitempty"`
}

// Empty reports whether t sets no limit.
func (t Thresholds) Empty() bool { return t == Thresholds{} }

// over returns t with every limit that o sets replaced by o's.
func (t Thresholds) over(o Thresholds) Thresholds {
	for _, f := range []struct{ dst, src *time.Duration }{{&t.P50, &o.P50}, {&t.P90, &o.P90}, {&t.P99, &o.P99}, {&t.P999, &o.P999}} {
		if *f.src > 0 {
			*f.dst = *f.src
		}
	}
	if o.ErrorRate != nil {
		t.ErrorRate = o.ErrorRate
	}
	if o.ThroughputRPS > 0 {
		t.ThroughputRPS = o.ThroughputRPS
	}
	return t
}

// CaseThresholds are one case's resolved thresholds, as a plan holds them.
type CaseThresholds struct {
	Case string `json:"case"`
	// Route, when set, is a route of the mix Case: the limits are judged
	// on that route's requests inside the mix (thresholds cases:
	// {storefront/list: {p99: 25ms}}), not on the whole mix.
	Route      string     `json:"route,omitempty"`
	Thresholds Thresholds `json:"thresholds"`
}

// Name is what the thresholds are judged on: the case, or a mix's route
// as mix/route.
func (ct CaseThresholds) Name() string {
	if ct.Route != "" {
		return ct.Case + "/" + ct.Route
	}
	return ct.Case
}

// thresholdsSection is the file's thresholds: section before the cases
// are selected.
type thresholdsSection struct {
	all   Thresholds
	cases map[string]Thresholds
}

var thresholdKeys = []string{"p50", "p90", "p99", "p999", "error_rate", "throughput", "cases"}

const thresholdsExample = "thresholds: {p99: 25ms, error_rate: 0.1%, throughput: 2000, cases: {order: {p99: 50ms}, storefront/list: {p99: 25ms}}}"

// thresholds reads the thresholds section: limits for every case, and under
// cases: limits for named cases, which replace the general ones they name.
func (p *parser) thresholds(n *yaml.Node, w *workload.Workload) *thresholdsSection {
	m, ok := p.fields(n, "thresholds", thresholdKeys, thresholdsExample)
	if !ok {
		return nil
	}
	s := &thresholdsSection{all: p.limits(m, "thresholds"), cases: map[string]Thresholds{}}
	if v := m.get("cases"); v != nil {
		v = deref(v)
		if v.Kind != yaml.MappingNode {
			p.addf(v, "thresholds cases must be a mapping of case names to thresholds, not %s; write cases: {order: {p99: 50ms}}", describe(v))
			return s
		}
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, cv := deref(v.Content[i]), deref(v.Content[i+1])
			name := k.Value
			switch {
			case k.Kind != yaml.ScalarNode:
				p.addf(k, "a case name in thresholds cases must be a plain word, not %s", describe(k))
				continue
			case strings.Contains(name, "/"):
				if !p.mixRouteName(k, name, w) {
					continue
				}
			case w != nil && !slices.Contains(w.CaseNames(), name):
				p.addf(k, "thresholds cases: %s", unknownCase(name, w))
				continue
			}
			if _, dup := s.cases[name]; dup {
				p.addf(k, "case %q appears twice in thresholds cases; keep one", name)
				continue
			}
			what := "the thresholds of case " + name
			cm, ok := p.fields(cv, what, slices.DeleteFunc(slices.Clone(thresholdKeys), func(k string) bool { return k == "cases" }), "{p99: 50ms, error_rate: 0.1%}")
			if ok {
				t := p.limits(cm, what)
				if t.Empty() {
					p.addf(cv, "%s set no limit; write e.g. {p99: 50ms}", what)
				}
				s.cases[name] = t
			}
		}
	}
	if s.all.Empty() && len(s.cases) == 0 {
		p.addf(n, "thresholds set no limit; write e.g. %s", thresholdsExample)
	}
	return s
}

// limits reads the metric keys of a thresholds mapping.
func (p *parser) limits(m mapping, what string) Thresholds {
	var t Thresholds
	for _, q := range []struct {
		key string
		dst *time.Duration
	}{{"p50", &t.P50}, {"p90", &t.P90}, {"p99", &t.P99}, {"p999", &t.P999}} {
		if v := m.get(q.key); v != nil {
			*q.dst, _ = p.duration(v, q.key, time.Microsecond)
		}
	}
	if v := m.get("error_rate"); v != nil {
		if r, ok := p.share(v, "error_rate", 0, 1, "error_rate: 0.1%"); ok {
			t.ErrorRate = &r
		}
	}
	if v := m.get("throughput"); v != nil {
		if s, ok := p.str(v, "throughput", "throughput: 2000"); ok {
			rps, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "/s"), 64)
			if err != nil || rps <= 0 {
				p.addf(v, "throughput %q is not a rate; write the least successful responses per second, e.g. throughput: 2000", s)
			} else {
				t.ThroughputRPS = rps
			}
		}
	}
	return t
}

// mixRouteName checks a thresholds key naming a route of a mix
// ("storefront/list"): the mix must be one of the workload's and the
// route one of its routes.
func (p *parser) mixRouteName(k *yaml.Node, name string, w *workload.Workload) bool {
	mix, route, _ := strings.Cut(name, "/")
	if w == nil {
		return true
	}
	c, ok := w.Case(mix)
	switch {
	case !ok:
		p.addf(k, "thresholds cases: %s is not a mix of the workload (a route's limits are written mix/route); %s", name, unknownCase(mix, w))
		return false
	case !c.IsMix():
		p.addf(k, "thresholds cases: %s names case %s, which is not a mix; a route's limits are written mix/route, a case's under its own name", name, mix)
		return false
	}
	var routes []string
	for _, part := range c.Mix {
		routes = append(routes, part.Case)
	}
	if !slices.Contains(routes, route) {
		p.addf(k, "thresholds cases: %q is not a route of mix %s; write one of: %s", route, mix, strings.Join(routes, ", "))
		return false
	}
	return true
}

// resolve gives each selected case its thresholds, in plan order; cases
// without any limit are left out. A selected mix's routes named under
// cases (mix/route) follow their mix, each with its own limits alone: the
// general limits hold for the mix as a whole, not for each of its routes.
func (s *thresholdsSection) resolve(cases []workload.Case) []CaseThresholds {
	if s == nil {
		return nil
	}
	var out []CaseThresholds
	for _, c := range cases {
		t := s.all
		if ct, ok := s.cases[c.Name]; ok {
			t = t.over(ct)
		}
		if !t.Empty() {
			out = append(out, CaseThresholds{Case: c.Name, Thresholds: t})
		}
		for _, part := range c.Mix {
			if rt, ok := s.cases[c.Name+"/"+part.Case]; ok && !rt.Empty() {
				out = append(out, CaseThresholds{Case: c.Name, Route: part.Case, Thresholds: rt})
			}
		}
	}
	return out
}
