package run

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stack"
)

// runDatabase begins the names of the run's databases: each stack gets a
// fresh copy of the seeded template of its own for the whole run
// (stackbench_run_<id>_1, _2, … in the plan's order), so a run never
// measures a database a user has been writing to, and no stack meets the
// rows another stack's setup steps or windows made (docs/workloads.md).
// The id is the run's own (newRunDatabase), journaled with the plan: two
// runs on one server never drop or write each other's copies, and a
// resume makes its copies under the names the run began with. A journal
// without it (written before) resumes with runDatabase alone.
const runDatabase = "stackbench_run"

// newRunDatabase returns the beginning of a new run's database names:
// runDatabase and eight random hex digits.
func newRunDatabase() string {
	b := make([]byte, 4)
	rand.Read(b) // never fails (crypto/rand)
	return runDatabase + "_" + hex.EncodeToString(b)
}

// DBPathFile names, in the results directory, the file that holds the
// embedded cluster's directory, so that a resumed run finds the cluster
// again (still running after kill -9, or stopped after Ctrl-C).
const DBPathFile = "embedded-db.path"

// setupDatabase brings up the embedded cluster or connects to the user's
// server, and makes the run's copy of the seed. The embedded cluster lives
// in a temporary directory the database's account can reach (a results
// directory under /root would not be, when stackbench runs as root).
//
// When roles: database: names a host, call setupRemoteDatabase instead,
// with that host's agent session.
func (r *runner) setupDatabase(ctx context.Context) error {
	if !r.opt.Plan.NeedsDatabase {
		return nil
	}
	if h := databaseHost(r.opt.File); h != "" {
		return fmt.Errorf("the database goes on host %s: run starts it there with setupRemoteDatabase, not here", h)
	}
	t0 := time.Now()
	pathFile := filepath.Join(r.opt.Dir, DBPathFile)
	dir := ""
	if b, err := os.ReadFile(pathFile); err == nil {
		if prev := strings.TrimSpace(string(b)); prev != "" {
			dir = keptCluster(prev, r.event)
		}
	}
	r.fixture = stack.Fixture(r.opt.File.Workload.Name, r.opt.File.Fixture, logsDir(r.opt.Dir))
	opt := r.linkDatabase()
	opt.Dir, opt.CPUs = dir, r.opt.Plan.Protocol.Placement.Lanes().Database
	d, err := stack.OpenStacksDatabase(ctx, r.opt.Plan.Database, opt, r.fixture, r.opt.Plan.Stacks, logsDir(r.opt.Dir), func(s string) { r.progress.logf("%s", s) })
	if err != nil {
		return err
	}
	r.database = d
	if d.Cluster != nil {
		if err := writeDBPath(r.opt.Dir, d.Cluster.Dir()); err != nil {
			return err
		}
		if ca := d.Cluster.CACertPEM(); ca != nil {
			r.progress.logf("database: listening on %s (port %d) for host %s, over TLS", opt.Listen, d.Cluster.Port(), r.opt.File.Roles.Server)
			if _, err := r.keepDatabaseCA(ca); err != nil {
				return err
			}
		}
	}
	return r.openRunDatabase(ctx, t0)
}

// linkDatabase says where the embedded cluster here listens: on
// 127.0.0.1 only, as without roles, unless roles: puts the servers on a
// host, which must reach it. Then it listens on this machine's address
// on the link to the server host (the local end of its SSH session, as
// generator hosts reach servers here), names that address in its URLs,
// speaks TLS only beyond loopback (a throwaway CA: keepDatabaseCA sends
// it to the server host) and admits the server host and this machine
// alone (pg_hba.conf).
func (r *runner) linkDatabase() pgfix.Options {
	roles := r.opt.File.Roles
	if r.fleet == nil || roles == nil || roles.Server == "" {
		return pgfix.Options{}
	}
	s := r.fleet.sessions[roles.Server]
	if s == nil {
		return pgfix.Options{}
	}
	here := s.Conn.LocalIP()
	return pgfix.Options{Listen: here, Host: here, Clients: []string{r.fleet.addr(roles.Server), here}}
}

