package workload

import (
	"fmt"

	"github.com/stackbench/stackbench/internal/load"
)

// runFlow executes flow case c once, as one user of the load would (the
// same templates and captures: load.FlowUser), a check per step named
// "flow/step": each answer must be one the step expects, and agree with
// the first stack's as the step's compare mode says (Compare). The steps
// after one that fails are not sent: each is a check that failed, saying
// which step stopped the flow.
func (r *runner) runFlow(c Case) []CheckResult {
	user, err := load.NewFlowUser(c.Flow, 0)
	if err != nil {
		return []CheckResult{{Check: c.Name, Case: c.Name, Got: "not run", Problem: "the flow does not compile: " + err.Error()}}
	}
	var out []CheckResult
	stopped := ""
	for i, st := range c.Flow.Steps {
		name := c.Name + "/" + st.Name
		if stopped != "" {
			out = append(out, CheckResult{Check: name, Case: c.Name, Got: "not sent", Problem: "not sent: the flow stopped at step " + stopped})
			continue
		}
		req := user.Request(i)
		check := Check{Name: name, Case: c.Name, Method: req.Method, Path: req.Path, Body: []byte(req.Body),
			Expect: Expect{Status: stepStatuses(st)}}
		if len(req.Body) == 0 {
			check.Body = nil
		}
		for _, k := range sortedKeys(req.Headers) {
			check.Header = append(check.Header, Header{Name: k, Value: req.Headers[k]})
		}
		if i < len(c.FlowParity) {
			check.Expect.Compare, check.Expect.Ignore = c.FlowParity[i].Compare, c.FlowParity[i].Ignore
		}
		cr := r.run(check)
		if cr.Passed() && !user.Capture(i, cr.header, cr.Body) {
			cr.Problem = fmt.Sprintf("a capture of step %s found nothing in the answer (capture: %v)", st.Name, st.Capture)
		}
		if !cr.Passed() {
			stopped = st.Name
		}
		out = append(out, cr)
	}
	return out
}

// stepStatuses are a step's success statuses (any 2xx when it gives none).
func stepStatuses(st load.FlowStep) []int {
	if len(st.Expect) > 0 {
		return st.Expect
	}
	out := make([]int, 0, 100)
	for s := 200; s < 300; s++ {
		out = append(out, s)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
