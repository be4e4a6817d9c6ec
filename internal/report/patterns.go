package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/profiling"
)

// A profile window often shows one of a few known causes of a cost. The
// patterns below name them in words, each with the figure that shows it,
// so that `stackbench explain` says what a reader would otherwise have to
// find in the tables (docs/profiles.md, "Known patterns").

// Finding is a known pattern seen in one profile window.
type Finding struct {
	// Pattern is the pattern's stable name: connection_per_request,
	// statement_per_request, gc_share, lock_waits.
	Pattern string `json:"pattern"`
	// Text says it in words, with the figure.
	Text string `json:"text"`
}

// The thresholds past which a pattern is named: below them the figure is
// ordinary, or too small to act on.
const (
	// connectionShare is the share of PostgreSQL's CPU per request spent
	// starting backends.
	connectionShare = 0.10
	// statementCalls is how many times one statement runs per request.
	statementCalls = 2.0
	// gcShare is the Go runtime's share (allocation, GC, scheduler) of
	// the server's CPU per request.
	gcShare = 0.25
	// lockShare is the share of a process's CPU per request in lock
	// acquisition and waits.
	lockShare = 0.10
)

// backendStart are PostgreSQL's functions that run once per new
// connection: the backend's start-up, authentication and its caches' first
// fill, and the postmaster's fork of it.
var backendStart = []string{"BackendInitialize", "InitPostgres", "PerformAuthentication", "ProcessStartupPacket", "InitProcess", "RelationCacheInitializePhase3", "fork_process"}

// lockFunctions are lock acquisition and waiting, in Go's runtime and
// sync package and in PostgreSQL.
var lockFunctions = []string{"sync.(*Mutex).lockSlow", "sync.(*RWMutex).RLock", "runtime.lock2", "runtime.semacquire1", "runtime.futexsleep",
	"LWLockAcquire", "LockAcquireExtended", "ProcSleep", "s_lock", "futex_wait"}

// findPatterns names the known patterns in one profile window, given its
// summaries by source (profiledCell).
func findPatterns(pc ProfiledCell, sums map[string]profiling.Summary) []Finding {
	var out []Finding
	if db, ok := sums["perf_database"]; ok && pc.DatabaseCPUMicrosPerRequest > 0 {
		if f, us := cumOfAny(db, backendStart); us >= connectionShare*pc.DatabaseCPUMicrosPerRequest {
			out = append(out, Finding{"connection_per_request", fmt.Sprintf(
				"a new database connection per request: PostgreSQL spends %s of its %s µs per request starting backends (%s and the like); the app does not keep its connections — size its pool so that they are reused (database/sql: SetMaxIdleConns at or above the concurrency; pgxpool: MinConns)",
				num(us), num(pc.DatabaseCPUMicrosPerRequest), f)})
		}
	}
	var statementUs float64
	for _, s := range pc.Statements {
		statementUs += s.MicrosPerRequest
	}
	for _, s := range pc.Statements {
		if s.CallsPerRequest >= statementCalls && s.MicrosPerRequest >= 0.2*statementUs {
			out = append(out, Finding{"statement_per_request", fmt.Sprintf(
				"one statement runs %.1f times per request (%s µs of the statements' %s): %s — a query per item (N+1); fetch the items in one statement (a join, or WHERE id = ANY($1))",
				s.CallsPerRequest, num(s.MicrosPerRequest), num(statementUs), oneLine(s.Query, 80))})
			break
		}
	}
	if cpu, ok := sums["go_cpu"]; ok && cpu.Total > 0 {
		var rt float64
		for _, f := range cpu.Functions {
			if f.Group == profiling.GroupRuntime {
				rt += f.Flat
			}
		}
		if rt >= gcShare*cpu.Total {
			text := fmt.Sprintf("the Go runtime (allocation, GC, scheduler) takes %.0f %% of the server's CPU: %s of %s µs per request", 100*rt/cpu.Total, num(rt), num(cpu.Total))
			if a, ok := sums["go_alloc_objects"]; ok && a.Total > 0 {
				text += fmt.Sprintf(", with %s heap objects allocated per request; the allocation profile names where", num(a.Total))
			}
			out = append(out, Finding{"gc_share", text})
		}
	}
	for _, src := range []string{"go_cpu", "perf_server", "perf_database"} {
		s, ok := sums[src]
		if !ok || s.Total <= 0 {
			continue
		}
		if f, us := cumOfAny(s, lockFunctions); us >= lockShare*s.Total {
			out = append(out, Finding{"lock_waits", fmt.Sprintf("lock waits: %s of %s µs per request (%.0f %%) in %s (%s): requests queue on a lock",
				num(us), num(s.Total), 100*us/s.Total, f, sourceLabel(src))})
			break
		}
	}
	return out
}

// cumOfAny is the largest cumulative figure per request among the
// functions named (by their last dotted part or in full), and that
// function's name; nested ones are not added, so nothing counts twice.
func cumOfAny(s profiling.Summary, names []string) (string, float64) {
	best, at := 0.0, ""
	for _, f := range s.Functions {
		short := f.Name
		if i := strings.LastIndex(short, "/"); i >= 0 {
			short = short[i+1:]
		}
		if slices.Contains(names, f.Name) || slices.Contains(names, short) {
			if f.Cum > best {
				best, at = f.Cum, f.Name
			}
		}
	}
	return at, best
}
