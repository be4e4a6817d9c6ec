package live

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/platform/local"
	"github.com/stackbench/stackbench/internal/report"
)

// follower polls the journal and publishes to the hub: the status on
// every new record, a row for every window try, and the report at each
// look.
type follower struct {
	opt  Options
	hub  *hub
	tail *tail
	// shown counts the window and latency tries already published.
	shownWindows, shownLatency int
	// lookFinals and lookRounds are the final windows and complete rounds
	// at the last look; lookAt its time.
	lookFinals, lookRounds int
	lookAt                 time.Time
	ended, stopped         bool
	published              bool
	// quietShown is the quiet time the status shows, to the minute.
	quietShown time.Duration
	lastErr    string
	// final is closed once the last look after Finish is published.
	final     chan struct{}
	finalOnce sync.Once
}

func newFollower(opt Options, h *hub) *follower {
	return &follower{opt: opt, hub: h, tail: newTail(opt.Dir), final: make(chan struct{})}
}

// run polls every poll until ctx ends. After finish is closed (the
// in-process run ended) it takes the last look and stops polling.
func (f *follower) run(ctx context.Context, poll time.Duration, finish <-chan struct{}) {
	defer f.finalOnce.Do(func() { close(f.final) })
	t := time.NewTicker(poll)
	defer t.Stop()
	f.step(false)
	for {
		select {
		case <-ctx.Done():
			return
		case <-finish:
			f.step(true)
			f.finalOnce.Do(func() { close(f.final) })
			<-ctx.Done()
			return
		case <-t.C:
			f.step(false)
		}
	}
}

func (f *follower) waitFinal() { <-f.final }

// step reads what the journal gained and publishes what changed.
// finished says the in-process run ended.
func (f *follower) step(finished bool) {
	added, err := f.tail.poll()
	if err != nil {
		f.problem(err)
		return
	}
	ended, stopped := finished, false
	if !f.opt.InProcess {
		ended, stopped = runEnded(f.opt.Dir)
	}
	if added == 0 && ended == f.ended && stopped == f.stopped && f.published {
		f.publishStatus(Progress{}, ended, stopped, true)
		return
	}
	res := f.tail.res
	p := progressOf(res, ended, stopped)
	f.publishRows(res)
	finals := p.WindowsDone
	due := finals != f.lookFinals && (p.RoundsDone != f.lookRounds || time.Since(f.lookAt) >= f.opt.LookEvery)
	if (due || ended && !f.ended) && res.Plan != nil {
		if err := f.look(ended); err != nil {
			f.problem(err)
		} else {
			f.lookFinals, f.lookRounds, f.lookAt = finals, p.RoundsDone, time.Now()
		}
	}
	// The status comes after the look, so that a page that reads
	// "finished" already has the final report.
	f.publishStatus(p, ended, stopped, false)
	if ended != f.ended {
		f.hub.setDone(ended)
		f.ended = ended
	}
	f.stopped = stopped
}

// publishStatus renders and publishes the status. With quietOnly (no new
// record) it only refreshes the status when it says how long the run has
// been quiet, which changes with the clock.
func (f *follower) publishStatus(p Progress, ended, stopped, quietOnly bool) Progress {
	if quietOnly {
		// Nothing new: the status changes only when the minutes it says
		// the run has been quiet for do.
		last := lastRecord(f.tail.res)
		if last.IsZero() || time.Since(last) < 2*time.Minute || time.Since(last).Round(time.Minute) == f.quietShown {
			return p
		}
		f.quietShown = time.Since(last).Round(time.Minute)
		p = progressOf(f.tail.res, ended, stopped)
	}
	s, err := renderStatus(p, seriesOf(f.tail.res), stackColors(f.tail.res), f.tail.res.JournalProblems, time.Now())
	if err != nil {
		f.problem(err)
		return p
	}
	f.hub.setStatus(s)
	f.published = true
	return p
}

// lastRecord is when the latest window try ended.
func lastRecord(res *journal.Results) time.Time {
	var last time.Time
	for _, ws := range [][]journal.Window{res.Windows, res.Latency} {
		if n := len(ws); n > 0 && ws[n-1].EndedAt.After(last) {
			last = ws[n-1].EndedAt
		}
	}
	return last
}

