package run

import (
	"context"
	"errors"
	"fmt"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// retryLoop measures a window's tries until one is final, on the
// outcome of each (windowOutcome): a server that died is restarted and
// the window redone once; a try the host disturbed is redone within the
// gate's budget (the executor judges it, given the count so far); a
// host whose session dropped is reconnected and the window redone, at
// most maxLostRedos times, and never for the database host (its
// cluster went with the session). Every try is journaled with record,
// redone ones as not final.
type retryLoop struct {
	exec  windowExecutor
	hosts serverKeeper
	// record journals a try (journalWindow, journalLatency).
	record func(*journal.Window) error
	// attempts holds the tries so far per window key (from the journal
	// on a resume); the loop numbers each try with it.
	attempts map[string]int
	// dbHost is the host of the database cluster ("" here): a lost
	// session to it ends the run, the database with it.
	dbHost string
}

// serverKeeper is what the retry loop needs of the run: servers started
// and stopped, hosts reconnected, and events journaled.
type serverKeeper interface {
	// newServer starts a fresh process of st as plan process planProcess.
	newServer(ctx context.Context, st plan.Stack, planProcess int) (*server, error)
	stopServer(*server)
	// reconnect opens host's session again after it dropped; an error
	// wrapping ErrHostUnreachable when it stays unreachable.
	reconnect(ctx context.Context, host string) error
	event(level journal.Level, stack, format string, a ...any)
}

// run measures the window whose sides are given until a try is final and
// returns each side's server to go on with (nil for a side whose server
// died and could not be restarted). Only a broken harness, a cancelled
// context or a host that stays unreachable is an error.
func (l *retryLoop) run(ctx context.Context, sides []windowSide) ([]*server, error) {
	srvs := make([]*server, len(sides))
	for i, s := range sides {
		srvs[i] = s.srv
	}
	diedOnce := make([]bool, len(sides))
	disturbed := 0 // tries redone for the host (contended, suspended)
	lost := 0      // tries redone because a host's session dropped
	for {
		t := windowTry{judged: true, disturbed: disturbed}
		for i, s := range sides {
			l.attempts[s.w.Key]++
			s.srv, s.attempt = srvs[i], l.attempts[s.w.Key]
			t.sides = append(t.sides, s)
		}
		o := l.exec.execute(ctx, t)
		switch o.kind {
		case tryFatal:
			return srvs, o.err
		case tryHostLost:
			lost++
			var err error
			if srvs, err = l.afterLost(ctx, srvs, o, lost); err != nil {
				return srvs, err
			}
			continue
		}
		redo := o.kind == tryRedo
		if len(o.died) > 0 {
			var err error
			if redo, err = l.restart(ctx, srvs, o, diedOnce); err != nil {
				return srvs, err
			}
		} else if redo {
			disturbed++
		}
		for _, rec := range o.recs {
			rec.Final = !redo
			if err := l.record(rec); err != nil {
				return srvs, err
			}
		}
		if !redo {
			return srvs, nil
		}
	}
}

// restart stops and starts again the servers of o's sides that died,
// and says whether the window is redone: not when a side's server died
// a second time or could not be restarted (its record is failed then).
// A side whose server could not be restarted is left nil; the error is
// the context's, when it was cancelled meanwhile.
func (l *retryLoop) restart(ctx context.Context, srvs []*server, o windowOutcome, diedOnce []bool) (redo bool, err error) {
	redo = true
	for _, i := range o.died {
		rec, cur := o.recs[i], srvs[i]
		l.hosts.event(journal.LevelWarning, rec.Stack, "%s died during %s: %s", rec.Stack, rec.Key, rec.Error)
		l.hosts.stopServer(cur)
		again := diedOnce[i]
		if again {
			flagger{rec}.add(journal.FlagFailed, "the server died again after a restart; the cell is failed and the run goes on")
			redo = false
		}
		diedOnce[i] = true
		ns, err := l.hosts.newServer(ctx, cur.stack, cur.planProcess)
		if err != nil {
			srvs[i] = nil
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			l.hosts.event(journal.LevelWarning, rec.Stack, "restarting %s failed: %v", rec.Stack, err)
			if !again {
				flagger{rec}.add(journal.FlagFailed, "the server could not be restarted")
			}
			redo = false
			continue
		}
		srvs[i] = ns
	}
	return redo, nil
}

// afterLost journals a try whose host's session dropped as redone,
// reconnects to the host (or stops the run when it stays unreachable),
// and restarts each server that went with the session. It returns the
// servers to redo the window on.
func (l *retryLoop) afterLost(ctx context.Context, srvs []*server, o windowOutcome, lost int) ([]*server, error) {
	host := o.host
	for _, rec := range o.recs {
		rec.Final = false
		if err := l.record(rec); err != nil {
			return srvs, err
		}
	}
	key, stack := o.recs[0].Key, o.recs[0].Stack
	l.hosts.event(journal.LevelWarning, stack, "the session with host %s dropped during %s; reconnecting to redo it", host, key)
	if host == l.dbHost {
		return srvs, fmt.Errorf("%w: the session with the database host %s dropped during %s, and the embedded cluster went with it; continue with --resume, which starts and seeds a fresh one", ErrHostUnreachable, host, key)
	}
	if lost > maxLostRedos {
		return srvs, fmt.Errorf("%w: the session with host %s dropped during %s %d times; check the network to it", ErrHostUnreachable, host, key, lost)
	}
	if err := l.hosts.reconnect(ctx, host); err != nil {
		return srvs, err
	}
	for i, cur := range srvs {
		if cur.tree.Check() == nil && cur.host != host {
			continue
		}
		ns, err := l.hosts.newServer(ctx, cur.stack, cur.planProcess)
		if err != nil {
			return srvs, fmt.Errorf("restart %s on %s after its session dropped: %w", cur.stack.Name, host, err)
		}
		srvs[i] = ns
	}
	return srvs, nil
}

// reconnect is serverKeeper's: the fleet's session with host, opened
// again.
func (r *runner) reconnect(ctx context.Context, host string) error {
	if r.fleet == nil {
		return errors.New("no hosts to reconnect to")
	}
	_, err := r.fleet.session(ctx, host)
	return err
}

// tries measures plan window w on cur with ls until a try is final,
// journaling each with record, and returns the server to go on with.
func (ph *roundsPhase) tries(ctx context.Context, cur *server, w plan.Window, ls loadStream, record func(*journal.Window) error) (*server, error) {
	r := ph.r
	l := &retryLoop{exec: r.exec, hosts: r, record: record, attempts: r.attempts, dbHost: databaseHost(r.opt.File)}
	srvs, err := l.run(ctx, []windowSide{{w: w, srv: cur, load: ls}})
	return srvs[0], err
}
