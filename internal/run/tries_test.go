package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// fakeExec is a window executor that plays a script: one step per try.
type fakeExec struct {
	script []func(windowTry) windowOutcome
	tries  []windowTry
}

func (f *fakeExec) execute(_ context.Context, t windowTry) windowOutcome {
	f.tries = append(f.tries, t)
	if len(f.script) == 0 {
		return fatal(errors.New("the script has no more tries"))
	}
	step := f.script[0]
	f.script = f.script[1:]
	return step(t)
}

// recOf is a try's record, as an executor makes it.
func recOf(t windowTry) *journal.Window {
	s := t.sides[0]
	return newRecord(s.w, s.attempt, 0)
}

func measured(t windowTry) windowOutcome {
	return windowOutcome{kind: tryOK, recs: []*journal.Window{recOf(t)}}
}

func disturbedTry(t windowTry) windowOutcome {
	rec := recOf(t)
	flagger{rec}.add(journal.FlagContended, "foreign CPU 1.20 cores over the gate's 0.50")
	return windowOutcome{kind: tryRedo, recs: []*journal.Window{rec}}
}

func diedTry(t windowTry) windowOutcome {
	rec := recOf(t)
	flagger{rec}.add(journal.FlagServerDied, "exit status 2")
	rec.Error = "exit status 2"
	return windowOutcome{kind: tryRedo, recs: []*journal.Window{rec}, died: []int{0}}
}

func lostOn(host string) func(windowTry) windowOutcome {
	return func(t windowTry) windowOutcome {
		rec := recOf(t)
		rec.Error = "session lost"
		rec.Reasons = append(rec.Reasons, "the session with host "+host+" dropped during the window (session lost); the window is redone")
		return windowOutcome{kind: tryHostLost, recs: []*journal.Window{rec}, host: host, err: errors.New("session lost")}
	}
}

// fakeTree is a server's process tree that runs until killed.
type fakeTree struct{ dead bool }

func (t *fakeTree) PID() int                    { return 4242 }
func (t *fakeTree) Port() int                   { return 8080 }
func (t *fakeTree) BootDuration() time.Duration { return time.Second }
func (t *fakeTree) Check() error {
	if t.dead {
		return errors.New("gone")
	}
	return nil
}
func (t *fakeTree) Stop(time.Duration) error { t.dead = true; return nil }

// fakeKeeper starts fake servers on host and counts what the loop asks.
type fakeKeeper struct {
	host, dbHost string
	started      int
	stopped      int
	// startErr fails every start after the first startOK ones.
	startOK  int
	startErr error
	// reconnectErr fails every reconnect.
	reconnectErr error
	reconnected  []string
	events       []string
}

func (k *fakeKeeper) newServer(_ context.Context, st plan.Stack, planProcess int) (*server, error) {
	if k.startErr != nil && k.started >= k.startOK {
		return nil, k.startErr
	}
	k.started++
	return &server{stack: st, tree: &fakeTree{}, host: k.host, seq: k.started, planProcess: planProcess}, nil
}

func (k *fakeKeeper) stopServer(s *server) {
	if s != nil {
		k.stopped++
		s.tree.Stop(0)
	}
}

func (k *fakeKeeper) reconnect(_ context.Context, host string) error {
	k.reconnected = append(k.reconnected, host)
	return k.reconnectErr
}

func (k *fakeKeeper) event(_ journal.Level, _, format string, a ...any) {
	k.events = append(k.events, fmt.Sprintf(format, a...))
}

// loopCase is a retry loop over a fake executor and keeper, journaling
// into a slice.
type loopCase struct {
	exec     *fakeExec
	keeper   *fakeKeeper
	journal  []*journal.Window
	attempts map[string]int
	w        plan.Window
	first    *server
}

