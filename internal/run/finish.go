package run

// finishPhase writes the results once every phase is done.
type finishPhase struct{ r *runner }

// run writes results.json from the journal; the reports are rendered by
// the caller (report.Build), a pure function of the same journal.
func (ph *finishPhase) run() error {
	r := ph.r
	r.completed = true
	return writeResults(r.opt.Dir)
}
