package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// A run with the server on app1 and the embedded database here: the
// cluster listens on this machine's address on the link to app1, over
// TLS, and admits app1; the parity gate (here) and the server on app1
// use their copies over that link, and the database is sampled here over
// each window, with the load from here or from a generator host. While
// a window runs, PostgreSQL itself says that app1's connections use TLS.
func TestServerOnHostWithTheDatabaseHere(t *testing.T) {
	n := onHosts(t, []string{"app1", "load1"}, "plain")
	app1 := n.Host("app1").Addr
	dir := runtest.DirForHosts(t, refServerDir)
	for _, c := range []struct {
		name, hosts, roles string
		generators         int
	}{
		{"load from here", runtest.HostsSection(n, "app1"), "{server: app1}", 0},
		{"load from load1", runtest.HostsSection(n, "app1", "load1"), "{server: app1, generators: [load1]}", 1},
	} {
		src := runtest.SaasFile(c.hosts+"roles: "+c.roles+"\nprofile: quick\n", `  cases: [user]
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms
  window: 500ms
  rounds: 1
`, "stacks:\n  - {name: plain, dir: "+dir+", start: "+refServerBin+"}\n")
		opt := hostsRun(t, n, writeFile(t, src))
		if err := RemoteSupported(opt.File, opt.Plan); err != nil {
			t.Fatalf("%s: RemoteSupported: %v", c.name, err)
		}
		// While each window runs, app1's connections as pg_stat_ssl sees
		// them: with TLS, and without.
		var mu sync.Mutex
		var wg sync.WaitGroup
		var withTLS, without int
		var queryErr error
		hooks := testHooks{loaded: func(string, int, *fleet) {
			wg.Go(func() {
				w, wo, err := app1Connections(opt.Dir, app1)
				mu.Lock()
				defer mu.Unlock()
				withTLS, without, queryErr = withTLS+w, without+wo, err
			})
		}}
		t0 := time.Now()
		if _, err := runWith(context.Background(), opt, hooks); err != nil {
			t.Fatalf("%s: run: %v", c.name, err)
		}
		wg.Wait()
		t.Logf("%s: run: %s", c.name, time.Since(t0).Round(time.Millisecond))
		if queryErr != nil {
			t.Fatalf("%s: app1's connections: %v", c.name, queryErr)
		}
		if withTLS == 0 || without != 0 {
			t.Errorf("%s: app1 had %d connections over TLS and %d without during the windows; want some, all over TLS", c.name, withTLS, without)
		}
		byKey, res := runtest.Finals(t, opt.Dir)
		if len(res.Parity) != 1 || !res.Parity[0].Passed {
			t.Errorf("%s: parity %+v; want it passed", c.name, res.Parity)
		}
		if len(byKey) != 1 {
			t.Fatalf("%s: %d final windows; want 1", c.name, len(byKey))
		}
		for k, w := range byKey {
			l := w.Load
			if l == nil || l.Successes == 0 || l.ErrorCount() != 0 {
				t.Errorf("%s: %s: load %+v (reasons %v); want successes only", c.name, k, l, w.Reasons)
				continue
			}
			if w.ServerHost != "app1" || len(w.Generators) != c.generators || w.DatabaseHost != "" || w.Server.CPUSeconds <= 0 || w.Database.CPUSeconds <= 0 || w.DBBefore == nil || w.DBAfter == nil {
				t.Errorf("%s: %s: server on %q (%+v), %d generator hosts, database on %q (%+v), db before %+v, after %+v; want the server on app1, %d generator hosts and the database here, both measured, with its statistics",
					c.name, k, w.ServerHost, w.Server, len(w.Generators), w.DatabaseHost, w.Database, w.DBBefore, w.DBAfter, c.generators)
			}
			t.Logf("%s: %s: %d successes; server %.3f CPU-s on app1, database %.3f CPU-s here; app1's connections during the window: %d over TLS",
				c.name, k, l.Successes, w.Server.CPUSeconds, w.Database.CPUSeconds, withTLS)
		}
	}
}

// app1Connections counts the connections from addr to the embedded
// cluster of the run in dir, with TLS and without, polling for up to two
// seconds until there are some.
func app1Connections(dir, addr string) (withTLS, without int, err error) {
	b, err := os.ReadFile(filepath.Join(dir, DBPathFile))
	if err != nil {
		return 0, 0, err
	}
	c, err := pgfix.Attach(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.AdminURL())
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(ctx)
	for end := time.Now().Add(2 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl)
			FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.client_addr = $1::inet`, addr).Scan(&withTLS, &without)
		if err != nil || withTLS+without > 0 || time.Now().After(end) {
			return withTLS, without, err
		}
	}
}
