package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/analysis"
)

// RelaxedMark is what marks a step whose parity passed for one of its
// stacks only because a rule was relaxed (analysis.Step.RuleRelaxed).
const RelaxedMark = "rule relaxed"

// relaxedText is a step's relaxed rules after its mark ("rule relaxed:
// b: tfb.updates-one-write-per-row"); "" when none.
func relaxedText(s analysis.Step) string {
	if len(s.RuleRelaxed) == 0 {
		return ""
	}
	return RelaxedMark + ": " + strings.Join(s.RuleRelaxed, "; ")
}

// tfbSentence names each TechEmpower entry's labels and the rules its
// parity relaxed, for the header; "" when no stack is one.
func tfbSentence(h analysis.Header) string {
	if len(h.TFB) == 0 {
		return ""
	}
	var labels, relaxed []string
	for _, s := range h.Stacks {
		t, ok := h.TFB[s]
		if !ok {
			continue
		}
		if l := t.Labels(); l != "" {
			labels = append(labels, s+": "+l)
		}
		var seen []string
		for _, x := range t.Relaxed {
			k := x.Rule + " on " + x.Case
			if slices.Contains(seen, k) {
				continue
			}
			seen = append(seen, k)
			relaxed = append(relaxed, fmt.Sprintf("%s broke %s (%s: %s)", s, k, x.Check, x.Detail))
		}
	}
	var out []string
	if len(labels) > 0 {
		out = append(out, "TechEmpower labels (approach, ORM, classification, from each entry's benchmark_config.json): "+strings.Join(labels, "; ")+".")
	}
	if len(relaxed) > 0 {
		out = append(out, "Parity passed with a rule relaxed: "+strings.Join(relaxed, "; ")+"; the steps on those cases are marked "+RelaxedMark+".")
	}
	return strings.Join(out, " ")
}

// TFBLines are the terminal's lines for TechEmpower entries: labels and
// relaxed rules (tfbSentence); nil when no stack is one.
func TFBLines(m *Model) []string {
	if s := tfbSentence(m.Header); s != "" {
		return []string{s}
	}
	return nil
}
