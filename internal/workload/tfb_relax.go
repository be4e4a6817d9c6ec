package workload

import (
	"fmt"
	"slices"
	"strings"
)

// TFBRules are the names of the tfb workload's parity rules (docs/
// workloads.md, "What tfb's parity checks"): what a finding names, and
// what a stack's tfb: relax: may list.
var TFBRules = []string{
	"tfb.header-server", "tfb.header-date", "tfb.header-content-type", "tfb.header-length",
	"tfb.json-object", "tfb.plaintext-body",
	"tfb.world-object", "tfb.world-range", "tfb.world-array", "tfb.queries-count", "tfb.world-matches-database",
	"tfb.statements", "tfb.queries-one-read-per-row", "tfb.updates-one-read-per-row",
	TFBRuleOneWritePerRow, "tfb.updates-written", "tfb.updates-persisted",
	"tfb.fortunes-document", "tfb.fortunes-utf8", "tfb.fortunes-escaped", "tfb.fortunes-rows",
	"tfb.fortunes-added", "tfb.fortunes-sorted",
}

// TFBRuleOneWritePerRow is the rule that an updates request writes each
// row with an UPDATE of its own. TFB allowed batched writes, so it is
// relaxed for every stack (TFBRelaxedByDefault): a stack that batches
// passes, and the report says the rule was relaxed for it.
const TFBRuleOneWritePerRow = "tfb.updates-one-write-per-row"

// TFBRelaxedByDefault are the rules every tfb stack has relaxed, as TFB
// itself did not hold entries to them.
var TFBRelaxedByDefault = []string{TFBRuleOneWritePerRow}

// Relaxed is a rule an answer broke that was relaxed for its stack: the
// check passed, and the report says which rule let it.
type Relaxed struct {
	Rule   string `json:"rule"`
	Detail string `json:"detail"`
}

// RelaxedFinding is a relaxed rule with the check and case that showed it.
type RelaxedFinding struct {
	Stack string `json:"stack"`
	Case  string `json:"case"`
	Check string `json:"check"`
	Relaxed
}

// CheckTFBRelax says what is wrong with a stack's relax: list.
func CheckTFBRelax(rules []string) error {
	for _, r := range rules {
		if !slices.Contains(TFBRules, r) {
			return fmt.Errorf("relax: %q is not a tfb rule; write some of %s", r, strings.Join(TFBRules, ", "))
		}
	}
	return nil
}

// splitRelaxed moves the violations of relaxed rules (the defaults and
// the stack's own) out of vs into the check's Relaxed list.
func (r *runner) splitRelaxed(vs []violation, cr *CheckResult) []violation {
	var kept []violation
	for _, v := range vs {
		if slices.Contains(TFBRelaxedByDefault, v.rule) || slices.Contains(r.opt.TFBRelax, v.rule) {
			cr.Relaxed = append(cr.Relaxed, Relaxed{Rule: v.rule, Detail: v.detail})
			continue
		}
		kept = append(kept, v)
	}
	return kept
}

// Relaxed lists the rules the stack's passing checks broke but had
// relaxed, in check order. A failed check's relaxed rules are not listed:
// it failed anyway.
func (s StackResult) Relaxed() []RelaxedFinding {
	var out []RelaxedFinding
	for _, c := range s.Checks {
		if !c.Passed() {
			continue
		}
		for _, x := range c.Relaxed {
			out = append(out, RelaxedFinding{Stack: s.Stack, Case: c.Case, Check: c.Check, Relaxed: x})
		}
	}
	return out
}
