package dx

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/stack"
)

// accumulator gathers one target's samples over the rounds.
type accumulator struct {
	cold, warm map[string][]time.Duration // step → samples
	reload     []time.Duration
	err        string
}

// steps are the timed commands of a target, in the order they run.
func (t Target) steps() []struct{ name, command string } {
	return []struct{ name, command string }{{"install", t.Install}, {"generate", t.Generate}, {"build", t.Build}}
}

// round runs one round of a target: a cold pass when it names cold
// directories, a warm pass, and a reload when asked. A failure is recorded
// in a.err and ends the target's rounds.
func (a *accumulator) round(ctx context.Context, t Target, r int, opt Options) {
	if a.cold == nil {
		a.cold, a.warm = map[string][]time.Duration{}, map[string][]time.Duration{}
	}
	if len(t.Cold) > 0 {
		if err := a.pass(ctx, t, opt, a.cold, "cold"); err != nil {
			a.err = err.Error()
			return
		}
	} else if r == 0 {
		// Nothing to empty: one unmeasured pass fills the caches, so that
		// the first warm figure is warm too.
		if err := a.pass(ctx, t, opt, nil, "first"); err != nil {
			a.err = err.Error()
			return
		}
	}
	if err := a.pass(ctx, t, opt, a.warm, "warm"); err != nil {
		a.err = err.Error()
		return
	}
	if t.Reload != nil {
		d, err := MeasureReload(ctx, t, opt.logPath(t, "reload"))
		if err != nil {
			if ctx.Err() == nil {
				a.err = fmt.Sprintf("reload: %v", err)
			}
			return
		}
		a.reload = append(a.reload, d)
		opt.progress("%s: reload %d/%d: %s", t.label(), r+1, t.Rounds, d.Round(time.Microsecond))
	}
}

// pass runs the steps once; into receives the durations (nil: unmeasured).
// A cold pass first removes the cold directories.
func (a *accumulator) pass(ctx context.Context, t Target, opt Options, into map[string][]time.Duration, kind string) error {
	if kind == "cold" {
		for _, dir := range t.Cold {
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("empty %s for a cold pass: %w", dir, err)
			}
		}
	}
	for _, s := range t.steps() {
		if s.command == "" {
			continue
		}
		d, err := timeShell(ctx, t, s.command, opt.logPath(t, s.name))
		if err != nil {
			return fmt.Errorf("%s (%s pass): %w", s.name, kind, err)
		}
		if into != nil {
			into[s.name] = append(into[s.name], d)
			opt.progress("%s: %s %s: %s", t.label(), kind, s.name, d.Round(time.Millisecond))
		}
	}
	return nil
}

// timeShell runs a command through a shell and times it, spawn to exit.
func timeShell(ctx context.Context, t Target, command, logPath string) (time.Duration, error) {
	os.Remove(logPath) // a fresh log, so that a failure quotes its own output
	start := time.Now()
	err := stack.Shell(ctx, t.Dir, command, logPath, t.Env)
	d := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return d, ctx.Err()
		}
		return d, fmt.Errorf("%s in %s: %v\n%s", command, t.Dir, err, fileutil.Tail(logPath, 0))
	}
	return d, nil
}

// result summarises the samples.
func (a *accumulator) result(t Target) TargetResult {
	tr := TargetResult{Name: t.Name, Size: t.Size, Error: a.err}
	timing := func(step string) *Timing {
		if len(a.warm[step]) == 0 {
			return nil
		}
		tm := &Timing{Warm: summarize(a.warm[step])}
		if len(a.cold[step]) > 0 {
			tm.Cold = summarize(a.cold[step])
		}
		return tm
	}
	tr.Install, tr.Generate, tr.Build = timing("install"), timing("generate"), timing("build")
	if len(a.reload) > 0 {
		tr.Reload = summarize(a.reload)
	}
	return tr
}