func newLoopCase(host string, script ...func(windowTry) windowOutcome) *loopCase {
	w := plan.Window{Key: "r1/gin/user/c5", Round: 1, Stack: "gin", Case: "user", Concurrency: 5}
	k := &fakeKeeper{host: host}
	first, _ := k.newServer(context.Background(), plan.Stack{Name: "gin"}, 1)
	return &loopCase{exec: &fakeExec{script: script}, keeper: k, attempts: map[string]int{}, w: w, first: first}
}

func (lc *loopCase) run(ctx context.Context) (*server, error) {
	l := &retryLoop{exec: lc.exec, hosts: lc.keeper, attempts: lc.attempts, dbHost: lc.keeper.dbHost,
		record: func(rec *journal.Window) error { lc.journal = append(lc.journal, rec); return nil }}
	srvs, err := l.run(ctx, []windowSide{{w: lc.w, srv: lc.first}})
	return srvs[0], err
}

// finals says, per journaled try, its attempt and whether it is final:
// "1 redo, 2 final".
func (lc *loopCase) finals() string {
	var parts []string
	for _, rec := range lc.journal {
		f := "redo"
		if rec.Final {
			f = "final"
		}
		parts = append(parts, fmt.Sprintf("%d %s", rec.Attempt, f))
	}
	return strings.Join(parts, ", ")
}

// A try the host disturbed is journaled as not final and redone; the
// executor is told how many tries were disturbed before, which is the
// gate's budget.
func TestTriesRedoADisturbedTry(t *testing.T) {
	lc := newLoopCase("", disturbedTry, disturbedTry, measured)
	cur, err := lc.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := lc.finals(); got != "1 redo, 2 redo, 3 final" {
		t.Errorf("journaled tries %q; want 1 redo, 2 redo, 3 final", got)
	}
	for i, tr := range lc.exec.tries {
		if tr.disturbed != i || !tr.judged {
			t.Errorf("try %d: disturbed %d, judged %v; want %d and judged", i+1, tr.disturbed, tr.judged, i)
		}
		if tr.sides[0].srv != lc.first {
			t.Errorf("try %d ran on another server; a disturbed try is redone on the same process", i+1)
		}
	}
	if cur != lc.first || lc.keeper.started != 1 {
		t.Errorf("the loop started %d servers; want the first kept", lc.keeper.started)
	}
	if !lc.journal[0].HasFlag(journal.FlagContended) {
		t.Errorf("the redone try lost its flag: %v", lc.journal[0].Flags)
	}
}

// A server that dies is restarted and the window redone on the new one,
// once: dying again fails the cell, and the run goes on.
func TestTriesRestartADeadServerOnce(t *testing.T) {
	lc := newLoopCase("", diedTry, diedTry)
	cur, err := lc.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := lc.finals(); got != "1 redo, 2 final" {
		t.Errorf("journaled tries %q; want 1 redo, 2 final", got)
	}
	if lc.exec.tries[1].sides[0].srv == lc.first {
		t.Error("the redo ran on the dead server")
	}
	last := lc.journal[1]
	if !last.HasFlag(journal.FlagFailed) || !strings.Contains(joinReasons(last), "died again after a restart") {
		t.Errorf("the second death: flags %v, reasons %q; want failed, died again", last.Flags, joinReasons(last))
	}
	if lc.keeper.started != 3 || lc.keeper.stopped != 2 || cur == nil || cur.tree.Check() != nil {
		t.Errorf("started %d, stopped %d servers, went on with %v; want 3 started (the first and a restart after each death), 2 stopped, a live one", lc.keeper.started, lc.keeper.stopped, cur)
	}
	if lc.exec.tries[1].disturbed != 0 {
		t.Error("a dead server counted against the gate's budget")
	}
}

