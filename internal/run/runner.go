package run

import (
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/stack"
)

// runner is the state of one run invocation: its options, outcome,
// progress line and journal writer, then its state in groups of their
// own (each embedded, so a phase reads r.done or r.dbURL as before):
// what the journal says is done (resumeState), the database
// (databaseState), the servers it keeps (serving) and where windows are
// measured (measuring). The sites are handed siteParts, never the runner.
type runner struct {
	opt      Options
	out      *Outcome
	progress *progress
	jw       *journal.Writer

	resumeState
	databaseState
	serving
	measuring

	// paceWarned holds the looks the budget was said not to reach
	// (pace.go), each said once.
	paceWarned map[int]bool
	hooks      testHooks
}

// resumeState is what the journal says the run has done: read back on a
// resume (resume.go), kept up as records are appended.
type resumeState struct {
	// done holds the keys of windows whose final record is journaled,
	// attempts the tries per key (both from the journal on a resume).
	done     map[string]bool
	attempts map[string]int
	bootDone bool
	// envCount is the number of environment records in the journal; the
	// newest is the one the windows of this invocation refer to.
	envCount int
	// adaptiveStopped is true once an adaptive run journaled why its extra
	// rounds ended (a journal.Round with Stop).
	adaptiveStopped bool
	// capacityLeft counts the capacity searches a resumed run has still to
	// end (capacity.go).
	capacityLeft int
	// profilingLeft counts the profile windows a resumed run has still to
	// measure (profiling.go).
	profilingLeft int
	// latencyDone holds the keys of latency windows whose final try is
	// journaled, latencyRates each case and concurrency's journaled rate
	// (latency.go).
	latencyDone  map[string]bool
	latencyRates map[string]journal.LatencyRate
	// completed is true once every phase ended: the teardown then removes
	// what only a resume would need (the embedded cluster).
	completed bool
}

// databaseState is the run's database (database.go): the server, the
// connections, the stacks' copies and where it runs.
type databaseState struct {
	database *stack.Database
	// fixture is a custom workload's own database; nil for the seed.
	fixture *pgfix.Fixture
	dbURL   string
	db      *pgfix.DB
	// runDatabase begins the names of the stacks' copies (database.go):
	// new for a new run, the journal's on a resume.
	runDatabase string
	// stackDBs holds each stack's own copy of the template, by stack
	// (database.go); dbURL and db are the first stack's.
	stackDBs map[string]*stackDB
	// dbs is where the database runs (database_site.go): here, or the
	// embedded cluster on the database host of roles:.
	dbs databaseSite
	// dbCADir holds, alone, the CA (ca.crt) the database on its own host
	// is verified by (sslmode=verify-full); "" when the database speaks no
	// TLS. It is copied to a server host for the stacks there.
	dbCADir string
}

// serving is what the run keeps of its servers' processes.
type serving struct {
	// seq counts the processes started per stack over the run; a resume
	// goes on from the journal's count (journal.ProcessInfo.Seq).
	seq map[string]int
	// poolRoot is where the request pools go (private.go).
	poolRoot poolRoot
	// live holds the server processes up while windows are measured, by
	// stack: one in a grouped round, every stack's of the round in an
	// interleaved one (all but the one serving a window are idle).
	live map[string]*server
	// pools are the request pools the generators send (scenario.go).
	pools *requestPools
}

// measuring is where and how windows are measured.
type measuring struct {
	// watch is the contention gate and the host-speed probe
	// (contention.go).
	watch *hostWatch
	// fleet holds the sessions with the hosts of roles: (hosts.go); nil
	// when every role runs here.
	fleet *fleet
	// exec measures each try of a window (window.go) on site, where the
	// servers run and the load comes from (site.go): this machine until
	// hostsPhase opens the hosts of roles:.
	exec windowExecutor
	site site
}

// siteParts hands a site the parts of the run it works with.
func (r *runner) siteParts() siteParts {
	return siteParts{opt: &r.opt, progress: r.progress, databaseState: &r.databaseState, serving: &r.serving, measuring: &r.measuring, event: r.event}
}

// teardown stops the database; the servers are stopped by the loop that
// started them.
func (r *runner) teardown() {
	r.teardownDatabase(r.completed)
	r.poolRoot.remove()
	if err := stack.RemoveTLSKey(logsDir(r.opt.Dir)); err != nil {
		r.event(journal.LevelWarning, "", "%v", err)
	}
}
