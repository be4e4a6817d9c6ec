package cli

import (
	"fmt"
	"slices"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// shortWindow is the window below which a slow route of the user's own
// app may not fit: quick's 1 s.
const shortWindow = 2 * time.Second

// shortWindowWarning warns, for the user's own workload measured with
// short windows, that a route whose p99 nears the window cannot be
// measured (its requests still open at the window's end fail it), and
// names the flag; "" for a built-in workload, whose routes are fast, or a
// longer window. The first window that fails so says it again, with the
// window to give it (run's judgeLoad).
func shortWindowWarning(f *plan.File, p *plan.Plan) string {
	w := p.Protocol.Window
	if w >= shortWindow || slices.Contains(workload.Names(), f.Workload.Name) {
		return ""
	}
	return fmt.Sprintf("windows of %s (profile %s): a route of %s whose p99 is a fifth of that or more leaves requests open at each window's end and the window invalid; for such a route give --window 10s (or protocol: window: 10s)",
		w, p.Protocol.Profile, f.Workload.Name)
}
