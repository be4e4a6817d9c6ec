package analysis

import (
	"fmt"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
)

// TFBStack is what the report says beside a stack that is a TechEmpower
// entry: the labels its benchmark_config.json gave it (through the
// stack's tfb: key) and the parity rules that were relaxed for it and
// that it broke.
type TFBStack struct {
	Approach       string `json:"approach,omitempty"`
	ORM            string `json:"orm,omitempty"`
	Classification string `json:"classification,omitempty"`
	// Relaxed are the relaxed rules its passing parity checks broke.
	Relaxed []RelaxedRule `json:"relaxed,omitempty"`
}

// RelaxedRule is one parity rule a stack broke where it was relaxed.
type RelaxedRule struct {
	Case   string `json:"case"`
	Check  string `json:"check"`
	Rule   string `json:"rule"`
	Detail string `json:"detail,omitempty"`
}

// Labels is the stack's TFB labels in a few words ("Realistic, Raw ORM,
// Micro"); "" without any.
func (t TFBStack) Labels() string {
	var parts []string
	if t.Approach != "" {
		parts = append(parts, t.Approach)
	}
	if t.ORM != "" {
		parts = append(parts, t.ORM+" ORM")
	}
	if t.Classification != "" {
		parts = append(parts, t.Classification)
	}
	return strings.Join(parts, ", ")
}

// tfbStacks gathers each stack's labels from the plan and its relaxed
// rules from the parity records; nil when no stack has either.
func tfbStacks(res *journal.Results) map[string]TFBStack {
	out := map[string]TFBStack{}
	for _, s := range res.Plan.Plan.Stacks {
		if t := s.TFB; t != nil && (t.Approach != "" || t.ORM != "" || t.Classification != "") {
			out[s.Name] = TFBStack{Approach: t.Approach, ORM: t.ORM, Classification: t.Classification}
		}
	}
	for _, par := range res.Parity {
		for _, ps := range par.Stacks {
			if len(ps.Relaxed) == 0 {
				continue
			}
			t := out[ps.Stack]
			t.Relaxed = nil // the last gate's (a resumed run may repeat it)
			for _, x := range ps.Relaxed {
				t.Relaxed = append(t.Relaxed, RelaxedRule{Case: x.Case, Check: x.Check, Rule: x.Rule, Detail: x.Detail})
			}
			out[ps.Stack] = t
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// markRelaxed lists, on each step, the rules relaxed on its case for
// either of its stacks: the step compares a stack that passed parity
// only because a rule was relaxed.
func markRelaxed(steps []Step, tfb map[string]TFBStack) {
	for i := range steps {
		s := &steps[i]
		s.RuleRelaxed = nil
		for _, stack := range []string{s.From, s.To} {
			seen := map[string]bool{}
			for _, x := range tfb[stack].Relaxed {
				if x.Case != s.Case || seen[x.Rule] {
					continue
				}
				seen[x.Rule] = true
				s.RuleRelaxed = append(s.RuleRelaxed, fmt.Sprintf("%s: %s", stack, x.Rule))
			}
		}
	}
}
