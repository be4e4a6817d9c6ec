package run

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// progress shows the run: on a terminal one live status line (current
// stack, case, concurrency, round, the last window's throughput and flags,
// overall progress and an ETA) under the log lines; elsewhere plain lines.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	live  bool
	total int
	doneN int
	start time.Time
	est   time.Duration
	cur   string
	phs   string // preparing, warm-up, measuring, draining
	tickS string
	// width is the terminal's width in columns; the status line is cut to
	// it so that it never wraps (0: unknown, not cut).
	width int
	last  string
	drawn bool
}

func newProgress(w io.Writer, live bool, width int) *progress {
	return &progress{w: w, live: live, width: width}
}

// phase shows where the current window is: warm-up, measuring, draining.
func (p *progress) phase(s string) {
	if !p.live {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phs, p.tickS = s, ""
	p.clear()
	p.draw()
}

// logf prints a line above the status line.
func (p *progress) logf(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintf(p.w, format+"\n", a...)
	p.draw()
}

// begin starts the window phase: n windows to measure, estimated to take est.
func (p *progress) begin(n int, est time.Duration) {
	p.mu.Lock()
	p.total, p.doneN, p.start, p.est = n, 0, time.Now(), est
	p.mu.Unlock()
	p.logf("measuring %d windows (estimated %s)", n, est.Round(time.Second))
}

// current announces the window being measured.
func (p *progress) current(w plan.Window, attempt int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur = fmt.Sprintf("round %d · %s · %s · c%d", w.Round, w.Stack, w.Case, w.Concurrency)
	p.phs = "preparing"
	if attempt > 1 {
		p.cur += fmt.Sprintf(" (try %d)", attempt)
	}
	p.tickS = ""
	if !p.live {
		return
	}
	p.clear()
	p.draw()
}

// tick shows the load generator's per-second progress.
func (p *progress) tick(elapsedS int, successes, errors int64) {
	if !p.live {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tickS = fmt.Sprintf("%4ds %d ok %d err", elapsedS, successes, errors)
	p.clear()
	p.draw()
}

// window reports a finished (final) window.
func (p *progress) window(rec *journal.Window) {
	p.mu.Lock()
	p.doneN++
	rps := "no result"
	if rec.Load != nil {
		rps = fmt.Sprintf("%.0f rps, %.2f cores, p99 %s", rec.Load.ThroughputRPS, rec.Server.Cores, micros(rec.Load.LatencyMicros.P99))
	}
	flags := "ok"
	for i, f := range rec.Flags {
		if i == 0 {
			flags = ""
		} else {
			flags += ","
		}
		flags += string(f)
	}
	p.last = fmt.Sprintf("%s: %s [%s]", rec.Key, rps, flags)
	line := fmt.Sprintf("[%d/%d] %s", p.doneN, p.total, p.last)
	p.mu.Unlock()
	p.logf("%s", line)
}

// eta estimates the time left from the pace so far, or the plan's estimate
// before the first window.
func (p *progress) eta() time.Duration {
	if p.doneN == 0 || p.total == 0 {
		return p.est
	}
	per := time.Since(p.start) / time.Duration(p.doneN)
	return per * time.Duration(p.total-p.doneN)
}

func (p *progress) clear() {
	if p.live && p.drawn {
		fmt.Fprint(p.w, "\r\033[2K")
		p.drawn = false
	}
}

func (p *progress) draw() {
	if !p.live || p.cur == "" {
		return
	}
	pct := 0.0
	if p.total > 0 {
		pct = 100 * float64(p.doneN) / float64(p.total)
	}
	line := fmt.Sprintf("%3.0f%% [%d/%d] ETA %s │ %s │ %s %s", pct, p.doneN, p.total, p.eta().Round(time.Second), p.cur, p.phs, p.tickS)
	if r := []rune(line); p.width > 1 && len(r) > p.width-1 {
		line = string(r[:p.width-1])
	}
	fmt.Fprint(p.w, line)
	p.drawn = true
}

func (p *progress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// micros formats a latency in microseconds for people.
func micros(us int64) string {
	switch {
	case us >= 1_000_000:
		return fmt.Sprintf("%.2fs", float64(us)/1e6)
	case us >= 1000:
		return fmt.Sprintf("%.1fms", float64(us)/1e3)
	default:
		return fmt.Sprintf("%dµs", us)
	}
}
