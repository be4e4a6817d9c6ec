package live

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
)

// Phases of a run as the journal shows them, in order.
const (
	PhaseStarting  = "database and builds"
	PhaseParity    = "parity"
	PhaseBoot      = "cold starts"
	PhaseRounds    = "rounds"
	PhaseCapacity  = "capacity"
	PhaseProfiling = "profiling"
	PhaseFinished  = "finished"
	PhaseStopped   = "stopped"
)

// Progress is where a run stands, read from its journal alone.
type Progress struct {
	Phase string
	// WindowsDone counts the planned windows that have a final try;
	// WindowsPlanned the windows planned so far (an adaptive run adds
	// rounds as it goes).
	WindowsDone, WindowsPlanned int
	// Round is the round being measured (the round of the first planned
	// window without a final try; the last round when all are done),
	// Rounds the last planned round; RoundsDone the rounds complete.
	Round, Rounds, RoundsDone int
	// Adaptive is true under rounds: auto: more rounds may be planned.
	Adaptive bool
	// ETA is the time the windows left should take at the pace so far;
	// 0 when nothing has been measured yet.
	ETA time.Duration
	// Redone counts the tries that were redone, by their first flag
	// (contended, suspended, server_died, …); RedoReasons are the latest
	// few reasons, newest last.
	Redone      map[string]int
	RedoReasons []string
	// LastRecord is the time of the journal's latest window.
	LastRecord time.Time
}

// Fraction is the share of the planned windows done, 0 to 1.
func (p Progress) Fraction() float64 {
	if p.WindowsPlanned == 0 {
		return 0
	}
	return float64(p.WindowsDone) / float64(p.WindowsPlanned)
}

// RedoLine says in one line how many windows were redone and why:
// "3 redone: contended 2, server_died 1"; "" when none was.
func (p Progress) RedoLine() string {
	n := 0
	var keys []string
	for k, c := range p.Redone {
		n += c
		keys = append(keys, k)
	}
	if n == 0 {
		return ""
	}
	sort.Slice(keys, func(i, j int) bool {
		if p.Redone[keys[i]] != p.Redone[keys[j]] {
			return p.Redone[keys[i]] > p.Redone[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, p.Redone[k])
	}
	return fmt.Sprintf("%d redone: %s", n, strings.Join(parts, ", "))
}

// progressOf reads the progress of the run whose journal res holds;
// finished says that the run has ended (its results.json is written and
// no process holds the directory), stopped that no process holds it and
// it did not finish.
func progressOf(res *journal.Results, finished, stopped bool) Progress {
	p := Progress{Redone: map[string]int{}}
	if res.Plan != nil {
		p.Adaptive = res.Plan.Plan.Protocol.Adaptive
	}
	final := map[string]bool{}
	var first, last time.Time
	note := func(ws []journal.Window) {
		for _, w := range ws {
			if w.Final {
				final[w.Key] = true
			} else {
				p.Redone[redoCause(w)]++
				if len(w.Reasons) > 0 {
					p.RedoReasons = append(p.RedoReasons, w.Key+": "+w.Reasons[0])
				}
			}
			if !w.StartedAt.IsZero() && (first.IsZero() || w.StartedAt.Before(first)) {
				first = w.StartedAt
			}
			if w.EndedAt.After(last) {
				last = w.EndedAt
			}
		}
	}
	note(res.Windows)
	note(res.Latency)
	if n := len(p.RedoReasons); n > 3 {
		p.RedoReasons = p.RedoReasons[n-3:]
	}
	p.LastRecord = last
	planned := res.PlannedWindows()
	p.WindowsPlanned = len(planned)
	doneByRound := map[int]int{}
	allByRound := map[int]int{}
	for _, w := range planned {
		allByRound[w.Round]++
		p.Rounds = max(p.Rounds, w.Round)
		if final[w.Key] {
			p.WindowsDone++
			doneByRound[w.Round]++
		} else if p.Round == 0 {
			p.Round = w.Round
		}
	}
	if p.Round == 0 {
		p.Round = p.Rounds
	}
	for r, n := range allByRound {
		if doneByRound[r] == n {
			p.RoundsDone++
		}
	}
	if p.WindowsDone > 0 && last.After(first) {
		per := last.Sub(first) / time.Duration(p.WindowsDone)
		p.ETA = per * time.Duration(p.WindowsPlanned-p.WindowsDone)
	}
	p.Phase = phaseOf(res, p, finished, stopped)
	return p
}

// redoCause names why a try was redone: its first flag, or "redone"
// when it carries none.
func redoCause(w journal.Window) string {
	if len(w.Flags) > 0 {
		return string(w.Flags[0])
	}
	return "redone"
}

// phaseOf names the phase the journal shows: each phase's first record
// moves it on.
func phaseOf(res *journal.Results, p Progress, finished, stopped bool) string {
	switch {
	case finished:
		return PhaseFinished
	case stopped:
		return PhaseStopped
	case len(res.Profiling) > 0:
		return PhaseProfiling
	case len(res.Capacity.Probes) > 0:
		return PhaseCapacity
	case len(res.Windows) > 0 || len(res.Latency) > 0:
		if p.WindowsPlanned > 0 && p.WindowsDone == p.WindowsPlanned && res.Plan.Plan.Capacity != nil {
			return PhaseCapacity
		}
		return PhaseRounds
	case len(res.Parity) > 0 && res.Plan != nil:
		if res.Plan.Plan.Protocol.BootStarts > 0 && len(res.Boot) < len(res.Plan.Plan.Stacks) {
			return PhaseBoot
		}
		return PhaseRounds
	case len(res.Environments) > 0:
		if res.Plan != nil && res.Plan.SkipParity {
			return PhaseBoot
		}
		return PhaseParity
	}
	return PhaseStarting
}

// stackSeries is one stack's server CPU (cores) and memory (mean RSS) per
// final window, in the order the windows ended.
type stackSeries struct {
	Stack  string
	Points []seriesPoint
}

type seriesPoint struct {
	At       time.Time
	Cores    float64
	RSSBytes int64
}

// seriesOf gathers each stack's CPU and memory over time from the final
// tries, stacks in the plan's order.
func seriesOf(res *journal.Results) []stackSeries {
	var order []string
	if res.Plan != nil {
		for _, s := range res.Plan.Plan.Stacks {
			order = append(order, s.Name)
		}
	}
	by := map[string]*stackSeries{}
	for _, w := range res.Windows {
		if !w.Final || w.Load == nil {
			continue
		}
		s := by[w.Stack]
		if s == nil {
			s = &stackSeries{Stack: w.Stack}
			by[w.Stack] = s
			if !slices.Contains(order, w.Stack) {
				order = append(order, w.Stack)
			}
		}
		s.Points = append(s.Points, seriesPoint{At: w.EndedAt, Cores: w.Server.Cores, RSSBytes: w.Server.RSSMeanBytes})
	}
	var out []stackSeries
	for _, name := range order {
		if s := by[name]; s != nil {
			sort.SliceStable(s.Points, func(i, j int) bool { return s.Points[i].At.Before(s.Points[j].At) })
			out = append(out, *s)
		}
	}
	return out
}
