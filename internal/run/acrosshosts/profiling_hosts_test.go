package acrosshosts

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/profiling/perfrec"
	"github.com/stackbench/stackbench/internal/run"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// TestProfilingAcrossHosts: with the server on app1 (over TLS, h2), the
// database on db1 and two generators, the profile window reads the
// stack's pprof: endpoints from here at app1's address, over the stack's
// wire with the run's certificate, between the instants the generators
// measure between: a Go CPU profile and an allocation delta land in the
// results directory as on one machine, app1's agent records the server
// with perf over the same window (where perf works: the namespaces share
// this machine's kernel), and the statements come from the database on
// db1.
func TestProfilingAcrossHosts(t *testing.T) {
	n := onHosts(t, []string{"app1", "db1", "load1", "load2"}, "go")
	top := runtest.HostsSection(n, "app1", "db1", "load1", "load2") +
		"roles:\n  server: app1\n  database: db1\n  generators: [load1, load2]\nprofile: quick\n"
	stacks := "stacks:\n  - name: go\n    dir: " + runtest.DirForHosts(t, bins.RefServerDir) + "\n    start: " + bins.RefServer + "\n    protocol: h2\n    pprof: /debug/pprof\n"
	path := writeFile(t, runtest.SaasFile(top, `  cases: [user]
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 1
  profiling: on
`, stacks))
	opt := hostsRun(t, n, path)
	opt.SkipParity = true // what is checked is the profile window; the gate is TestEveryWireAcrossHosts's
	if err := run.RemoteSupported(opt.File, opt.Plan); err != nil {
		t.Fatalf("RemoteSupported: %v; profiling runs across hosts", err)
	}
	if _, err := run.Run(context.Background(), opt); err != nil {
		t.Fatalf("run: %v", err)
	}
	res, err := journal.ReadDir(opt.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Profiling) != 1 {
		t.Fatalf("%d profiling records, want 1", len(res.Profiling))
	}
	p := res.Profiling[0]
	w := p.Window
	if w.Load == nil || p.Requests == 0 || p.Requests != w.Load.Successes || w.ServerHost != "app1" || len(w.Generators) != 2 {
		t.Fatalf("%s: %d requests, load %v, on %q from %d generators; want a window on app1 from 2 (problems %v)", p.Key, p.Requests, w.Load != nil, w.ServerHost, len(w.Generators), p.Problems)
	}
	kinds := map[string]journal.ProfileFile{}
	for _, f := range p.Profiles {
		kinds[f.Kind] = f
		data, err := os.ReadFile(filepath.Join(opt.Dir, f.Path))
		if err != nil {
			t.Errorf("%s: %v", p.Key, err)
			continue
		}
		if _, err := profile.Parse(bytes.NewReader(data)); err != nil {
			t.Errorf("%s: %s is no pprof file: %v", p.Key, f.Path, err)
		}
	}
	for _, k := range []string{journal.ProfileGoCPU, journal.ProfileGoAllocs} {
		if _, ok := kinds[k]; !ok {
			t.Errorf("%s: no %s profile (problems: %v)", p.Key, k, p.Problems)
		}
	}
	t.Logf("%s: %d requests; Go CPU %d samples, perf %d samples, %d statements", p.Key, p.Requests,
		kinds[journal.ProfileGoCPU].Samples, kinds[journal.ProfilePerfServer].Samples, len(p.Statements))
	if cpu := kinds[journal.ProfileGoCPU]; cpu.Samples < 20 || cpu.RateHz != 100 {
		t.Errorf("%s: Go CPU profile of %d samples at %d Hz", p.Key, cpu.Samples, cpu.RateHz)
	}
	if _, err := perfrec.Check(context.Background(), t.TempDir()); err == nil {
		perf, ok := kinds[journal.ProfilePerfServer]
		if !ok || perf.Samples < 50 || perf.RateHz != perfrec.RateHz {
			t.Errorf("%s: perf's profile of the server on app1: %+v (problems %v); want samples at %d Hz", p.Key, perf, p.Problems, perfrec.RateHz)
		}
	} else {
		t.Logf("perf does not work here (%v): its profile is not checked", err)
	}
	if _, ok := kinds[journal.ProfilePerfDatabase]; ok {
		t.Errorf("%s: a perf profile of the database, which runs on db1 where perf records only the server host", p.Key)
	}
	found := false
	for _, s := range p.Statements {
		if strings.Contains(s.Query, "users") && s.Calls > 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("%s: no users statement in %+v (problems %v)", p.Key, p.Statements, p.Problems)
	}
	said := false
	for _, ev := range res.Events {
		if strings.Contains(ev.Msg, "servers run on host app1: its agent records them with perf") {
			said = true
		}
	}
	if !said {
		t.Error("the run did not say where perf records")
	}
}
