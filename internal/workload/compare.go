package workload

import (
	"bytes"
	"fmt"
	"mime"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// Compare holds every stack against the first one. A check that both
// passed with a success status must have the same status and media type,
// and a body that agrees as the check's compare mode says: byte for byte
// (exact, the built-in workloads; an order's id and createdAt excepted),
// structurally minus the ignored paths (json; a body that is not JSON is
// compared byte for byte), or not at all (status). A
// difference is a failure. Compare mode none compares nothing. A check that
// both answered with an error status in the allowed set but with different
// statuses (400 against 422) is a warning: a client that branches on the
// status will notice. Checks that failed on either stack are already
// failures and are not compared again. An ignore path that matched nothing
// in any stack's answer is a warning: a typo would silently weaken the gate.
func Compare(results []StackResult) (failures, warnings []Finding) {
	warnings = unmatchedIgnores(results)
	if len(results) < 2 {
		return nil, warnings
	}
	first := results[0]
	byName := map[string]CheckResult{}
	for _, c := range first.Checks {
		byName[c.Check] = c
	}
	for _, other := range results[1:] {
		for _, c := range other.Checks {
			ref, ok := byName[c.Check]
			if !ok || !ref.Passed() || !c.Passed() || ref.Status == 0 || c.Status == 0 || c.compare == CompareNone {
				continue
			}
			fail := func(format string, a ...any) {
				failures = append(failures, Finding{Stack: other.Stack, Check: c.Check,
					Problem: fmt.Sprintf(format, a...),
					Sent:    c.Sent, Expected: "the answer " + first.Stack + " gave", Got: c.Got})
			}
			switch {
			case c.Success && ref.Status != c.Status:
				fail("status %d, but stack %s answered %d", c.Status, first.Stack, ref.Status)
			case c.Success && mediaType(ref.ContentType) != mediaType(c.ContentType):
				fail("Content-Type %q, but stack %s answered %q", c.ContentType, first.Stack, ref.ContentType)
			case c.Success && c.compare == CompareJSON && gjson.ValidBytes(ref.comparable) && gjson.ValidBytes(c.comparable):
				if d := jsonDifference(ref.comparable, c.comparable); d != "" {
					fail("success body differs from stack %s's (compare: json%s): %s", first.Stack, ignoreNote(c.ignore), d)
				}
			case c.Success && c.compare != CompareStatus && !bytes.Equal(ref.comparable, c.comparable):
				fail("success body differs from stack %s's: %s", first.Stack,
					firstDifference(string(ref.comparable), string(c.comparable)))
			case !c.Success && ref.Status != c.Status:
				warnings = append(warnings, Finding{Stack: other.Stack, Check: c.Check,
					Problem: fmt.Sprintf("error status %d, but stack %s answered %d", c.Status, first.Stack, ref.Status),
					Sent:    c.Sent, Expected: c.Expected, Got: c.Got})
			}
		}
	}
	return failures, warnings
}

// unmatchedIgnores warns of each json-mode ignore path that matched nothing
// in any stack's answer to its check.
func unmatchedIgnores(results []StackResult) []Finding {
	var out []Finding
	type key struct{ check, path string }
	matched, answered := map[key]bool{}, map[key]bool{}
	var order []key
	for _, r := range results {
		for _, c := range r.Checks {
			if c.compare != CompareJSON || c.comparable == nil {
				continue
			}
			for _, p := range c.ignore {
				k := key{c.Check, p}
				if !answered[k] {
					order = append(order, k)
				}
				answered[k] = true
				matched[k] = matched[k] || slices.Contains(c.ignored, p)
			}
		}
	}
	for _, k := range order {
		if !matched[k] {
			out = append(out, Finding{Check: k.check, Stack: "all stacks",
				Problem: fmt.Sprintf("ignore path %q matched nothing in any stack's answer; check its spelling (gjson syntax, # for every element of an array)", k.path)})
		}
	}
	return out
}

// mediaType is a Content-Type without its parameters, lower case.
func mediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(contentType))
	}
	return mt
}

func ignoreNote(ignore []string) string {
	if len(ignore) == 0 {
		return ""
	}
	return ", ignoring " + strings.Join(ignore, ", ")
}