// openRunDatabase makes each stack's copy of the template on r.database
// and opens the connections the operations between windows use. r.db and
// r.dbURL are the first stack's, for what concerns the whole server
// (its processes, statement statistics, settings).
func (r *runner) openRunDatabase(ctx context.Context, t0 time.Time) error {
	r.stackDBs = map[string]*stackDB{}
	for i, s := range r.opt.Plan.Stacks {
		url, err := r.database.FreshFor(ctx, s, fmt.Sprintf("%s_%d", r.runDatabase, i+1))
		if err != nil {
			return err
		}
		db, err := pgfix.Open(ctx, url)
		if err != nil {
			return err
		}
		r.stackDBs[s.Name] = &stackDB{url: url, db: db}
		if i == 0 {
			r.dbURL, r.db = url, db
		}
	}
	r.progress.logf("database: %d copies (one per stack: %s_1, …) ready in %.1fs", len(r.stackDBs), r.runDatabase, time.Since(t0).Seconds())
	return nil
}

// stackDB is a stack's own copy of the template, and the connection to it.
type stackDB struct {
	url string
	db  *pgfix.DB
}

// dbOf returns the URL of stack's database and the connection to it ("",
// nil without a database).
func (r *databaseState) dbOf(stack string) (string, *pgfix.DB) {
	if d, ok := r.stackDBs[stack]; ok {
		return d.url, d.db
	}
	return r.dbURL, r.db
}

// databaseName returns the name of the database a URL names ("" when
// it names none).
func databaseName(u string) string {
	if pu, err := url.Parse(u); err == nil {
		return strings.TrimPrefix(pu.Path, "/")
	}
	return ""
}

// remoteDatabase is the embedded cluster on the database host of roles:,
// run by that host's agent. It lives as long as the agent's session: when
// the session drops, the agent stops and removes it.
type remoteDatabase struct {
	// name is the database host's.
	name  string
	agent *agent.Client
	info  agent.DatabaseInfo
	logf  func(format string, a ...any)
}

// databaseHost is the host roles: database: names in f; "" for this
// machine (or the user's server, given by URL).
func databaseHost(f *plan.File) string {
	if f == nil || f.Roles == nil {
		return ""
	}
	return f.Roles.Database
}

// setupRemoteDatabase is setupDatabase for roles: database: HOST. The agent
// a, of that host, starts the embedded cluster there (pgfix, as here, in a
// temporary directory), listening on every address with SCRAM password
// authentication and a random password, over TLS verified against a
// throwaway CA (trustDatabaseCA); its URLs name addr, the address this
// machine reaches the host at, which the server host must reach too.
// The template (the saas-slice seed or the workload's fixture) is built
// from here over that URL, as on a server of the user's, and the resets,
// checkpoints and statistics between windows go over it.
func (r *runner) setupRemoteDatabase(ctx context.Context, a *agent.Client, host, addr string) error {
	if !r.opt.Plan.NeedsDatabase {
		return nil
	}
	t0 := time.Now()
	r.progress.logf("database: starting an embedded PostgreSQL cluster on host %s", host)
	info, err := a.StartDatabase(ctx, agent.DatabaseSpec{Host: addr, Clients: r.fleet.addrs()})
	if err != nil {
		return fmt.Errorf("embedded database on host %s: %w", host, err)
	}
	rdb := &remoteDatabase{name: host, agent: a, info: info, logf: r.progress.logf}
	r.dbs = rdb
	r.progress.logf("database: %s on host %s, port %d (%s)", info.Version, host, info.Port, info.Binaries)
	if info.AdminURL, err = r.trustDatabaseCA(info); err != nil {
		return fmt.Errorf("embedded database on host %s: %w", host, err)
	}
	r.fixture = stack.Fixture(r.opt.File.Workload.Name, r.opt.File.Fixture, logsDir(r.opt.Dir))
	d, err := stack.OpenStacksDatabase(ctx, info.AdminURL, pgfix.Options{}, r.fixture, r.opt.Plan.Stacks, logsDir(r.opt.Dir), func(s string) { r.progress.logf("%s", s) })
	if err != nil {
		return fmt.Errorf("embedded database on host %s: %w", host, err)
	}
	r.database = d
	return r.openRunDatabase(ctx, t0)
}

