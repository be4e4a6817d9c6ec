package run

import (
	"bytes"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
)

// screen replays what progress wrote to a terminal — lines, carriage
// returns, "erase line" and "cursor up" — and returns the screen's lines.
func screen(out string) []string {
	lines := []string{""}
	row := 0
	esc := regexp.MustCompile(`^\x1b\[(\d*)([AK])`)
	for i := 0; i < len(out); {
		switch {
		case out[i] == '\n':
			row++
			if row == len(lines) {
				lines = append(lines, "")
			}
			i++
		case out[i] == '\r':
			i++ // the next write replaces the line after an erase
		case out[i] == 0x1b:
			m := esc.FindStringSubmatch(out[i:])
			if m == nil {
				i++
				continue
			}
			if m[2] == "K" {
				lines[row] = ""
			} else {
				n := 1
				if m[1] != "" {
					n = int(m[1][0] - '0')
				}
				row -= n
			}
			i += len(m[0])
		default:
			r, size := utf8.DecodeRuneInString(out[i:])
			lines[row] += string(r)
			i += size
		}
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func window(round int, stack string) plan.Window {
	return plan.Window{Key: "r1/" + stack + "/order/c32", Round: round, Stack: stack, Case: "order", Concurrency: 32}
}

// TestTerminalStatusFitsSixLinesAt80Columns drives the status as a run
// does, on a terminal 80 columns wide, with long stack names and many
// open steps: the screen never holds more than six lines, none wider
// than 79 columns, and it names the progress, the round, the calls, the
// open steps and the redone windows with their reason; the full lines
// are in the log, not on the screen.
func TestTerminalStatusFitsSixLinesAt80Columns(t *testing.T) {
	var term, log bytes.Buffer
	p := newProgress(&term, true, 80)
	p.toLog(&log, "results/x/run.log")
	p.logf("database: ready")
	p.begin(12, time.Minute, 3)
	long := "express-with-a-very-long-stack-name"
	for i := 1; i <= 6; i++ {
		p.current(window((i+1)/2, long), 1)
		p.phase("measuring")
		p.tick(1, 1234, 0)
		if i == 3 {
			p.redo(&journal.Window{Key: "r2/" + long + "/order/c32", Flags: []journal.Flag{journal.FlagContended}, Reasons: []string{"contended: foreign CPU 0.81 cores over the gate's 0.40 for the whole window"}})
		}
		p.window(&journal.Window{Key: "r1/" + long + "/order/c32", Load: &load.Result{ThroughputRPS: 1000}})
		if i%2 == 0 {
			p.stepCalls("1 gain, 2 same, 3 undecided", []string{"a → " + long + " order c=32", "b → c user c=32", "c → d list c=32"})
		}
		lines := screen(term.String())
		if len(lines) > StatusLines {
			t.Fatalf("after window %d the screen holds %d lines:\n%s", i, len(lines), strings.Join(lines, "\n"))
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > 79 {
				t.Errorf("line of %d columns: %q", n, l)
			}
		}
	}
	got := strings.Join(screen(term.String()), "\n")
	t.Logf("the status at 80 columns:\n%s", got)
	for _, want := range []string{"50% 6/12 · round 3 of 3 · ETA", "now: " + long[:20], "called: 1 gain, 2 same, 3 undecided", "open (3): a → express", "redone 1 (contended 1): r2/", "log: [6/12]"} {
		if !strings.Contains(got, want) {
			t.Errorf("the status lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "[1/12]") {
		t.Errorf("a window's line scrolled onto the screen:\n%s", got)
	}
	for _, want := range []string{"database: ready", "[1/12] r1/", "[6/12] r1/", "redo r2/" + long} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
	p.close()
	if got := screen(term.String()); len(got) != 1 || got[0] != "full log: results/x/run.log" {
		t.Errorf("after the run the screen holds %q, want only where the log is", got)
	}
}

// TestNonTerminalStderrKeepsTodaysLines: not on a terminal, every line
// is printed as it comes, nothing is redrawn, and no log file is used.
func TestNonTerminalStderrKeepsTodaysLines(t *testing.T) {
	var out, log bytes.Buffer
	p := newProgress(&out, false, 0)
	p.toLog(&log, "results/x/run.log")
	p.begin(2, time.Minute, 1)
	p.current(window(1, "a"), 1)
	p.phase("measuring")
	p.tick(1, 10, 0)
	p.redo(&journal.Window{Key: "r1/a/order/c32", Flags: []journal.Flag{journal.FlagSuspended}, Reasons: []string{"suspended: the machine slept"}})
	p.window(&journal.Window{Key: "r1/a/order/c32", Load: &load.Result{ThroughputRPS: 1000}})
	p.stepCalls("1 undecided", []string{"a → b order c=32"})
	p.close()
	want := "measuring 2 windows (estimated 1m0s)\nredo r1/a/order/c32: suspended: the machine slept\n[1/2] r1/a/order/c32: 1000 rps, 0.00 cores, p99 0µs [ok]\n"
	if out.String() != want {
		t.Errorf("stderr:\n%q\nwant\n%q", out.String(), want)
	}
	if log.Len() != 0 {
		t.Errorf("the log file was written without a terminal: %q", log.String())
	}
}

// BenchmarkRoundEndCalls is what the terminal's status costs the harness
// at each round's end: the journal read and analysed as the report does,
// on internal/report's synthetic 168-window journal, and counted.
func BenchmarkRoundEndCalls(b *testing.B) {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c0 := cpu()
	defer func() { b.ReportMetric(float64(cpu()-c0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op") }()
	for b.Loop() {
		res, err := journal.ReadDir("../report/testdata/run")
		if err != nil {
			b.Fatal(err)
		}
		m, err := analysis.FromResults(res, analysis.Options{})
		if err != nil {
			b.Fatal(err)
		}
		stepCalls(m)
	}
}
