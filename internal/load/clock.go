package load

import (
	"time"
	_ "unsafe" // for go:linkname
)

// nanotime is the runtime's CLOCK_MONOTONIC reading in nanoseconds: the
// cheapest clock Go offers, and the clock timerfd schedules against.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// clockPair relates the monotonic clock to the wall clock.
type clockPair struct {
	mono int64
	wall time.Time
}

func readClocks() clockPair { return clockPair{mono: nanotime(), wall: time.Now()} }

// unixNano converts a monotonic reading to wall-clock Unix nanoseconds.
func (c clockPair) unixNano(mono int64) int64 { return c.wall.UnixNano() + (mono - c.mono) }
