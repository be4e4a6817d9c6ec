package run

import (
	"context"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
)

// TEMPORARY: replaced when host's gate, environment capture, the parity
// engine and the boot suite land.
type gate struct{}

func (r *runner) gateWait(ctx context.Context, cur *server, rec *journal.Window) error { return nil }
func (r *runner) gateJudge(rec *journal.Window)                                        {}
func (r *runner) parityGate(ctx context.Context) error                                 { return nil }
func (r *runner) bootSuite(ctx context.Context) error                                  { return nil }
func (r *runner) recordEnvironment(ctx context.Context) error {
	r.envCount++
	return r.jw.Append(journal.KindEnvironment, journal.Environment{CapturedAt: time.Now().UTC(), StackVersions: r.stackVersions(ctx)})
}
func (r *runner) finish() error {
	r.completed = true
	return writeResults(r.opt.Dir)
}
