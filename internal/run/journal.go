package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// CheckNewDir checks that dir can take a new run: it must not hold a
// run's journal already.
func CheckNewDir(dir string) error {
	_, err := os.Stat(filepath.Join(dir, journal.FileName))
	switch {
	case err == nil:
		return fmt.Errorf("%s already holds a run; continue it with: stackbench run --resume %s, or choose another --out", dir, dir)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return nil
}

// openJournal creates the journal of a new run, or reads the journal of the
// run to resume: it checks that the plan is the same and collects the
// windows already measured.
func (r *runner) openJournal() error {
	path := filepath.Join(r.opt.Dir, journal.FileName)
	r.done = map[string]bool{}
	r.attempts = map[string]int{}
	if r.opt.Resume {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("nothing to resume: %s has no %s; start a new run without --resume", r.opt.Dir, journal.FileName)
		}
	} else if err := CheckNewDir(r.opt.Dir); err != nil {
		return err
	}
	// The torn tail is cut before the journal is read: a last record
	// whole but without its newline would be counted as measured, then
	// cut, and its window never measured again.
	w, torn, err := journal.Create(path)
	if err != nil {
		return err
	}
	r.jw = w
	if r.opt.Resume {
		if err := r.readPrevious(); err != nil {
			w.Close()
			r.jw = nil
			return err
		}
	}
	if torn > 0 {
		r.event(journal.LevelWarning, "", "the journal ended in a torn line (%d bytes, the run was stopped while writing it); it was removed and that window will be measured again", torn)
	}
	if r.opt.Resume {
		r.event(journal.LevelInfo, "", "resumed: %d of %d windows already measured", len(r.done), len(r.opt.Plan.Windows))
		leftoversOf(r).stop()
		removeLeftPools(r.opt.Dir, r.event)
		return nil
	}
	r.runDatabase = newRunDatabase()
	var cases []journal.Case
	for _, c := range r.opt.Plan.Cases {
		jc := journal.Case{Name: c.Name, Method: c.Method, Path: c.Path, Database: c.Database, Inserts: c.Inserts, CallRoutes: c.CallRoutes}
		if sc := r.opt.File.Scenario; sc != nil && c.Templated {
			jc.Variants, _, _ = sc.Planned(c)
		}
		cases = append(cases, jc)
	}
	return r.jw.Append(journal.KindPlan, journal.Plan{
		Cases:       cases,
		RunID:       filepath.Base(r.opt.Dir),
		CreatedAt:   time.Now().UTC(),
		ToolVersion: r.opt.ToolVersion,
		SkipParity:  r.opt.SkipParity,
		Args:        r.opt.Args,
		Plan:        redactStackEnv(*r.opt.Plan),
		Database:    databaseKind(r.opt.Plan.Database),
		RunDatabase: r.runDatabase,
	})
}

// readPrevious loads what a stopped run journaled.
func (r *runner) readPrevious() error {
	res, err := journal.ReadDir(r.opt.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("nothing to resume: %s has no %s; start a new run without --resume", r.opt.Dir, journal.FileName)
	case err != nil:
		return fmt.Errorf("read %s: %w", r.opt.Dir, err)
	}
	for _, p := range res.JournalProblems {
		r.progress.logf("journal %s", p)
	}
	if was := res.RunPlan(); r.opt.Plan.Fingerprint != was.Fingerprint {
		return fmt.Errorf("the plan changed since this run started (fingerprint %s, journal has %s): a resume must use the same file, profile and flags; start a new run with --out instead%s",
			short(r.opt.Plan.Fingerprint), short(was.Fingerprint), placementChanged(r.opt.Plan.Protocol.Placement, was.Protocol.Placement)+orderChanged(r.opt.Plan.Protocol.Order, was.Protocol.Order)+spendingChanged(r.opt.Plan.Protocol.Spending, was.Protocol.Spending))
	}
	r.opt.SkipParity = res.Plan.SkipParity
	r.runDatabase = res.Plan.RunDatabase
	if r.runDatabase == "" {
		r.runDatabase = runDatabase // a journal written before the name was the run's own
	}
	r.envCount = len(res.Environments)
	// An adaptive run's extra rounds are part of its plan from the moment
	// they were journaled; the rule goes on from where it stopped.
	for _, rd := range res.Rounds {
		r.extend(rd.Windows)
	}
	_, r.adaptiveStopped = res.Stopped()
	(&latencyPhase{r: r}).readJournal(res)
	r.capacityLeft = len(capacityLeft(r.opt.Plan, res))
	r.profilingLeft = len(profilingLeft(r.opt.Plan, res))
	for _, w := range res.Windows {
		r.attempts[w.Key] = max(r.attempts[w.Key], w.Attempt)
		r.seq[w.Stack] = max(r.seq[w.Stack], w.Process.Seq)
		if w.Final {
			r.done[w.Key] = true
		}
	}
	// The suite journals one record per stack; a run killed between them
	// runs the whole suite again (reports keep each stack's last record).
	booted := map[string]bool{}
	for _, b := range res.Boot {
		booted[b.Stack] = b.Error == "" // a failed suite runs again
	}
	r.bootDone = len(booted) > 0
	for _, s := range r.opt.Plan.Stacks {
		r.bootDone = r.bootDone && booted[s.Name]
	}
	return nil
}

// orderChanged says why a journal laid out in another order cannot be
// resumed here, or "".
// spendingChanged names a change of how α is spent over an adaptive
// run's looks (plan.Protocol.Spending) between the stackbench that
// started the run and this one; "" when there is none.
func spendingChanged(now, then string) string {
	if now == then {
		return ""
	}
	return "; the run's looks each took an equal share of α and this stackbench keeps most of α for the last look (docs/statistics.md, \"Looking seldom\"): finish it with the stackbench that started it (its report reads either way), or start a new run"
}

func orderChanged(now, then string) string {
	if now == then {
		return ""
	}
	name := func(o string) string {
		if o == plan.OrderRotation {
			return "the rotated order of an earlier stackbench"
		}
		return "the " + o + " order"
	}
	return fmt.Sprintf("; the run's rounds were laid out in %s and this stackbench lays them out in %s: finish it with the stackbench that started it (its report reads either way), or start a new run", name(then), name(now))
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func databaseKind(db string) string {
	if db == "" || db == "embedded" {
		return "embedded"
	}
	return "external"
}
