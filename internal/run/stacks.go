package run

import (
	"context"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/stack"
)

// buildPhase checks out and builds the stacks.
type buildPhase struct{ r *runner }

// run runs every stack's build command; a failed build stops the run
// before anything is measured.
func (ph *buildPhase) run(ctx context.Context) error {
	r := ph.r
	if err := ph.checkout(ctx); err != nil {
		return err
	}
	return stack.BuildAll(ctx, r.opt.Plan.Stacks, logsDir(r.opt.Dir), func(s string) { r.progress.logf("%s", s) })
}

// checkout moves the stacks with git: into worktrees of their
// commits, kept under the user's cache directory (stack.WorktreeCache) and
// reused by later runs of the same commits.
func (ph *buildPhase) checkout(ctx context.Context) error {
	r := ph.r
	cache := ""
	logf := func(s string) { r.progress.logf("%s", s) }
	stacks, err := stack.CheckoutAll(ctx, r.opt.Plan.Stacks, cache, logf)
	if err != nil {
		return err
	}
	r.opt.Plan.Stacks = stacks
	if r.opt.File.Stacks, err = stack.CheckoutAll(ctx, r.opt.File.Stacks, cache, logf); err != nil {
		return err
	}
	return nil
}

// harness is what a stack of the run is given: its own database among
// the rest.
func (r siteParts) harness(stackName string) stack.Harness {
	url, _ := r.dbOf(stackName)
	return stack.Harness{Workload: r.opt.Plan.WorkloadName, JWTSecret: r.opt.Plan.JWTSecret, DatabaseURL: url,
		CPUs: r.opt.Plan.Protocol.Placement.Lanes().Server}
}

// startStack starts a fresh process of a stack on a free port.
func (l *localSite) startStack(ctx context.Context, s plan.Stack) (*proc.Process, error) {
	r := l.p
	r.seq[s.Name]++
	h := r.harness(s.Name)
	h.Host = l.listen
	// Recorded at the spawn, not after the health poll: a harness killed
	// while a daemonizing stack boots leaves it in servers.pids.
	h.Spawned = func(pid int, mark string) { r.leftovers().rememberServer(pid, mark) }
	return stack.Start(ctx, s, h, logsDir(r.opt.Dir))
}
