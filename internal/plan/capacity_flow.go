package plan

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/workload"
)

// A flow case in the capacity phase (issue 47, item 4; docs/capacity.md):
// the search offers flows per second; the case's SLO is on the whole
// flow's latency, and a mapping in capacity cases adds SLOs on its steps:
//
//	capacity:
//	  cases:
//	    session: {slo: p99=500ms, steps: {login: p99=50ms, list: p99=80ms}}

const capacityFlowExample = "session: {slo: p99=500ms, steps: {login: p99=50ms}}"

// capacityFlow reads a flow case's objectives written as a mapping: slo
// (the whole flow's) and steps (step → SLO). w is nil when the workload
// has a problem; names are then not checked.
func (p *parser) capacityFlow(n *yaml.Node, w *workload.Workload, name string, s *capacitySection) {
	var wc workload.Case
	if w != nil {
		wc, _ = w.Case(name)
		if !wc.IsFlow() {
			p.addf(n, "case %s is not a flow: give it one SLO, e.g. %s: p99=20ms (a mapping with steps: is for a flow's steps)", name, name)
			return
		}
	}
	m, ok := p.fields(n, "the SLOs of flow "+name, []string{"slo", "steps"}, capacityFlowExample)
	if !ok {
		return
	}
	if v := m.get("slo"); v != nil {
		if slo := p.slo(v, "the SLO of flow "+name); slo != "" {
			s.cases[name] = slo
		}
	}
	v := m.get("steps")
	if v == nil {
		if !m.has("slo") {
			p.addf(n, "flow %s has neither slo: nor steps:; write %s", name, capacityFlowExample)
		}
		return
	}
	v = deref(v)
	if v.Kind != yaml.MappingNode {
		p.addf(v, "the step SLOs of flow %s must be a mapping of step names to SLOs, not %s; write %s", name, describe(v), capacityFlowExample)
		return
	}
	steps := map[string]string{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, sv := deref(v.Content[i]), deref(v.Content[i+1])
		if wc.Flow != nil && !slices.ContainsFunc(wc.Flow.Steps, func(st load.FlowStep) bool { return st.Name == k.Value }) {
			p.addf(k, "flow %s has no step %q; its steps are %s", name, k.Value, stepNames(wc))
			continue
		}
		if _, dup := steps[k.Value]; dup {
			p.addf(k, "step %q appears twice in the SLOs of flow %s; keep one", k.Value, name)
			continue
		}
		if slo := p.slo(sv, "the SLO of step "+name+"/"+k.Value); slo != "" {
			steps[k.Value] = slo
		}
	}
	s.steps[name], s.flowNodes[name] = steps, n
}

// flowSteps is a flow case's step SLOs in the flow's step order; nil for
// a case without them.
func (s *capacitySection) flowSteps(wc workload.Case) []StepSLO {
	slos := s.steps[wc.Name]
	if len(slos) == 0 || wc.Flow == nil {
		return nil
	}
	var out []StepSLO
	for _, st := range wc.Flow.Steps {
		if slo, ok := slos[st.Name]; ok {
			out = append(out, StepSLO{Step: st.Name, SLO: slo})
		}
	}
	return out
}

// stepNames lists a flow's steps for a message: "login, me".
func stepNames(wc workload.Case) string {
	var names []string
	for _, st := range wc.Flow.Steps {
		names = append(names, st.Name)
	}
	return strings.Join(names, ", ")
}
