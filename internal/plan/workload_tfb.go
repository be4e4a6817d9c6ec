package plan

import (
	"github.com/stackbench/stackbench/internal/workload"
	"go.yaml.in/yaml/v3"
)

// tfbKeys are the settings of the built-in tfb workload written as a
// mapping: workload: {name: tfb, cases: [json, db], queries: 20}.
var tfbKeys = []string{"name", "cases", "queries", "updates"}

const tfbExample = "workload: {name: tfb, cases: [json, db, queries], queries: 20}"

// builtinHealth is the path a built-in workload's stacks are polled on
// unless they name one: the workload's own (tfb's entries serve no
// /health), or DefaultHealth.
func builtinHealth(w *workload.Workload) string {
	if w != nil && w.Health != "" {
		return w.Health
	}
	return DefaultHealth
}

// isTFBMapping reports whether n is a mapping naming the tfb workload.
func isTFBMapping(n *yaml.Node) bool {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, v := deref(n.Content[i]), deref(n.Content[i+1]); k.Value == "name" && v.Kind == yaml.ScalarNode && v.Value == "tfb" {
			return true
		}
	}
	return false
}

// tfbWorkload reads the tfb workload's settings; nil on a problem.
func (p *parser) tfbWorkload(n *yaml.Node) *workload.Workload {
	m, ok := p.fields(n, "workload", tfbKeys, tfbExample)
	if !ok {
		return nil
	}
	before := len(p.problems)
	var o workload.TFBOptions
	if v := m.get("cases"); v != nil {
		if items, ok := p.items(v, "cases", tfbExample); ok {
			o.Cases = []string{}
			for _, it := range items {
				if c, ok := p.str(it, "a tfb case", "json"); ok {
					o.Cases = append(o.Cases, c)
				}
			}
			if len(o.Cases) == 0 && len(items) == 0 {
				p.addf(v, "cases is empty; list the test types to run, e.g. cases: [json, plaintext]")
			}
		}
	}
	for _, k := range []struct {
		key string
		dst *int
	}{{"queries", &o.Queries}, {"updates", &o.Updates}} {
		if v := m.get(k.key); v != nil {
			if x, ok := p.integer(v, k.key, k.key+": 20"); ok {
				if x < 1 {
					p.addf(v, "%s: %d; the count is 1 to %d, e.g. %s: 20", k.key, x, workload.TFBMaxCount, k.key)
				} else {
					*k.dst = x
				}
			}
		}
	}
	if len(p.problems) > before {
		return nil
	}
	w, err := workload.TFB(o)
	if err != nil {
		p.addf(n, "%v", err)
		return nil
	}
	return w
}
