package run

import (
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/scenario"
)

// With roles on other hosts, latency windows, capacity searches, spread
// requests, setup steps, services, profile windows and container stacks
// are measured, and any role may stay here; what cannot be measured
// across hosts is refused with the reason. The embedded database here serves a server
// on a host.
func TestRemoteSupported(t *testing.T) {
	roles := &plan.Roles{Server: "app1", Database: "db1", Generators: []string{"load1"}}
	f := &plan.File{Name: "stackbench.yaml", Roles: roles, Scenario: &scenario.Scenario{}, Stacks: []plan.Stack{{Name: "a", Services: []int{6379}}}}
	p := &plan.Plan{NeedsDatabase: true, Capacity: &plan.Capacity{},
		Protocol: plan.Protocol{Latency: &plan.LatencyRate{RPS: 200}, Spread: true, Profiling: true}}
	if err := RemoteSupported(f, p); err != nil {
		t.Fatalf("latency, capacity, spread, setup steps, services and profiling across hosts: %v", err)
	}

	// A container stack runs on the server host, or here.
	f.Stacks = []plan.Stack{{Name: "a", Container: &plan.Container{Image: "x"}}}
	if err := RemoteSupported(f, p); err != nil {
		t.Errorf("a container stack on the server host: %v; want it run there", err)
	}
	// Its image is built there from the copy of its dir: a Dockerfile
	// outside the dir is refused before anything runs.
	f.Stacks = []plan.Stack{{Name: "a", Dir: "/src/a", Container: &plan.Container{Image: "x", Build: "/src/Dockerfile"}}}
	if err := RemoteSupported(f, p); err == nil || !strings.Contains(err.Error(), "outside its dir /src/a, which alone is copied to the server host") {
		t.Errorf("a container stack on the server host built from a Dockerfile outside its dir: %v; want it refused for what it is", err)
	}
	f.Stacks[0].Container.Build = "/src/a/Dockerfile"
	if err := RemoteSupported(f, p); err != nil {
		t.Errorf("a container stack on the server host built from its dir's Dockerfile: %v; want it run", err)
	}
	f.Roles = &plan.Roles{Database: "db1", Generators: []string{"load1"}}
	f.Stacks[0].Container.Build = "/src/Dockerfile"
	if err := RemoteSupported(f, p); err != nil {
		t.Errorf("a container stack here with the database and the load on hosts: %v; want it run (its image is built here)", err)
	}
	f.Roles = roles
	f.Stacks = []plan.Stack{{Name: "a"}}

	// Any role may stay on this machine.
	for _, r := range []*plan.Roles{{Database: "db1"}, {Generators: []string{"load1"}}, {Server: "app1", Database: "db1"}, {Database: "db1", Generators: []string{"load1"}}} {
		f.Roles = r
		if err := RemoteSupported(f, p); err != nil {
			t.Errorf("roles %+v: %v; the roles not named run here", r, err)
		}
	}
	// A stack that binds the loopback cannot be loaded from another host.
	f.Roles = &plan.Roles{Generators: []string{"load1"}}
	f.Stacks = []plan.Stack{{Name: "a", Env: map[string]string{"HOST": "127.0.0.1"}}}
	if err := RemoteSupported(f, p); err == nil || !strings.Contains(err.Error(), "cannot be measured with them: stack a with HOST=127.0.0.1") || !strings.Contains(err.Error(), "drop HOST") {
		t.Errorf("HOST=127.0.0.1 with the load from load1: %v; want it refused for what it is", err)
	}
	f.Roles = &plan.Roles{Database: "db1"}
	if err := RemoteSupported(f, p); err != nil {
		t.Errorf("HOST=127.0.0.1 with the server and the load here: %v; want it run", err)
	}
	f.Stacks = []plan.Stack{{Name: "a"}}

	p.Protocol.Profiling = false
	p.Protocol.Placement = plan.Placement{Mode: plan.PlacementLanes}
	f.Roles = &plan.Roles{Server: "app1", Generators: []string{"load1"}}
	f.Database = plan.Embedded
	err := RemoteSupported(f, p)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	// Lanes cannot be measured with roles elsewhere, and is refused alone:
	// the embedded database here with the server on a host is run.
	if !strings.Contains(msg, "these cannot be measured with them: placement: lanes, which divides this machine's CPUs") || !strings.Contains(msg, "use placement: shared") ||
		strings.Contains(msg, "embedded database") {
		t.Errorf("lanes with the embedded database here: %v; want lanes alone refused for what it is, with what to do", err)
	}
	p.Protocol.Placement = plan.Placement{}
	for _, r := range []*plan.Roles{{Server: "app1"}, {Server: "app1", Generators: []string{"load1"}}} {
		f.Roles = r
		if err := RemoteSupported(f, p); err != nil {
			t.Errorf("roles %+v with the embedded database here: %v; want it run (the cluster listens on the link to app1)", r, err)
		}
	}
}