// dbStats snapshots the database state of stack's copy around a window.
func (r *runner) dbStats(ctx context.Context, stack string) *journal.DBStats {
	_, db := r.dbOf(stack)
	if db == nil {
		return nil
	}
	s, err := db.Stats(ctx)
	if err != nil {
		r.event(journal.LevelWarning, "", "database statistics: %v", err)
		return nil
	}
	return &journal.DBStats{
		Checkpoints:           s.Checkpoints,
		OrdersRows:            s.OrdersRows,
		OrdersLiveTuples:      s.OrdersLiveTuples,
		OrdersDeadTuples:      s.OrdersDeadTuples,
		OrdersSizeBytes:       s.OrdersSizeBytes,
		OrdersAutovacuumCount: s.OrdersAutovacuumCount,
	}
}

// writeDBPath writes DBPathFile in the results directory dir, naming the
// cluster directory cluster; a link in its place is refused, not followed.
func writeDBPath(dir, cluster string) error {
	return fileutil.WriteIn(dir, DBPathFile, []byte(cluster+"\n"), privateFileMode)
}

// keptCluster returns prev, the cluster directory a results directory
// names, when it is one a run of this user made (pgfix.CheckTempCluster:
// owned by this user, writable by nobody else), and "" (a new
// cluster) otherwise, said through event: a results directory is data,
// and the directory it names is reused and, once the run is done, removed.
func keptCluster(prev string, event func(level journal.Level, stack, format string, a ...any)) string {
	err := pgfix.CheckTempCluster(prev)
	if err == nil {
		return prev
	}
	if _, serr := os.Lstat(prev); serr == nil {
		event(journal.LevelWarning, "", "%s names %s, which is not a cluster directory this user's run made in %s (%v): not used; starting a new cluster", DBPathFile, prev, os.TempDir(), err)
	}
	return ""
}

// addrs are the addresses of every host of the file: the database host
// admits these (and the coordinator) and nobody else.
func (fl *fleet) addrs() []string {
	if fl == nil {
		return nil
	}
	var out []string
	for _, h := range fl.hosts {
		out = append(out, h.Addr)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// trustDatabaseCA writes the CA of the database on its own host to a
// private directory here (keepDatabaseCA) and returns its admin URL
// verified against that file: the URL the agent gave names the file on
// its host. A database without TLS (an agent that gave no CA) is
// returned as it is.
func (r *runner) trustDatabaseCA(info agent.DatabaseInfo) (string, error) {
	if info.CACert == "" {
		return info.AdminURL, nil
	}
	path, err := r.keepDatabaseCA([]byte(info.CACert))
	if err != nil {
		return "", err
	}
	return pgfix.WithRootCert(info.AdminURL, path)
}

// keepDatabaseCA writes the database's CA (PEM) alone in a private
// directory here, dbCADir, which is copied to the server host for its
// stacks' DATABASE_URL (hostsSite.remoteHarness), and returns the file's
// path.
func (r *runner) keepDatabaseCA(ca []byte) (string, error) {
	dir, err := r.poolRoot.sub("database-ca")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "ca.crt")
	if err := fileutil.WritePath(path, ca, privateFileMode); err != nil {
		return "", fmt.Errorf("write the database's CA: %w", err)
	}
	r.dbCADir = dir
	return path, nil
}

// teardownDatabase closes the run's connections (each stack's) and stops
// the database.
func (r *runner) teardownDatabase(completed bool) {
	for _, d := range r.stackDBs {
		d.db.Close()
	}
	r.stackDBs, r.db = nil, nil
	r.dbs.teardown(completed)
	r.dbs = hereDatabase{r.siteParts()}
}
