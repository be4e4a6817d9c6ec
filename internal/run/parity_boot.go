package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/suite/boot"
	"github.com/stackbench/stackbench/internal/workload"
)

// ParityFile holds the parity gate's text report in a results directory.
const ParityFile = "parity.txt"

// parityPhase is the parity gate: the contract checks before any load.
type parityPhase struct{ r *runner }

// run runs the contract checks on every stack before any load; a
// failure stops the run (trap T13). With SkipParity the journal records that
// the gate was skipped, and every report says so first.
func (ph *parityPhase) run(ctx context.Context) error {
	r := ph.r
	if r.opt.SkipParity {
		r.event(journal.LevelWarning, "", "the parity gate was skipped (--skip-parity): the stacks were not checked to answer the same contract")
		return r.jw.Append(journal.KindParity, journal.Parity{Skipped: true})
	}
	results, err := stack.Parity(ctx, r.opt.Plan.Stacks, stack.ParityOptions{
		Workload: r.opt.File.Workload, JWTSecret: r.opt.Plan.JWTSecret, Database: r.database,
		DatabaseNames: r.runDatabase + "_parity", LogDir: logsDir(r.opt.Dir), Progress: func(s string) { r.progress.logf("%s", s) }, Scenario: r.opt.File.Scenario,
	})
	if err != nil {
		return err
	}
	rep := workload.NewReport(r.opt.File.Workload.Name, results)
	var text bytes.Buffer
	rep.WriteText(&text)
	if err := writeParityReport(r.opt.Dir, text.Bytes()); err != nil {
		r.event(journal.LevelWarning, "", "parity report: %v", err)
	}
	rec := journal.Parity{Passed: rep.OK()}
	for _, s := range results {
		ps := journal.ParityStack{Stack: s.Stack, Checks: len(s.Checks) + s.NotRun, Failed: len(s.Checks) + s.NotRun - s.Passed()}
		for _, x := range s.Relaxed() {
			ps.Relaxed = append(ps.Relaxed, journal.ParityRelaxed{Case: x.Case, Check: x.Check, Rule: x.Rule, Detail: x.Detail})
		}
		rec.Stacks = append(rec.Stacks, ps)
	}
	for _, f := range rep.Failures {
		rec.Failures = append(rec.Failures, findingText(f))
	}
	for _, w := range rep.Warnings {
		rec.Warnings = append(rec.Warnings, findingText(w))
	}
	if err := r.jw.Append(journal.KindParity, rec); err != nil {
		return err
	}
	if !rep.OK() {
		r.progress.logf("%s", text.String())
		return fmt.Errorf("%w: no load was sent; the report is in %s (run `stackbench parity -f %s` to check again)", ErrParity, filepath.Join(r.opt.Dir, ParityFile), r.opt.File.Path)
	}
	for _, w := range rec.Warnings {
		r.progress.logf("parity warning: %s", w)
	}
	for _, x := range rep.Relaxed {
		r.progress.logf("parity: %s %s passed with rule %s relaxed: %s", x.Stack, x.Check, x.Rule, x.Detail)
	}
	return nil
}

// bootPhase is the boot suite: cold starts, before the rounds.
type bootPhase struct{ r *runner }

