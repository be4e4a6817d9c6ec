package run

import (
	"fmt"
	"time"
)

// A window across hosts is scheduled at one instant on every generator:
// the harness sends each its load, and each opens its connections and
// waits for the instant (load's --start-at). How far ahead of now that
// instant lies is the lead. It must cover the slowest generator's launch
// (the request over SSH, the files it carries, the generator's start and
// its connections) or that generator starts late and its window is not
// the others'. A fixed lead of maxRemoteLead did that everywhere, and was
// most of a quick window's time: 2 s of waiting for a 0.5–1 s window.
// The lead is measured instead: each generator says when it was ready
// (load.Result.ReadyUnixNano), and the next window's lead is a multiple of
// the slowest launch seen, never below minRemoteLead nor above
// maxRemoteLead.
const (
	// maxRemoteLead is the lead before any launch was timed, for a window
	// whose files are larger than any timed one, and after a late start.
	maxRemoteLead = 2 * time.Second
	// minRemoteLead is the shortest lead: scheduling noise on a busy
	// host, and the server host's sampler asked for the same window.
	minRemoteLead = 250 * time.Millisecond
	// leadFactor is how many times the slowest launch seen the lead
	// allows.
	leadFactor = 3
	// lateTolerance is how late a generator may be ready, beyond the
	// bound of its clock's offset, before its window is not the others':
	// a few milliseconds of a timer's slack.
	lateTolerance = 5 * time.Millisecond
)

// remoteLead times the launches of windows across hosts and sets the
// next window's lead from them.
type remoteLead struct {
	// slowest is the slowest launch seen (from the window's request to a
	// generator ready), and bound the largest clock-offset bound it was
	// measured through.
	slowest, bound time.Duration
	// files is the most bytes of files a timed window carried to a
	// generator: a window carrying more waits maxRemoteLead.
	files int
	// timed says a launch was timed since the last reset.
	timed bool
	// last is the lead the last window was given.
	last time.Duration
}

// next is the lead for a window carrying files bytes to each generator;
// full asks for the most (a profile window: perf on the server host
// starts seconds ahead).
func (l *remoteLead) next(files int, full bool) time.Duration {
	d := maxRemoteLead
	if !full && l.timed && files <= l.files {
		d = min(max(leadFactor*l.slowest+2*l.bound, minRemoteLead), maxRemoteLead)
	}
	l.last = d
	return d
}

// observe records a generator's launch: launched is when the window was
// sent, ready when the generator was ready (both on this machine's
// clock), bound the error of the conversion of ready to it.
func (l *remoteLead) observe(launched, ready time.Time, bound time.Duration, files int) {
	l.slowest = max(l.slowest, ready.Sub(launched))
	l.bound = max(l.bound, bound)
	l.files = max(l.files, files)
	l.timed = true
}

// reset forgets the launches timed: after a late start, the next window
// waits maxRemoteLead and the launches are timed again.
func (l *remoteLead) reset() { *l = remoteLead{last: l.last} }

// lateStart says, when a generator was ready after the window's start
// instant by more than lateTolerance beyond the bound of its clock, how
// late, as a reason the window is redone; "" when it was in time.
func lateStart(host string, start, ready time.Time, bound, lead time.Duration) string {
	late := ready.Sub(start)
	if late <= bound+lateTolerance {
		return ""
	}
	return fmt.Sprintf("the generator on %s was ready %.0f ms after the window's start, scheduled %.0f ms ahead: its window was not the others' (the lead goes back to %s for the next window)",
		host, float64(late)/1e6, float64(lead)/1e6, maxRemoteLead)
}
