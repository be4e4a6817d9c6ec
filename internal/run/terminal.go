package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/platform/local"
	"github.com/stackbench/stackbench/internal/stats"
)

// LogFile names, in a results directory, the run's full log lines when
// the terminal shows the live status instead of them.
const LogFile = "run.log"

// openRunLog opens DIR/run.log for appending (a resume adds to it),
// refusing a link left in its place.
func openRunLog(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE|local.NoFollow, privateFileMode)
	if err != nil {
		return nil, fmt.Errorf("open the run's log: %w", err)
	}
	return f, nil
}

// showCalls, at a round's end, reads the journal as the report does and
// shows on the terminal's status the steps called so far by call (the
// run's headline metric, each stack against the next) and the open ones
// by name. Only a terminal shows them: elsewhere nothing is read.
func (r *runner) showCalls() {
	if r.progress.log == nil {
		return
	}
	res, err := journal.ReadDir(r.opt.Dir)
	if err != nil {
		return
	}
	m, err := analysis.FromResults(res, analysis.Options{})
	if err != nil {
		return
	}
	calls, open := stepCalls(m)
	r.progress.stepCalls(calls, open)
}

// stepCalls counts the adjacent steps by their headline call ("2 gain,
// 1 undecided") and names those still open ("a → b order c=32").
func stepCalls(m *analysis.Result) (string, []string) {
	headline := m.Header.Headline()
	counts := map[stats.Call]int{}
	var open []string
	for _, s := range m.Steps {
		if s.Kind != analysis.StepAdjacent {
			continue
		}
		c := s.Metric(headline)
		if c == nil {
			continue
		}
		counts[c.Call]++
		if m.ThroughputOpen(s) || m.LatencyOpen(s) {
			open = append(open, fmt.Sprintf("%s → %s %s c=%d", s.From, s.To, s.Case, s.Concurrency))
		}
	}
	var parts []string
	for _, c := range stats.Calls {
		if n := counts[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, c))
		}
	}
	return strings.Join(parts, ", "), open
}