// run measures cold starts (boot time, first database request, idle
// RSS) and journals one record per stack.
func (ph *bootPhase) run(ctx context.Context) error {
	r := ph.r
	n := r.opt.Plan.Protocol.BootStarts
	if n == 0 {
		return nil
	}
	first, ok := boot.FirstRequestCase(r.opt.File.Workload)
	if !ok {
		return nil
	}
	t0 := time.Now()
	r.progress.logf("boot: %d cold starts per stack", n)
	stacks, err := ph.bootStacks(first)
	if err != nil {
		return err
	}
	if len(stacks) == 0 {
		return nil
	}
	res, err := boot.Run(ctx, stacks, boot.Options{Starts: n, Request: first, BootTimeout: stack.LongestBootTimeout(r.opt.Plan.Stacks)})
	var failed *boot.StartError
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &failed):
		// The stack that did not start says why in its record; the others
		// keep no partial suite: the report shows no cold starts for them.
		r.event(journal.LevelWarning, "", "the boot suite failed, so the report will have no cold starts: %v", err)
		return r.jw.Append(journal.KindBoot, journal.Boot{Stack: failed.Stack, Starts: []journal.BootStart{}, Error: err.Error()})
	case err != nil:
		r.event(journal.LevelWarning, "", "the boot suite failed, so the report will have no cold starts: %v", err)
		return nil
	}
	for _, s := range r.opt.Plan.Stacks {
		rec := journal.Boot{Stack: s.Name, Starts: []journal.BootStart{}, Error: stack.BootWire(s, first)}
		for _, st := range res.Starts {
			if st.Stack != s.Name {
				continue
			}
			rec.Starts = append(rec.Starts, journal.BootStart{
				Order: st.Seq + 1, ReadySeconds: st.Boot.Seconds(), FirstDBRequestSeconds: st.FirstRequest.Seconds(),
				FirstOK: st.FirstOK, FirstError: st.FirstError, IdleRSSBytes: st.IdleRSSBytes,
			})
		}
		if err := r.jw.Append(journal.KindBoot, rec); err != nil {
			return err
		}
	}
	for _, s := range res.Stacks {
		r.progress.logf("boot %s: %.1f ms to first 200, first %s %s, idle RSS %.1f MiB (medians of %d)",
			s.Stack, s.Boot.Median.Milliseconds(), res.Case, firstRequestText(s), s.IdleRSS.Median.MiB(), s.Starts)
	}
	r.progress.logf("boot: done in %.1fs", time.Since(t0).Seconds())
	r.bootDone = true
	return nil
}

// firstRequestText is the median first request of a stack's cold starts,
// over the ones that got an expected answer, and how many did not.
func firstRequestText(s boot.Summary) string {
	if s.FirstRequest.N == 0 {
		return fmt.Sprintf("failed in all %d starts (%s)", s.Starts, s.FirstError)
	}
	text := fmt.Sprintf("%.1f ms", s.FirstRequest.Median.Milliseconds())
	if s.FirstFailed > 0 {
		text += fmt.Sprintf(" (failed in %d of %d starts: %s)", s.FirstFailed, s.Starts, s.FirstError)
	}
	return text
}

// findingText is one parity finding on one line.
func findingText(f workload.Finding) string {
	s := f.Stack
	if f.Check != "" {
		s += " " + f.Check
	}
	return s + ": " + f.Problem
}

// bootStacks is stack.BootStacks with each stack's own database, the
// workload's setup steps run on each stack's unmeasured start; a gRPC
// stack's first call is first's with its message's templates expanded
// (the first variant; a cold start has run no setup, so it captures
// nothing).
func (ph *bootPhase) bootStacks(first workload.Case) ([]boot.Stack, error) {
	r := ph.r
	var out []boot.Stack
	var call *workload.GRPCCall
	if first.GRPCTemplated && r.opt.File.Scenario != nil {
		calls, err := r.opt.File.Scenario.CallVariants(first, nil)
		if err != nil {
			return nil, fmt.Errorf("boot suite: %w", err)
		}
		call = &calls[0]
	}
	for _, s := range r.opt.Plan.Stacks {
		if msg := stack.BootWire(s, first); msg != "" {
			r.event(journal.LevelWarning, s.Name, "boot suite: %s", msg)
			continue
		}
		bs, err := stack.BootStacks([]plan.Stack{s}, r.siteParts().harness(s.Name), logsDir(r.opt.Dir), first, call)
		if err != nil {
			return nil, err
		}
		if own, ok := r.opt.File.CaseOf(s.Name, first.Name); ok && own.Path != first.Path {
			for i := range bs {
				bs[i].Path = own.Path // the stack's own URL (paths:)
			}
		}
		if sc := r.opt.File.Scenario; sc != nil && len(sc.Steps) > 0 {
			// The setup steps run on the stack's unmeasured start, on
			// its own copy, which its windows use too: its first process
			// of the rounds keeps the stack-scoped captures.
			st := s
			for i := range bs {
				bs[i].Setup = func(ctx context.Context, port int) error {
					return r.pools.setup(ctx, &server{stack: st}, "127.0.0.1", port)
				}
			}
		}
		out = append(out, bs...)
	}
	return out, nil
}

// writeParityReport writes ParityFile in the results directory dir; a
// link in its place is refused, not followed.
func writeParityReport(dir string, text []byte) error {
	return fileutil.WriteIn(dir, ParityFile, text, privateFileMode)
}
