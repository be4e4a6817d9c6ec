package run

import (
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/proc"
)

// windowSampler opens and closes a sampler on the load generator's own
// window boundaries. Reacting to the generator's measure_start and
// measure_end events alone put the sampler 5-25 ms behind each boundary on
// a busy 2-core host (the event crosses a pipe to a harness goroutine
// waiting for CPU): the sampled window then missed the start of the load's
// window and took in the idle tail after its end. So the boundaries are
// timed: the generator announces the window's start ahead (measure_at: at
// once for a fixed warm-up, a slice ahead for an adaptive one), and the
// window's start plus its length is its end. The events still open and
// close the sampler if a timer is late, and close it if the generator dies.
type windowSampler struct {
	sampler *proc.Sampler
	span    time.Duration

	mu      sync.Mutex
	started bool
	closed  bool
	stats   *proc.WindowStats
	timers  []*time.Timer
	// onOpen and onClose, when set (profiling.go), are called with the
	// opening and the closing snapshot, under the lock: they must not block.
	onOpen, onClose func()
	// onStart, when set (farSamples), is called once with the instant the
	// measured window starts on this machine's clock, as soon as the
	// generator says it (measure_at, ahead; else measure_start): what is
	// sampled on other hosts is asked over the same window. It must not
	// block.
	onStart  func(at time.Time)
	startSet bool
}

// hooks sets onOpen and onClose.
func (ws *windowSampler) hooks(onOpen, onClose func()) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.onOpen, ws.onClose = onOpen, onClose
}

func newWindowSampler(s *proc.Sampler, window time.Duration) *windowSampler {
	return &windowSampler{sampler: s, span: window}
}

// event handles one of the generator's events.
func (ws *windowSampler) event(ev load.Event) {
	switch ev.Kind {
	case load.MeasureAt:
		ws.starts(time.Unix(0, ev.UnixNano))
		ws.at(time.Unix(0, ev.UnixNano), ws.open)
	case load.MeasureStart:
		ws.starts(time.Unix(0, ev.UnixNano))
		ws.open()
		ws.at(time.Unix(0, ev.UnixNano).Add(ws.span), ws.close)
	case load.MeasureEnd:
		ws.close()
	}
}

// starts tells onStart, once, that the measured window starts at t.
func (ws *windowSampler) starts(t time.Time) {
	ws.mu.Lock()
	f := ws.onStart
	if ws.startSet || ws.closed {
		f = nil
	}
	ws.startSet = true
	ws.mu.Unlock()
	if f != nil {
		f(t)
	}
}

// at calls f at t, or at once if t has passed.
func (ws *windowSampler) at(t time.Time, f func()) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if !ws.closed {
		ws.timers = append(ws.timers, time.AfterFunc(time.Until(t), f))
	}
}

// open takes the opening snapshot, once.
func (ws *windowSampler) open() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.started || ws.closed {
		return
	}
	ws.sampler.Start()
	ws.started = true
	if ws.onOpen != nil {
		ws.onOpen()
	}
}

// close takes the closing snapshot if the sampler was opened; after it,
// nothing opens it again.
func (ws *windowSampler) close() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.closed {
		return
	}
	ws.closed = true
	for _, t := range ws.timers {
		t.Stop()
	}
	if ws.started {
		s := ws.sampler.Stop()
		ws.stats = &s
		if ws.onClose != nil {
			ws.onClose()
		}
	}
}

// result closes the sampler and returns what it measured: nil when the
// window never started.
func (ws *windowSampler) result() *proc.WindowStats {
	ws.close()
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.stats
}