// A server that cannot be restarted fails the cell at once; the loop
// returns no server.
func TestTriesServerThatWillNotRestart(t *testing.T) {
	lc := newLoopCase("", diedTry)
	lc.keeper.startOK, lc.keeper.startErr = 1, errors.New("port in use")
	cur, err := lc.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := lc.finals(); got != "1 final" {
		t.Errorf("journaled tries %q; want 1 final", got)
	}
	if cur != nil {
		t.Error("the loop returned a server; the restart failed")
	}
	if rec := lc.journal[0]; !rec.HasFlag(journal.FlagFailed) || !strings.Contains(joinReasons(rec), "could not be restarted") {
		t.Errorf("flags %v, reasons %q; want failed, could not be restarted", rec.Flags, joinReasons(rec))
	}
	if !strings.Contains(strings.Join(lc.keeper.events, "\n"), "restarting gin failed: port in use") {
		t.Errorf("events %q; want the restart's failure", lc.keeper.events)
	}
}

// A generator host whose session drops mid-window is reconnected and the
// window redone on the same server (it runs on another host).
func TestTriesLostGeneratorHost(t *testing.T) {
	lc := newLoopCase("app1", lostOn("load1"), measured)
	cur, err := lc.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := lc.finals(); got != "1 redo, 2 final" {
		t.Errorf("journaled tries %q; want 1 redo, 2 final", got)
	}
	if strings.Join(lc.keeper.reconnected, ",") != "load1" {
		t.Errorf("reconnected %v; want load1", lc.keeper.reconnected)
	}
	if cur != lc.first || lc.keeper.started != 1 {
		t.Error("the server on app1 was restarted for load1's dropped session")
	}
	if lc.exec.tries[1].disturbed != 0 {
		t.Error("a lost host counted against the gate's budget")
	}
}

// When the session with the server's own host drops, its agent stopped
// the server: the redo runs on a fresh one.
func TestTriesLostServerHost(t *testing.T) {
	lc := newLoopCase("app1", lostOn("app1"), measured)
	cur, err := lc.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := lc.finals(); got != "1 redo, 2 final" {
		t.Errorf("journaled tries %q; want 1 redo, 2 final", got)
	}
	if cur == lc.first || lc.exec.tries[1].sides[0].srv == lc.first {
		t.Error("the redo ran on the server that went with app1's session")
	}
}

