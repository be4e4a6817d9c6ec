package run

// finish writes results.json from the journal; the reports are rendered by
// the caller (report.Build), a pure function of the same journal.
func (r *runner) finish() error {
	r.completed = true
	return writeResults(r.opt.Dir)
}
