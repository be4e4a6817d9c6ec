package run

import (
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/platform/local"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/remote"
	"github.com/stackbench/stackbench/internal/remote/sshtest"
	"github.com/stackbench/stackbench/internal/workload"
)

// The embedded database on a host of its own (a network namespace with
// sshd): its agent starts the cluster, the template is seeded from here
// over the host's address and over TLS (sslmode=verify-full against the
// CA the host made; a client without TLS is refused), the operations
// between windows (reset,
// checkpoint, statistics) go over it, the database's processes are
// sampled by the agent on that host and not here, and the teardown stops
// and removes the cluster.
func TestDatabaseOnItsOwnHost(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	n := sshtest.Start(t, "db1")
	sshtest.PlaceAgentOf(t, stackbenchBin) // the copy over SSH is internal/remote's to test
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h := n.Host("db1")
	s, err := remote.Connect(ctx, remote.Host{Name: "db1", User: n.User, Addr: h.Addr, Port: h.Port, Identity: n.Identity},
		remote.Options{KnownHosts: []string{n.KnownHosts}, Binary: stackbenchBin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	w, _ := workload.Builtin("saas-slice", "secret")
	r := &runner{
		opt: Options{Dir: t.TempDir(),
			File: &plan.File{Workload: w, Roles: &plan.Roles{Database: "db1"}},
			Plan: &plan.Plan{NeedsDatabase: true, Stacks: []plan.Stack{{Name: "a"}}}},
		progress:      newProgress(io.Discard, false, 0),
		databaseState: databaseState{runDatabase: newRunDatabase()},
	}
	if err := r.setupDatabase(ctx); err == nil || !strings.Contains(err.Error(), "host db1") {
		t.Fatalf("setupDatabase with the database on db1 = %v; want a refusal naming the host", err)
	}
	if err := r.setupRemoteDatabase(ctx, s.Agent, "db1", h.Addr); err != nil {
		t.Fatal(err)
	}
	torn := false
	defer func() {
		if !torn {
			r.teardownDatabase(true)
		}
	}()
	info := r.dbs.(*remoteDatabase).info
	u, err := url.Parse(r.dbURL)
	if err != nil || u.Hostname() != h.Addr || u.Path != "/"+r.runDatabase+"_1" {
		t.Fatalf("the run's database URL is %s; want database %s_1 at the host's address %s", pgfix.Redact(r.dbURL), r.runDatabase, h.Addr)
	}
	// Over TLS, verified against a copy here of the CA the host made.
	if q := u.Query(); q.Get("sslmode") != "verify-full" || filepath.Dir(q.Get("sslrootcert")) != r.dbCADir || r.dbCADir == "" {
		t.Fatalf("the run's database URL says %s; want sslmode=verify-full with the CA in %q", q, r.dbCADir)
	}
	if ca, err := os.ReadFile(filepath.Join(r.dbCADir, "ca.crt")); err != nil || string(ca) != info.CACert || info.CACert == "" {
		t.Fatalf("the database's CA here: %v; want the CA the agent gave", err)
	}
	plain := *u
	plain.RawQuery = "sslmode=disable"
	if conn, err := pgx.Connect(ctx, plain.String()); err == nil {
		conn.Close(ctx)
		t.Fatal("the database on db1 let a client in without TLS")
	}

	if err := r.db.ResetOrders(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.db.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	st := r.dbStats(ctx, "a")
	if st == nil || st.OrdersRows != pgfix.SeedOrders || st.Checkpoints < 1 {
		t.Fatalf("database statistics over the network = %+v; want %d orders and the checkpoint", st, pgfix.SeedOrders)
	}

	if _, ok := r.dbs.group(ctx); ok {
		t.Fatal("the database on db1 is sampled here")
	}
	from := time.Now().Add(20 * time.Millisecond) // one clock: the namespaces share it
	host := r.dbs.host()
	smp, ok, err := r.dbs.sample(ctx, from, from.Add(300*time.Millisecond))
	if err != nil || !ok || host != "db1" || smp.RSSPeakBytes <= 0 || smp.Wall <= 0 {
		t.Fatalf("remote sample = %+v on %q (ok %v), %v; want db1's postmaster tree", smp, host, ok, err)
	}

	r.teardownDatabase(true)
	torn = true
	if r.dbs.host() != "" {
		t.Fatal("teardown kept the remote database")
	}
	// The namespaces share this machine's processes and files.
	deadline := time.Now().Add(10 * time.Second)
	for local.Alive(info.PostmasterPID) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if local.Alive(info.PostmasterPID) {
		t.Fatalf("postmaster %d runs after the teardown", info.PostmasterPID)
	}
	if _, err := os.Stat(info.Dir); err == nil {
		t.Fatalf("the cluster's directory %s is still there", info.Dir)
	}
}

// fakeDatabase is a database on a host of its own whose samples record
// the instants they were asked over.
type fakeDatabase struct {
	hereDatabase
	from, to time.Time
}

func (*fakeDatabase) host() string { return "db1" }
func (d *fakeDatabase) sample(_ context.Context, from, to time.Time) (agent.Sample, bool, error) {
	d.from, d.to = from, to
	return agent.Sample{CPUSeconds: 0.25, Cores: 0.5, RSSPeakBytes: 1 << 20}, true, nil
}

// A window loaded here samples the database on its host over the
// generator's measured window, announced ahead (measure_at), converted to
// that host's clock by its offset; the database's figures are its host's.
func TestFarSamplesFollowTheWindow(t *testing.T) {
	db := &fakeDatabase{}
	off := 37 * time.Millisecond
	r := &runner{databaseState: databaseState{dbs: db}, measuring: measuring{fleet: &fleet{offsets: map[string]agent.ClockOffset{"db1": {Offset: off}}}}}
	span := 600 * time.Millisecond
	far := newFarSamples(r.siteParts(), span, nil)
	if far == nil {
		t.Fatal("no far samples with the database on db1")
	}
	ws := newWindowSampler(proc.NewSampler(proc.DefaultSampleInterval, proc.SelfGroup("harness")), span)
	calls := 0
	ws.onStart = func(at time.Time) { calls++; far.start(context.Background(), at) }
	at := time.Now().Add(50 * time.Millisecond)
	ws.event(load.Event{Kind: load.MeasureAt, UnixNano: at.UnixNano()})
	ws.event(load.Event{Kind: load.MeasureStart, UnixNano: at.Add(2 * time.Millisecond).UnixNano()})
	ws.result()
	var d driven
	far.into(&d, "one")
	if calls != 1 {
		t.Errorf("the far samples were asked %d times; want once, at the announced start", calls)
	}
	if !db.from.Equal(at.Add(off)) || db.to.Sub(db.from) != span {
		t.Errorf("db1 was sampled from %s for %s; want from the announced start plus its offset (%s) for the window's %s",
			db.from.Sub(at), db.to.Sub(db.from), off, span)
	}
	if d.database == nil || d.database.host != "db1" || d.database.use.CPUSeconds != 0.25 {
		t.Fatalf("the window's database usage: %+v; want db1's sample", d.database)
	}
	rec := &journal.Window{}
	d.err = errors.New("no generator ran") // the record is judged without a load
	judgeTry(rec, &server{tree: &fakeTree{}}, d)
	if rec.DatabaseHost != "db1" || rec.Database.Cores != 0.5 {
		t.Errorf("the record's database: on %q, %+v; want db1's figures", rec.DatabaseHost, rec.Database)
	}
}
