package examples

import (
	"strings"
	"testing"
)

// TestRealWorldExample runs examples/realworld as a user would: two
// implementations of one Conduit slice in two languages (Node.js under
// /api with its own migrate command, Go at the root over other tables and
// columns from SQL files), each with its own template, seed and reset,
// pass json parity against each other, and every window of both is
// measured — the inserting one after the stack's own reset.
func TestRealWorldExample(t *testing.T) {
	require(t, "node")
	r := runExample(t, "realworld")
	cases := 6
	if r.out.Measured != 2*cases {
		t.Errorf("measured %d windows, want %d", r.out.Measured, 2*cases)
	}
	for _, w := range r.res.Windows {
		if !w.Final {
			continue
		}
		if w.Load == nil || w.Load.Successes == 0 || w.Load.Failures() != 0 {
			t.Errorf("%s: load %+v", w.Key, w.Load)
		}
		if w.Case == "create" && w.Timings.ResetSeconds <= 0 {
			t.Errorf("%s: the stack's own reset did not run before an inserting window", w.Key)
		}
	}
	if p := r.res.Parity[0]; len(p.Stacks) != 2 || !strings.Contains(r.log.String(), "own template") {
		t.Errorf("parity of %d stacks; log:\n%s", len(p.Stacks), r.log.String())
	}
}
