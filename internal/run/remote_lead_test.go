package run

import (
	"strings"
	"testing"
	"time"
)

// The lead starts at its most, follows the slowest launch timed (three
// times it, plus twice the clock bound, within its bounds), waits its
// most again for a window carrying more bytes than any timed one, and
// after a reset.
func TestRemoteLeadFollowsTheSlowestLaunch(t *testing.T) {
	var l remoteLead
	if d := l.next(0, false); d != maxRemoteLead {
		t.Fatalf("before any launch was timed: %s, want %s", d, maxRemoteLead)
	}
	t0 := time.Now()
	l.observe(t0, t0.Add(40*time.Millisecond), 2*time.Millisecond, 1000)
	l.observe(t0, t0.Add(150*time.Millisecond), time.Millisecond, 10)
	if d, want := l.next(1000, false), 3*150*time.Millisecond+2*2*time.Millisecond; d != want || l.last != d {
		t.Errorf("after launches of 40 and 150 ms: %s (last %s), want %s", d, l.last, want)
	}
	if d := l.next(1000, true); d != maxRemoteLead || l.last != d {
		t.Errorf("a window asking for the most: %s (last %s), want %s", d, l.last, maxRemoteLead)
	}
	if d := l.next(1001, false); d != maxRemoteLead {
		t.Errorf("a window of more bytes than any timed: %s, want %s", d, maxRemoteLead)
	}
	var quick remoteLead
	quick.observe(t0, t0.Add(time.Millisecond), 0, 0)
	if d := quick.next(0, false); d != minRemoteLead {
		t.Errorf("after a 1 ms launch: %s, want the least, %s", d, minRemoteLead)
	}
	var slow remoteLead
	slow.observe(t0, t0.Add(time.Second), 0, 0)
	if d := slow.next(0, false); d != maxRemoteLead {
		t.Errorf("after a 1 s launch: %s, want the most, %s", d, maxRemoteLead)
	}
	quick.reset()
	if d := quick.next(0, false); d != maxRemoteLead {
		t.Errorf("after a reset: %s, want %s", d, maxRemoteLead)
	}
}

// A generator ready after the window's start by more than its clock's
// bound and the tolerance started late; one ready before it, or late
// within the bound, did not.
func TestLateStart(t *testing.T) {
	start := time.Now()
	for _, c := range []struct {
		ready time.Duration
		bound time.Duration
		late  bool
	}{
		{-100 * time.Millisecond, time.Millisecond, false},
		{3 * time.Millisecond, 0, false},
		{20 * time.Millisecond, 20 * time.Millisecond, false},
		{30 * time.Millisecond, 20 * time.Millisecond, true},
		{400 * time.Millisecond, time.Millisecond, true},
	} {
		why := lateStart("load1", start, start.Add(c.ready), c.bound, 300*time.Millisecond)
		if (why != "") != c.late {
			t.Errorf("ready %s after the start, bound %s: %q; want late %v", c.ready, c.bound, why, c.late)
		}
		if why != "" && (!strings.Contains(why, "load1") || !strings.Contains(why, "300 ms ahead")) {
			t.Errorf("the reason %q does not name the host and the lead", why)
		}
	}
}
