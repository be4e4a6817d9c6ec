package workload

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Report is the parity gate's verdict over a set of stacks.
type Report struct {
	Workload string         `json:"workload"`
	Stacks   []StackSummary `json:"stacks"`
	Failures []Finding      `json:"failures"`
	Warnings []Finding      `json:"warnings"`
	// Relaxed are the rules passing checks broke that were relaxed for
	// their stack (StackResult.Relaxed): not failures, but said.
	Relaxed []RelaxedFinding `json:"relaxed,omitempty"`
}

// StackSummary counts one stack's checks.
type StackSummary struct {
	Stack  string `json:"stack"`
	Checks int    `json:"checks"`
	Passed int    `json:"passed"`
	NotRun int    `json:"not_run"`
	Error  string `json:"error,omitempty"`
}

// NewReport gathers each stack's failures and the cross-stack comparison
// (see Compare) into one report, with every stack's Secrets redacted.
func NewReport(workload string, results []StackResult) Report {
	rep := Report{Workload: workload, Failures: []Finding{}, Warnings: []Finding{}}
	for _, r := range results {
		rep.Stacks = append(rep.Stacks, StackSummary{Stack: r.Stack, Checks: len(r.Checks) + r.NotRun,
			Passed: r.Passed(), NotRun: r.NotRun, Error: r.Error})
		rep.Failures = append(rep.Failures, r.Failures()...)
		rep.Relaxed = append(rep.Relaxed, r.Relaxed()...)
	}
	f, w := Compare(results)
	rep.Failures = append(rep.Failures, f...)
	rep.Warnings = append(rep.Warnings, w...)
	// Another stack's token may be quoted in a comparison: every stack's
	// secrets go from every finding.
	var secrets Secrets
	for _, r := range results {
		secrets = secrets.Add(r.Secrets...)
	}
	for i := range rep.Failures {
		rep.Failures[i] = rep.Failures[i].redact(secrets)
	}
	for i := range rep.Warnings {
		rep.Warnings[i] = rep.Warnings[i].redact(secrets)
	}
	for i := range rep.Stacks {
		rep.Stacks[i].Error = secrets.Redact(rep.Stacks[i].Error)
	}
	return rep
}

// OK reports whether the gate passed: no failure (warnings allowed).
func (r Report) OK() bool { return len(r.Failures) == 0 }

// stderrLines is how many lines of a failed stack's stderr the text shows.
const stderrLines = 20

// WriteText writes one line per failure and warning, the stderr tail of
// stacks that failed as a whole, then a line per stack and a summary.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, f := range r.Failures {
		b.WriteString(f.line("FAIL"))
		if f.StderrTail != "" {
			lines := strings.Split(strings.TrimRight(f.StderrTail, "\n"), "\n")
			if len(lines) > stderrLines {
				lines = lines[len(lines)-stderrLines:]
			}
			fmt.Fprintf(&b, "     last lines of %s's stderr:\n", f.Stack)
			for _, l := range lines {
				b.WriteString("     | " + l + "\n")
			}
		}
	}
	for _, f := range r.Warnings {
		b.WriteString(f.line("WARN"))
	}
	for _, x := range r.Relaxed {
		fmt.Fprintf(&b, "RELAXED %s %s: rule %s (relaxed for this stack): %s\n", x.Stack, x.Check, x.Rule, x.Detail)
	}
	for _, s := range r.Stacks {
		b.WriteString(s.line() + "\n")
	}
	verdict := "PASS"
	if !r.OK() {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "parity %s: %s, %s, %s, %s\n", r.Workload, verdict, plural(len(r.Stacks), "stack"),
		plural(len(r.Failures), "failure"), plural(len(r.Warnings), "warning"))
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as one indented JSON document.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// line says how a stack fared, in one line.
func (s StackSummary) line() string {
	if s.Checks == 0 && s.Error != "" {
		return fmt.Sprintf("%-24s not checked: it failed before the first check", s.Stack)
	}
	l := fmt.Sprintf("%-24s %d/%d checks passed", s.Stack, s.Passed, s.Checks)
	if s.NotRun > 0 {
		l += fmt.Sprintf(", %d not run", s.NotRun)
	}
	return l
}

// line formats a finding on one line.
func (f Finding) line(tag string) string {
	if f.Check == "" {
		return fmt.Sprintf("%s %s: %s\n", tag, f.Stack, f.Problem)
	}
	return fmt.Sprintf("%s %s %s: %s | sent %s | expected %s | got %s\n",
		tag, f.Stack, f.Check, f.Problem, f.Sent, f.Expected, f.Got)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
