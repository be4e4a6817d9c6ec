package acrosshosts

import (
	"context"
	"testing"

	"github.com/stackbench/stackbench/internal/dockertest"
	"github.com/stackbench/stackbench/internal/run"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// A container stack here, with the database on db1 and the load from
// load1: the container, on this machine's network, is given
// HOST=0.0.0.0 and the database's CA at its path, load1 loads it at this
// machine's address on its link, and its cgroup is sampled here.
func TestContainerHereAcrossHosts(t *testing.T) {
	docker := dockertest.Require(t)
	image, _ := dockertest.StaticImage(t, docker, bins.RefServerDir, "stackbench-test-ref")
	n := onHosts(t, []string{"db1", "load1"})
	path := writeFile(t, runtest.SaasFile(runtest.HostsSection(n, "db1", "load1")+"roles:\n  database: db1\n  generators: [load1]\nprofile: quick\n", `  cases: [user]
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 1
`, "stacks:\n  - {name: box, dir: "+t.TempDir()+", container: {image: "+image+", runtime: docker}}\n"))
	opt := hostsRun(t, n, path)
	if err := run.RemoteSupported(opt.File, opt.Plan); err != nil {
		t.Fatalf("RemoteSupported: %v; a container here runs with the other roles on hosts", err)
	}
	if _, err := run.Run(context.Background(), opt); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, _ := runtest.Finals(t, opt.Dir)
	if len(byKey) != 1 {
		t.Fatalf("%d final windows; want 1", len(byKey))
	}
	for k, w := range byKey {
		if l := w.Load; l == nil || l.Successes == 0 || l.ErrorCount() != 0 || len(w.Generators) != 1 {
			t.Fatalf("%s: load %+v from %d generator hosts (reasons %v); want successes only, from load1", k, l, len(w.Generators), w.Reasons)
		}
		if w.ServerHost != "" || w.Server.CPUSeconds <= 0 || w.DatabaseHost != "db1" || w.Database.CPUSeconds <= 0 {
			t.Errorf("%s: server on %q (%+v), database on %q (%+v); want the container sampled here and the database on db1", k, w.ServerHost, w.Server, w.DatabaseHost, w.Database)
		}
		t.Logf("%s: %d successes; the container %.3f CPU-s, the database on db1 %.3f CPU-s", k, w.Load.Successes, w.Server.CPUSeconds, w.Database.CPUSeconds)
	}
}
