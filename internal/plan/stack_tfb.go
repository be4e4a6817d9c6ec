package plan

import (
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/workload"
	"go.yaml.in/yaml/v3"
)

// TFBEntry is what a stack says of itself as a TechEmpower Framework
// Benchmarks entry (the tfb: key, written by init --tfb from the entry's
// benchmark_config.json): the labels TFB's results show beside it, and
// the tfb parity rules relaxed for it. The report shows the labels beside
// the stack and marks the steps a relaxed rule touches.
type TFBEntry struct {
	// Approach is Realistic or Stripped (tuned for the test); ORM is Full,
	// Micro or Raw; Classification is Fullstack, Micro or Platform. Empty
	// when the entry does not say.
	Approach       string `json:"approach,omitempty"`
	ORM            string `json:"orm,omitempty"`
	Classification string `json:"classification,omitempty"`
	// Relax names tfb rules (workload.TFBRules) an answer of this stack
	// may break and still pass parity; each one it did break is named in
	// the report.
	Relax []string `json:"relax,omitempty"`
}

// tfbEntryKeys are the keys of a stack's tfb: mapping.
var tfbEntryKeys = []string{"approach", "orm", "classification", "relax"}

// TFB's label values, as benchmark_config.json writes them.
var (
	TFBApproaches      = []string{"Realistic", "Stripped"}
	TFBORMs            = []string{"Full", "Micro", "Raw"}
	TFBClassifications = []string{"Fullstack", "Micro", "Platform"}
)

const tfbEntryExample = "tfb: {approach: Realistic, orm: Raw, classification: Micro}"

// tfbEntry reads a stack's tfb: mapping; nil on a problem.
func (p *parser) tfbEntry(n *yaml.Node) *TFBEntry {
	m, ok := p.fields(n, "tfb", tfbEntryKeys, tfbEntryExample)
	if !ok {
		return nil
	}
	e := &TFBEntry{}
	for _, k := range []struct {
		key   string
		dst   *string
		known []string
	}{{"approach", &e.Approach, TFBApproaches}, {"orm", &e.ORM, TFBORMs}, {"classification", &e.Classification, TFBClassifications}} {
		v := m.get(k.key)
		if v == nil {
			continue
		}
		if s, ok := p.str(v, k.key, tfbEntryExample); ok {
			i := slices.IndexFunc(k.known, func(w string) bool { return strings.EqualFold(w, s) })
			if i < 0 {
				p.addf(v, "tfb %s %q is not one of TFB's: %s", k.key, s, strings.Join(k.known, ", "))
				continue
			}
			*k.dst = k.known[i]
		}
	}
	if v := m.get("relax"); v != nil {
		if items, ok := p.items(v, "relax", "relax: [tfb.queries-one-read-per-row]"); ok {
			for _, it := range items {
				r, ok := p.str(it, "a tfb rule", "tfb.header-server")
				if !ok {
					continue
				}
				if err := workload.CheckTFBRelax([]string{r}); err != nil {
					p.addf(it, "%v", err)
					continue
				}
				e.Relax = append(e.Relax, r)
			}
		}
	}
	return e
}

// stackPaths reads a stack's paths: mapping (case name → path), checked
// against the workload once it is known (checkStackPaths).
func (p *parser) stackPaths(n *yaml.Node) map[string]string {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.addf(n, "paths must be a mapping of case names to paths, not %s; write paths: {json: /json, queries: \"/queries?queries=\"}", describe(n))
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if _, dup := out[k.Value]; dup {
			p.addf(k, "paths: %s appears twice; keep one", k.Value)
			continue
		}
		if path, ok := p.path(v, "paths: "+k.Value, "/json"); ok {
			out[k.Value] = path
		}
	}
	return out
}

// stackNodes are nodes of a stack kept for the checks that need the whole
// file: its paths: value and whether it named its health path.
type stackNodes struct {
	paths       *yaml.Node
	healthGiven bool
}

// checkStackPaths checks each stack's paths: against the workload (the
// tfb workload's cases only), and gives a stack that names no health
// path the workload's health route at its own path.
func (p *parser) checkStackPaths(f *File) {
	for i := range f.Stacks {
		s := &f.Stacks[i]
		if len(s.Paths) == 0 {
			continue
		}
		nodes := p.stackNodes[s.Line]
		if f.Workload == nil || f.Workload.TFB == nil {
			p.addf(nodes.paths, "stack %q has paths:, which places the tfb workload's cases at a stack's own URLs; this file's workload is not tfb: use base: for a common prefix, or a custom workload", s.Name)
			continue
		}
		w, err := f.Workload.WithTFBPaths(s.Paths)
		if err != nil {
			p.addf(nodes.paths, "stack %q: %v", s.Name, err)
			continue
		}
		if !nodes.healthGiven {
			s.Health = s.Base + w.Health
		}
	}
}

// WorkloadOf is the workload as stack name is sent it: the file's, with
// the stack's own paths: (TFB's per-entry URLs) when it has them.
func (f *File) WorkloadOf(name string) *workload.Workload {
	s, ok := f.Stack(name)
	if !ok || len(s.Paths) == 0 {
		return f.Workload
	}
	w, err := f.Workload.WithTFBPaths(s.Paths)
	if err != nil {
		return f.Workload // checked when the file was read (checkStackPaths)
	}
	return w
}

// CaseOf is case name as stack is sent it (WorkloadOf).
func (f *File) CaseOf(stack, name string) (workload.Case, bool) {
	return f.WorkloadOf(stack).Case(name)
}