// The database host's session cannot be redone around (the cluster went
// with it), a host that drops more than maxLostRedos times or stays
// unreachable stops the run: each with ErrHostUnreachable and every try
// journaled as not final.
func TestTriesLostHostStopsTheRun(t *testing.T) {
	t.Run("database host", func(t *testing.T) {
		lc := newLoopCase("app1", lostOn("db1"))
		lc.keeper.dbHost = "db1"
		_, err := lc.run(context.Background())
		if !errors.Is(err, ErrHostUnreachable) || !strings.Contains(err.Error(), "database host db1") {
			t.Errorf("error %v; want the database host unreachable", err)
		}
		if got := lc.finals(); got != "1 redo" {
			t.Errorf("journaled tries %q; want 1 redo", got)
		}
	})
	t.Run("budget", func(t *testing.T) {
		var script []func(windowTry) windowOutcome
		for range maxLostRedos + 1 {
			script = append(script, lostOn("load1"))
		}
		lc := newLoopCase("app1", script...)
		_, err := lc.run(context.Background())
		if !errors.Is(err, ErrHostUnreachable) || !strings.Contains(err.Error(), fmt.Sprintf("%d times", maxLostRedos+1)) {
			t.Errorf("error %v; want load1 given up on after %d drops", err, maxLostRedos+1)
		}
		if len(lc.journal) != maxLostRedos+1 || len(lc.keeper.reconnected) != maxLostRedos {
			t.Errorf("%d tries journaled, %d reconnections; want %d and %d", len(lc.journal), len(lc.keeper.reconnected), maxLostRedos+1, maxLostRedos)
		}
		for _, rec := range lc.journal {
			if rec.Final {
				t.Errorf("try %d journaled final; a lost try is never final", rec.Attempt)
			}
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		lc := newLoopCase("app1", lostOn("load2"))
		lc.keeper.reconnectErr = fmt.Errorf("host load2 stayed unreachable: %w", ErrHostUnreachable)
		_, err := lc.run(context.Background())
		if !errors.Is(err, ErrHostUnreachable) {
			t.Errorf("error %v; want load2 unreachable", err)
		}
	})
}

// A fatal outcome (a broken harness) stops the loop with its error and
// journals nothing.
func TestTriesFatal(t *testing.T) {
	broken := errors.New("checkpoint before r1/gin/user/c5: connection refused")
	lc := newLoopCase("", func(windowTry) windowOutcome { return fatal(broken) })
	cur, err := lc.run(context.Background())
	if !errors.Is(err, broken) || len(lc.journal) != 0 || cur != lc.first {
		t.Errorf("error %v, %d journaled, server kept %v; want the harness's error, nothing journaled, the server", err, len(lc.journal), cur == lc.first)
	}
}

// A run stopped between two tries of a window resumes it: the journal's
// tries are read back, the window is not done, and the next try is
// numbered after the journaled ones.
func TestTriesResume(t *testing.T) {
	dir := t.TempDir()
	w := plan.Window{Key: "r1/gin/user/c5", Round: 1, Stack: "gin", Case: "user", Concurrency: 5}
	p := &plan.Plan{Fingerprint: "f1", Windows: []plan.Window{w}}
	newRunner := func(resume bool, ex windowExecutor) *runner {
		r := &runner{opt: Options{File: &plan.File{}, Plan: p, Dir: dir, Resume: resume},
			serving: serving{seq: map[string]int{}}, resumeState: resumeState{latencyDone: map[string]bool{}, latencyRates: map[string]journal.LatencyRate{}},
			out: &Outcome{Dir: dir, Flagged: map[journal.Flag]int{}}, progress: newProgress(io.Discard, false, 0), measuring: measuring{exec: ex}}
		if err := r.openJournal(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	k := &fakeKeeper{}
	cur, _ := k.newServer(context.Background(), plan.Stack{Name: "gin"}, 1)
	stopped := errors.New("interrupted")

	ex1 := &fakeExec{script: []func(windowTry) windowOutcome{disturbedTry, func(windowTry) windowOutcome { return fatal(stopped) }}}
	r1 := newRunner(false, ex1)
	l1 := &retryLoop{exec: ex1, hosts: k, record: r1.journalWindow, attempts: r1.attempts, dbHost: k.dbHost}
	if _, err := l1.run(context.Background(), []windowSide{{w: w, srv: cur}}); !errors.Is(err, stopped) {
		t.Fatalf("first invocation: %v; want it stopped", err)
	}
	r1.jw.Close()

	ex2 := &fakeExec{script: []func(windowTry) windowOutcome{measured}}
	r2 := newRunner(true, ex2)
	defer r2.jw.Close()
	if r2.done[w.Key] || r2.attempts[w.Key] != 1 {
		t.Fatalf("resumed: done %v, attempts %d; want not done after 1 journaled try", r2.done[w.Key], r2.attempts[w.Key])
	}
	l2 := &retryLoop{exec: ex2, hosts: k, record: r2.journalWindow, attempts: r2.attempts, dbHost: k.dbHost}
	if _, err := l2.run(context.Background(), []windowSide{{w: w, srv: cur}}); err != nil {
		t.Fatal(err)
	}
	if got := ex2.tries[0].sides[0].attempt; got != 2 {
		t.Errorf("the resumed try is attempt %d; want 2 (the interrupted attempt 2 was never journaled)", got)
	}
	if !r2.done[w.Key] || r2.out.Measured != 1 {
		t.Errorf("done %v, measured %d; want the window done by the resumed invocation", r2.done[w.Key], r2.out.Measured)
	}
	res, err := journal.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range res.Windows {
		got = append(got, fmt.Sprintf("%d %v", rec.Attempt, rec.Final))
	}
	if strings.Join(got, ", ") != "1 false, 2 true" {
		t.Errorf("the journal holds tries %v; want 1 false, 2 true", got)
	}
}
