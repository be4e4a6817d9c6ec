package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
)

// openJournal creates the journal of a new run, or reads the journal of the
// run to resume: it checks that the plan is the same and collects the
// windows already measured.
func (r *runner) openJournal() error {
	path := filepath.Join(r.opt.Dir, journal.FileName)
	r.done = map[string]bool{}
	r.attempts = map[string]int{}
	_, statErr := os.Stat(path)
	exists := statErr == nil
	switch {
	case r.opt.Resume && !exists:
		return fmt.Errorf("nothing to resume: %s has no %s; start a new run without --resume", r.opt.Dir, journal.FileName)
	case !r.opt.Resume && exists:
		return fmt.Errorf("%s already holds a run; resume it with --resume %s, or choose another --out", r.opt.Dir, r.opt.Dir)
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		return statErr
	}
	if r.opt.Resume {
		if err := r.readPrevious(path); err != nil {
			return err
		}
	}
	w, torn, err := journal.Create(path)
	if err != nil {
		return err
	}
	r.jw = w
	if torn > 0 {
		r.event("warning", "", "the journal ended in a torn line (%d bytes, the run was stopped while writing it); it was removed and that window will be measured again", torn)
	}
	if r.opt.Resume {
		r.event("info", "", "resumed: %d of %d windows already measured", len(r.done), len(r.opt.Plan.Windows))
		r.stopLeftovers()
		return nil
	}
	var cases []journal.Case
	for _, c := range r.opt.Plan.Cases {
		cases = append(cases, journal.Case{Name: c.Name, Method: c.Method, Path: c.Path, Database: c.Database, Inserts: c.Inserts})
	}
	return r.jw.Append(journal.KindPlan, journal.Plan{
		Cases:       cases,
		RunID:       filepath.Base(r.opt.Dir),
		CreatedAt:   time.Now().UTC(),
		ToolVersion: r.opt.ToolVersion,
		SkipParity:  r.opt.SkipParity,
		Args:        r.opt.Args,
		Plan:        *r.opt.Plan,
		Database:    databaseKind(r.opt.Plan.Database),
	})
}

// readPrevious loads what a stopped run journaled.
func (r *runner) readPrevious(path string) error {
	lines, problems, err := journal.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	for _, p := range problems {
		r.progress.logf("journal %s", p)
	}
	var planned *journal.Plan
	booted := map[string]bool{}
	for _, l := range lines {
		switch l.Kind {
		case journal.KindPlan:
			var p journal.Plan
			if err := l.Decode(&p); err != nil {
				return err
			}
			planned = &p
		case journal.KindEnvironment:
			r.envCount++
		case journal.KindBoot:
			var b journal.Boot
			if err := l.Decode(&b); err != nil {
				return err
			}
			booted[b.Stack] = true
		case journal.KindWindow:
			var w journal.Window
			if err := l.Decode(&w); err != nil {
				return err
			}
			r.attempts[w.Key] = max(r.attempts[w.Key], w.Attempt)
			r.seq[w.Stack] = max(r.seq[w.Stack], w.Process.Seq)
			if w.Final {
				r.done[w.Key] = true
			}
		}
	}
	if planned == nil {
		return fmt.Errorf("%s has no plan record; it is not a stackbench journal, or its first line was lost: start a new run", path)
	}
	if got, want := r.opt.Plan.Fingerprint, planned.Plan.Fingerprint; got != want {
		return fmt.Errorf("the plan changed since this run started (fingerprint %s, journal has %s): a resume must use the same file, profile and flags; start a new run with --out instead", short(got), short(want))
	}
	r.opt.SkipParity = planned.SkipParity
	// The suite journals one record per stack; a run killed between them
	// runs the whole suite again (reports keep each stack's last record).
	r.bootDone = len(booted) > 0
	for _, s := range r.opt.Plan.Stacks {
		r.bootDone = r.bootDone && booted[s.Name]
	}
	return nil
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
