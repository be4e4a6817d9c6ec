package run

import (
	"context"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
)

// A site is where a run's servers run and its load comes from: this
// machine (localSite) or the hosts of roles: (hostsSite, the servers on
// the server host and the load from the generator hosts). The phases
// start servers, launch load and sample through it, and none knows which
// it has. What a site keeps of a server (a *proc.Process here, an agent's
// name there) stays in the site: a server crosses the seam as its
// serverTree, plain data and a lifecycle.
type site interface {
	// startServer starts a fresh process of st as plan process
	// planProcess (-1 outside the plan's windows) and runs the workload's
	// setup steps on it.
	startServer(ctx context.Context, st plan.Stack, planProcess int) (*server, error)
	// stopServer stops s's process tree and forgets it.
	stopServer(s *server) error
	// launch starts side's load stream against its server, sampling
	// every process tree over the window, and returns it under way; it
	// records in rec what it alone knows.
	launch(ctx context.Context, side windowSide, rec *journal.Window) (launched, error)
	// ownGroups are the sampler groups, on this machine, of what the run
	// keeps up beside the harness and the database while cur serves: cur
	// itself, its services, its idle peers of an interleaved round, the
	// container runtime. The gate counts them as the run's, not foreign.
	// None when the servers run on another host.
	ownGroups(ctx context.Context, cur *server) []proc.Group
	// serverHost is where the servers run: name "" and addr 127.0.0.1
	// for this machine, else the server host's name and the address
	// this machine reaches it at.
	serverHost() (name, addr string)
}

// siteParts is what a site is handed of the run, and all it sees of it:
// the run's options and progress line, the database (databaseState), its
// servers' bookkeeping (serving), where windows are measured (measuring:
// the fleet of hosts, the host-speed probe) and the run's journal events.
// A site never holds the run's whole state (what is done, the journal's
// writer, the outcome).
type siteParts struct {
	opt      *Options
	progress *progress
	*databaseState
	*serving
	*measuring
	// event journals an event of the run (a warning, with the stack it
	// concerns).
	event func(level journal.Level, stack, format string, a ...any)
}

// stopServer stops s on the site the run measures on; a failure is a
// warning.
func (p siteParts) stopServer(s *server) {
	if s == nil {
		return
	}
	if err := p.site.stopServer(s); err != nil {
		p.event(journal.LevelWarning, s.stack.Name, "stopping %s: %v", s.stack.Name, err)
	}
}
