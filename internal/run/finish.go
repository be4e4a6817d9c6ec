package run

import (
	"context"
	"fmt"

	"github.com/stackbench/stackbench/internal/journal"
)

// finishPhase writes the results once every phase is done.
type finishPhase struct{ r *runner }

// run writes results.json from the journal; the reports are rendered by
// the caller (report.Build), a pure function of the same journal.
func (ph *finishPhase) run() error {
	r := ph.r
	r.completed = true
	return writeResults(r.opt.Dir)
}

// suitesThenFinish ends a run whose windows are done: the dx phase, the
// process phase (each when the file asks for it and the journal has no
// record of it: a resumed run keeps what it has), then results.json, which
// holds their records with the windows'. A suite that fails is a warning
// and the run's error, and results.json is written all the same, so the
// windows are not lost; a resume measures the suite again.
func (r *runner) suitesThenFinish(ctx context.Context) error {
	done, err := journal.ReadDir(r.opt.Dir)
	if err != nil {
		return err
	}
	if err := (&dxPhase{r}).run(ctx, done); err != nil {
		return r.finishWithout(err)
	}
	if err := (&processPhase{r}).run(ctx, done); err != nil {
		return r.finishWithout(err)
	}
	return (&finishPhase{r}).run()
}

// finishWithout journals a suite's failure and writes results.json
// without it; the run is not complete.
func (r *runner) finishWithout(err error) error {
	r.event(journal.LevelWarning, "", "%v", err)
	if werr := writeResults(r.opt.Dir); werr != nil {
		return fmt.Errorf("%w; and writing %s: %v", err, journal.ResultsFile, werr)
	}
	return err
}
