package run

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// StatusLines is the most lines the terminal's live status takes.
const StatusLines = 6

// progress shows the run. On a terminal (live) it keeps a status of at
// most StatusLines lines redrawn in place — a progress bar with the round
// and an ETA, the window being measured, the steps called so far by call,
// the open steps by name, the windows redone and why, the latest log
// line — and writes the full log lines to the log file (run.log in the
// results directory) instead of the screen. Elsewhere it prints plain
// lines, as they come.
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
	// width is the terminal's width in columns; every status line is cut
	// to it so that none wraps (0: unknown, 80 assumed).
	width int
	last  string
	// drawn is how many status lines are on the screen.
	drawn int
	// log receives the full lines when live; logPath names it.
	log     io.Writer
	logPath string
	lastLog string
	// round and rounds are the window's round and the plan's last.
	round, rounds int
	// calls counts the steps by call at the latest round's end
	// ("3 gain, 1 same, 2 undecided"); open names the steps still open.
	calls string
	open  []string
	// redone counts the tries redone, by their first flag; lastRedo is
	// the latest one's key and reason.
	redone   map[string]int
	lastRedo string
}

func newProgress(w io.Writer, live bool, width int) *progress {
	return &progress{w: w, live: live, width: width, redone: map[string]int{}}
}

// toLog sends the full lines to log (named path) while the terminal
// shows the status; a no-op when not live.
func (p *progress) toLog(log io.Writer, path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		p.log, p.logPath = log, path
	}
}

// phase shows where the current window is: warm-up, measuring, draining.
func (p *progress) phase(s string) {
	if !p.live {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phs, p.tickS = s, ""
	p.redraw()
}

// logf prints a line: above the status line, or into the log file.
func (p *progress) logf(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := fmt.Sprintf(format, a...)
	if p.log != nil {
		fmt.Fprintf(p.log, "%s %s\n", time.Now().Format("15:04:05"), line)
		p.lastLog = line
		p.redraw()
		return
	}
	p.clear()
	fmt.Fprintln(p.w, line)
	p.draw()
}

// begin starts the window phase: n windows to measure, estimated to take
// est, in rounds up to rounds.
func (p *progress) begin(n int, est time.Duration, rounds int) {
	p.mu.Lock()
	p.total, p.doneN, p.start, p.est, p.rounds = n, 0, time.Now(), est, rounds
	p.mu.Unlock()
	p.logf("measuring %d windows (estimated %s)", n, est.Round(time.Second))
}

// current announces the window being measured.
func (p *progress) current(w plan.Window, attempt int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.round = w.Round
	p.cur = fmt.Sprintf("round %d · %s · %s · c%d", w.Round, w.Stack, w.Case, w.Concurrency)
	if p.log != nil {
		p.cur = fmt.Sprintf("%s · %s · c%d", w.Stack, w.Case, w.Concurrency)
	}
	p.phs = "preparing"
	if attempt > 1 {
		p.cur += fmt.Sprintf(" (try %d)", attempt)
	}
	p.tickS = ""
	if !p.live {
		return
	}
	p.redraw()
}

// tick shows the load generator's per-second progress.
func (p *progress) tick(elapsedS int, successes, errors int64) {
	if !p.live {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tickS = fmt.Sprintf("%4ds %d ok %d err", elapsedS, successes, errors)
	p.redraw()
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

// redo reports a try that is redone, and why.
func (p *progress) redo(rec *journal.Window) {
	p.mu.Lock()
	cause := "redone"
	if len(rec.Flags) > 0 {
		cause = string(rec.Flags[0])
	}
	p.redone[cause]++
	p.lastRedo = rec.Key + " " + joinReasons(rec)
	p.mu.Unlock()
	p.logf("redo %s: %s", rec.Key, joinReasons(rec))
}

// stepCalls shows the steps called so far, by call, and the open ones.
func (p *progress) stepCalls(calls string, open []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls, p.open = calls, open
	p.redraw()
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

// redraw replaces the status on the screen.
func (p *progress) redraw() {
	p.clear()
	p.draw()
}

// clear erases the status lines, leaving the cursor where they began.
func (p *progress) clear() {
	if !p.live || p.drawn == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("\r\033[2K")
	for i := 1; i < p.drawn; i++ {
		b.WriteString("\033[1A\033[2K")
	}
	io.WriteString(p.w, b.String())
	p.drawn = 0
}

// draw writes the status, its last line left open (no newline) so that
// clear can move back over it.
func (p *progress) draw() {
	if !p.live {
		return
	}
	lines := p.statusLines()
	if len(lines) == 0 {
		return
	}
	width := p.width
	if width <= 1 {
		width = 80
	}
	for i, l := range lines {
		if r := []rune(l); len(r) > width-1 {
			lines[i] = string(r[:width-2]) + "…"
		}
	}
	io.WriteString(p.w, strings.Join(lines, "\n"))
	p.drawn = len(lines)
}

// statusLines are the status: one line (the window) with the plain
// output; with the log in a file, up to StatusLines.
func (p *progress) statusLines() []string {
	pct := 0.0
	if p.total > 0 {
		pct = 100 * float64(p.doneN) / float64(p.total)
	}
	if p.log == nil {
		if p.cur == "" {
			return nil
		}
		return []string{fmt.Sprintf("%3.0f%% [%d/%d] ETA %s │ %s │ %s %s", pct, p.doneN, p.total, p.eta().Round(time.Second), p.cur, p.phs, p.tickS)}
	}
	var out []string
	if p.cur == "" {
		// Before the windows: the phase's latest line.
		if p.lastLog != "" {
			out = append(out, p.lastLog)
		}
		return append(out, "full log: "+p.logPath)
	}
	const barW = 20
	fill := int(pct / 100 * barW)
	bar := strings.Repeat("█", fill) + strings.Repeat("░", barW-fill)
	out = append(out, fmt.Sprintf("%s %3.0f%% %d/%d · round %d of %d · ETA %s", bar, pct, p.doneN, p.total, p.round, p.rounds, p.eta().Round(time.Second)))
	out = append(out, strings.TrimSpace(fmt.Sprintf("now: %s · %s %s", p.cur, p.phs, p.tickS)))
	if p.calls != "" {
		out = append(out, "called: "+p.calls)
	}
	if len(p.open) > 0 {
		out = append(out, fmt.Sprintf("open (%d): %s", len(p.open), strings.Join(p.open, "; ")))
	}
	if line := p.redoLine(); line != "" {
		out = append(out, line)
	}
	if p.lastLog != "" {
		out = append(out, "log: "+p.lastLog)
	}
	return out[:min(len(out), StatusLines)]
}

// redoLine counts the redone tries by cause, with the latest one's reason.
func (p *progress) redoLine() string {
	n := 0
	var causes []string
	for c, k := range p.redone {
		n += k
		causes = append(causes, c)
	}
	if n == 0 {
		return ""
	}
	sort.Slice(causes, func(i, j int) bool {
		if p.redone[causes[i]] != p.redone[causes[j]] {
			return p.redone[causes[i]] > p.redone[causes[j]]
		}
		return causes[i] < causes[j]
	})
	parts := make([]string, len(causes))
	for i, c := range causes {
		parts[i] = fmt.Sprintf("%s %d", c, p.redone[c])
	}
	return fmt.Sprintf("redone %d (%s): %s", n, strings.Join(parts, ", "), p.lastRedo)
}

func (p *progress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	if p.log != nil {
		fmt.Fprintf(p.w, "full log: %s\n", p.logPath)
		p.log = nil
	}
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
