package workload

import (
	"bytes"
	"fmt"
)

// Compare holds every stack against the first one. A check that both
// passed with a success status must have the same body byte for byte (an
// order's id and createdAt excepted): a difference is a failure. A check
// that both answered with an error status in the allowed set but with
// different statuses (400 against 422) is a warning: a client that branches
// on the status will notice. Checks that failed on either stack are already
// failures and are not compared again.
func Compare(results []StackResult) (failures, warnings []Finding) {
	if len(results) < 2 {
		return nil, nil
	}
	first := results[0]
	byName := map[string]CheckResult{}
	for _, c := range first.Checks {
		byName[c.Check] = c
	}
	for _, other := range results[1:] {
		for _, c := range other.Checks {
			ref, ok := byName[c.Check]
			if !ok || !ref.Passed() || !c.Passed() || ref.Status == 0 || c.Status == 0 {
				continue
			}
			switch {
			case c.Success && !bytes.Equal(ref.comparable, c.comparable):
				failures = append(failures, Finding{Stack: other.Stack, Check: c.Check,
					Problem: fmt.Sprintf("success body differs from stack %s's: %s", first.Stack,
						firstDifference(string(ref.comparable), string(c.comparable))),
					Sent: c.Sent, Expected: "the body " + first.Stack + " answered", Got: c.Got})
			case !c.Success && ref.Status != c.Status:
				warnings = append(warnings, Finding{Stack: other.Stack, Check: c.Check,
					Problem: fmt.Sprintf("error status %d, but stack %s answered %d", c.Status, first.Stack, ref.Status),
					Sent:    c.Sent, Expected: c.Expected, Got: c.Got})
			}
		}
	}
	return failures, warnings
}
