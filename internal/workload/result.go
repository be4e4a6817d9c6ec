package workload

import (
	"fmt"
	"net/http"
)

// CheckResult is the outcome of one check against one stack.
type CheckResult struct {
	Check    string `json:"check"`
	Case     string `json:"case"`
	Sent     string `json:"sent"`
	Expected string `json:"expected"`
	// Status is the status the stack answered; 0 when it did not answer.
	Status      int    `json:"status"`
	ContentType string `json:"content_type,omitempty"`
	// Got describes the answer in one line: status and body, cut.
	Got string `json:"got"`
	// Problem says what is wrong; empty when the check passed.
	Problem string `json:"problem,omitempty"`
	// Success is true when the check expects a 2xx answer.
	Success bool `json:"success"`
	// Relaxed are the rules the answer broke that were relaxed for the
	// stack (a tfb check: TFBRelaxedByDefault and RunOptions.TFBRelax);
	// they do not fail the check, and the report names them.
	Relaxed []Relaxed `json:"relaxed,omitempty"`
	// Body is the body as received (cut at maxBodyBytes); comparable is the
	// body as it must match across stacks (an order's id and createdAt
	// blanked).
	Body       []byte `json:"-"`
	comparable []byte
	// compare and ignore are the check's compare mode and ignore paths;
	// ignored lists the ignore paths that matched something in Body.
	compare string
	ignore  []string
	ignored []string
	// redirect describes a redirect answer, which is not followed.
	redirect string
	// header is the answer's headers (a flow's step captures from them).
	header http.Header
	// wire holds the answer's headers and framing, for the tfb rules.
	wire wireFacts
}

// Passed reports whether the check passed.
func (r CheckResult) Passed() bool { return r.Problem == "" }

// describeAnswer describes an HTTP answer in one line, the body cut to
// maxBytes.
func describeAnswer(status int, body []byte, maxBytes int) string {
	if status == 0 {
		return "no answer"
	}
	if len(body) == 0 {
		return fmt.Sprintf("%d (empty body)", status)
	}
	return fmt.Sprintf("%d %s", status, truncate(string(body), maxBytes))
}

// StackResult is the outcome of the checks against one stack.
type StackResult struct {
	Stack    string        `json:"stack"`
	Workload string        `json:"workload"`
	Checks   []CheckResult `json:"checks"`
	// NotRun counts the checks skipped because the stack stopped answering
	// or the run was cancelled.
	NotRun int `json:"not_run,omitempty"`
	// Error is a failure of the stack as a whole: it did not build, did not
	// start, stopped answering or crashed.
	Error string `json:"error,omitempty"`
	// StderrTail is the end of the stack's stderr, set by the caller when
	// Error is.
	StderrTail string `json:"stderr_tail,omitempty"`
	// Secrets are the values the stack was sent that came from ${env:…}
	// or its setup captures: NewReport redacts them in every finding.
	Secrets Secrets `json:"-"`
}

// StackFailure is the result of a stack that could not be checked at all,
// for example one that did not start; stderrTail is the end of its stderr.
func StackFailure(stack, workload string, err error, stderrTail string) StackResult {
	return StackResult{Stack: stack, Workload: workload, Error: err.Error(), StderrTail: stderrTail}
}

// Passed counts the checks that passed.
func (r StackResult) Passed() int {
	n := 0
	for _, c := range r.Checks {
		if c.Passed() {
			n++
		}
	}
	return n
}

// OK reports whether every check ran and passed.
func (r StackResult) OK() bool {
	return r.Error == "" && r.NotRun == 0 && r.Passed() == len(r.Checks)
}

// Finding is one failure or warning of the gate, in the words shown to the
// user.
type Finding struct {
	Stack string `json:"stack"`
	// Check is empty for a failure of the stack as a whole.
	Check    string `json:"check,omitempty"`
	Problem  string `json:"problem"`
	Sent     string `json:"sent,omitempty"`
	Expected string `json:"expected,omitempty"`
	Got      string `json:"got,omitempty"`
	// StderrTail is the end of the stack's stderr, for stack failures.
	StderrTail string `json:"stderr_tail,omitempty"`
}

// findingBodyBytes is how much of a body a finding quotes.
const findingBodyBytes = 120

// Failures lists the stack's failed checks, and the stack's own failure.
func (r StackResult) Failures() []Finding {
	var fs []Finding
	for _, c := range r.Checks {
		if !c.Passed() {
			fs = append(fs, Finding{Stack: r.Stack, Check: c.Check, Problem: c.Problem,
				Sent: c.Sent, Expected: c.Expected, Got: c.Got})
		}
	}
	if r.Error != "" {
		p := r.Error
		if r.NotRun > 0 {
			p += fmt.Sprintf(" (%d checks not run)", r.NotRun)
		}
		fs = append(fs, Finding{Stack: r.Stack, Problem: p, StderrTail: r.StderrTail})
	} else if r.NotRun > 0 {
		fs = append(fs, Finding{Stack: r.Stack, Problem: fmt.Sprintf("%d checks not run", r.NotRun)})
	}
	return fs
}