// publishRows publishes a row for every try journaled since the last step.
func (f *follower) publishRows(res *journal.Results) {
	var rows []string
	add := func(ws []journal.Window, shown *int) {
		if *shown > len(ws) { // the journal was read again from the start
			*shown = 0
		}
		for _, w := range ws[*shown:] {
			row, err := renderRow(w)
			if err != nil {
				f.problem(err)
				continue
			}
			rows = append(rows, row)
		}
		*shown = len(ws)
	}
	add(res.Windows, &f.shownWindows)
	add(res.Latency, &f.shownLatency)
	f.hub.addRows(rows)
}

// scriptTags are the report's own inline scripts (they mark the page for
// its tests); a live page runs only its own, so they are left out.
var scriptTags = regexp.MustCompile(`(?s)<script>.*?</script>`)

// look builds the report of the journal so far and publishes its HTML.
// At the end it is the report `stackbench report` builds (report.BuildWith
// on the directory: it reads, never writes).
func (f *follower) look(ended bool) error {
	var m *report.Model
	var err error
	if ended {
		m, err = report.BuildWith(f.opt.Dir, f.opt.Report)
	} else {
		m, err = report.FromResults(snapshot(f.tail.res), f.opt.Report)
		if err == nil {
			report.AddProfiling(f.opt.Dir, f.tail.res, m)
		}
	}
	if err != nil {
		return fmt.Errorf("look at the journal: %w", err)
	}
	var b bytes.Buffer
	if err := report.WriteHTML(&b, m); err != nil {
		return err
	}
	f.hub.setReport(scriptTags.ReplaceAllString(b.String(), ""))
	return nil
}

// snapshot copies the journal's slices so that the analysis, which may
// sort what it is given, never reorders the records the tail appends to.
func snapshot(r *journal.Results) *journal.Results {
	c := *r
	c.Environments = slices.Clone(r.Environments)
	c.Parity = slices.Clone(r.Parity)
	c.Boot = slices.Clone(r.Boot)
	c.Windows = slices.Clone(r.Windows)
	c.Events = slices.Clone(r.Events)
	c.Rounds = slices.Clone(r.Rounds)
	c.Profiling = slices.Clone(r.Profiling)
	c.Latency = slices.Clone(r.Latency)
	c.LatencyRates = slices.Clone(r.LatencyRates)
	c.JournalProblems = slices.Clone(r.JournalProblems)
	c.Capacity.Probes = slices.Clone(r.Capacity.Probes)
	c.Capacity.Searches = slices.Clone(r.Capacity.Searches)
	return &c
}

func (f *follower) problem(err error) {
	if msg := err.Error(); msg != f.lastErr {
		f.lastErr = msg
		if f.opt.Errors != nil {
			fmt.Fprintf(f.opt.Errors, "live page: %s\n", msg)
		}
	}
}

// lockFile is internal/run's LockFile: the file a run holds locked in its
// results directory, saying "pid N on HOST since …".
const lockFile = ".lock"

// runEnded says whether a run in another process ended: finished when no
// live process holds the directory and results.json is at least as new
// as the journal; stopped when none holds it and it did not finish.
func runEnded(dir string) (finished, stopped bool) {
	jst, err := os.Stat(filepath.Join(dir, journal.FileName))
	if err != nil || lockHeld(dir) {
		return false, false
	}
	if rst, err := os.Stat(filepath.Join(dir, journal.ResultsFile)); err == nil && !rst.ModTime().Before(jst.ModTime()) {
		return true, false
	}
	return false, true
}

// lockHeld says whether a process holds the directory's lock: on Linux
// read from /proc/locks (nothing is opened or locked); elsewhere from the
// holder the lock file names, alive or not (a holder on another host
// cannot be checked and counts as holding it).
func lockHeld(dir string) bool {
	path := filepath.Join(dir, lockFile)
	if held, known := local.FlockHeld(path); known {
		return held
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b))
	if len(fields) < 4 || fields[0] != "pid" || fields[2] != "on" {
		return false
	}
	pid, err := strconv.Atoi(fields[1])
	if err != nil || pid <= 0 {
		return false
	}
	if host, _ := os.Hostname(); host != fields[3] {
		return true
	}
	return local.Alive(pid)
}
