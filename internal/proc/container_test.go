package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/dockertest"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/netutil"
)

// measured is one window of load on a stack.
type measured struct {
	requests       int64
	serverCPU      float64 // seconds
	serverRSS      int64
	foreign, cores float64
	treeCPU        float64 // container: its main process's tree, from the process table
}

func (m measured) usPerRequest() float64 { return m.serverCPU / float64(m.requests) * 1e6 }

// measureWindow runs an open loop of load on p's port for d at a rate both
// stacks sustain on a busy 2-core machine (so that CPU per request is
// compared at the same load, not at whatever throughput the scheduler
// left each), sampling the stack's server group, its runtime's groups and
// the harness (which runs the load engine in this test). For a container
// it also samples the container's main process through the process table,
// as a second opinion on the cgroup.
func measureWindow(t *testing.T, p *Process, d time.Duration) measured {
	t.Helper()
	groups := []Group{p.Group("server"), SelfGroup("harness")}
	if g, ok := p.RuntimeGroup("runtime-cli"); ok {
		groups = append(groups, g, DaemonsGroup("runtime-daemons"))
	}
	if p.InContainer() {
		groups = append(groups, TreeGroup("container-tree", p.ContainerPID()))
	}
	s := NewSampler(0, groups...)
	s.Start()
	res, err := load.Run(context.Background(), load.Config{URL: "http://127.0.0.1:" + strconv.Itoa(p.Port()) + "/", Connections: 16, Rate: 1500, Duration: d})
	ws := s.Stop()
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	g, _ := ws.Group("server")
	m := measured{requests: res.Successes, serverCPU: g.CPUSeconds, serverRSS: g.RSSMeanBytes, foreign: ws.ForeignCores, cores: g.Cores}
	if tree, ok := ws.Group("container-tree"); ok {
		m.treeCPU = tree.CPUSeconds
	}
	return m
}

// A stack in a container is measured through its cgroup: the cgroup's
// counter and the container's process read from the process table agree,
// its CPU per request is the native binary's (0.8–1.4×), and its CPU does
// not land in foreign (trap T21); for a server that costs ~160 µs of CPU
// per request and for a light one (~30–60 µs, where a container's fixed
// costs per request would show most). The container is removed at Stop.
//
// What the container layer costs was measured apart (bench/container,
// docs/containers.md): docker's seccomp filter adds ~35 ns to each system
// call, and these servers make 5–7 per request, so under 1 % even of the
// light one; the cgroup counts what the process table counts. What moves
// the ratio on a busy host is the scheduler: a light server's CPU per
// request follows how many requests each wake-up serves (1 to 6 context
// switches per request were seen for the same server at the same rate),
// and a neighbour changes that from one window to the next. So rounds
// alternate which side goes first, and the ratio is judged only when the
// host was quiet.
func TestContainerStackMeasuredThroughItsCgroup(t *testing.T) {
	docker := dockertest.Require(t)
	image, binary := dockertest.StaticImage(t, docker, "../../bench/load/server", "stackbench-test-server")
	for _, c := range []struct {
		name, work string // SHA-256 rounds per request
	}{
		{"heavy", "600"}, // the server's own CPU dominates
		{"light", "0"},   // a small JSON answer: the per-request fixed costs dominate
	} {
		t.Run(c.name, func(t *testing.T) { containerAgainstNative(t, docker, image, binary, c.work, c.name == "heavy") })
	}
}

// containerAgainstNative compares the server with work SHA-256 rounds per
// request natively and in a container; judgeForeign holds the foreign CPU
// of the container's windows to the native ones', which tells only when
// the server's CPU stands well above a quiet host's swings (the heavy one).
func containerAgainstNative(t *testing.T, docker, image, binary, work string, judgeForeign bool) {
	start := func(name string, container bool) *Process {
		t.Helper()
		port, err := netutil.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		spec := Spec{Name: name, Dir: t.TempDir(), Command: binary + " -addr " + addr + " -work " + work,
			Port: port, HealthPath: "/", LogPath: filepath.Join(t.TempDir(), name+".log"), BootTimeout: time.Minute}
		if container {
			cname := fmt.Sprintf("stackbench-test-%d-%d", os.Getpid(), port)
			spec.Command = fmt.Sprintf("%s run --rm --network host --name %s --label %s=test-%d %s -addr %s -work %s",
				docker, cname, RunLabel, os.Getpid(), image, addr, work)
			spec.Container = &Container{Runtime: docker, Name: cname}
		}
		p, err := Start(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Rounds of one native and one container window, in alternating
	// order, each pair compared on its own and the median ratio kept: a
	// busy neighbour that comes and goes hurts both sides of a pair alike,
	// and a drift favours neither.
	const rounds = 3
	var nat, ctr measured
	var ratios, excesses []float64
	add := func(sum *measured, m measured) {
		sum.requests += m.requests
		sum.serverCPU += m.serverCPU
		sum.treeCPU += m.treeCPU
		sum.serverRSS = max(sum.serverRSS, m.serverRSS)
		sum.foreign += m.foreign / rounds
		sum.cores += m.cores / rounds
	}
	runNative := func() measured {
		native := start("native", false)
		n := measureWindow(t, native, time.Second)
		if err := native.Stop(5 * time.Second); err != nil {
			t.Error(err)
		}
		return n
	}
	runContainer := func(round int) measured {
		box := start("container", true)
		// Removed even when the test fails before Stop: a container left
		// running would load every later run on this host.
		name := box.Container().Name
		t.Cleanup(func() { exec.Command(docker, "rm", "--force", name).Run() })
		if !box.InContainer() || box.ContainerPID() <= 0 {
			t.Fatalf("the container stack was not attached to its container (pid %d)", box.ContainerPID())
		}
		t.Logf("round %d: container cold start (run → first 200): %s", round+1, box.BootDuration())
		c := measureWindow(t, box, time.Second)
		if err := box.Stop(5 * time.Second); err != nil {
			t.Error(err)
		}
		if out, _ := exec.Command(docker, "ps", "--all", "--quiet", "--filter", "name="+name).Output(); len(strings.TrimSpace(string(out))) > 0 {
			t.Errorf("container %s still exists after Stop", name)
		}
		return c
	}
	for round := range rounds {
		var n, c measured
		if round%2 == 0 {
			n = runNative()
			c = runContainer(round)
		} else {
			c = runContainer(round)
			n = runNative()
		}
		add(&nat, n)
		add(&ctr, c)
		ratios = append(ratios, c.usPerRequest()/n.usPerRequest())
		excesses = append(excesses, c.foreign-n.foreign)
	}
	t.Logf("native:    %d requests, server %.1f µs CPU/request, %.2f cores, RSS %.1f MiB, foreign %.2f cores",
		nat.requests, nat.usPerRequest(), nat.cores, float64(nat.serverRSS)/(1<<20), nat.foreign)
	t.Logf("container: %d requests, server %.1f µs CPU/request, %.2f cores, RSS %.1f MiB (anonymous, from the cgroup), foreign %.2f cores; its process seen in the process table: %.3f s against the cgroup's %.3f s",
		ctr.requests, ctr.usPerRequest(), ctr.cores, float64(ctr.serverRSS)/(1<<20), ctr.foreign, ctr.treeCPU, ctr.serverCPU)
	if nat.requests < 100 || ctr.requests < 100 {
		t.Fatalf("too few requests to compare: native %d, container %d", nat.requests, ctr.requests)
	}
	// The cgroup and the process table agree on the container's CPU (the
	// container runs one process; the process table counts in 10 ms ticks,
	// two readings a window). This holds on a busy host too: both count the
	// same process over the same window.
	if d := ctr.serverCPU - ctr.treeCPU; d < -0.05*ctr.treeCPU-0.02 || d > 0.05*ctr.treeCPU+0.02 {
		t.Errorf("container CPU: cgroup %.3f s, its process %.3f s; want within 5 %%", ctr.serverCPU, ctr.treeCPU)
	}
	slices.Sort(ratios)
	t.Logf("container ÷ native CPU per request, per round: %.2f", ratios)
	// Judged, like a window, only on a quiet host: with other packages'
	// tests beside it (go test runs two at once on 2 cores) the scheduler
	// gives the container and the native server unequal shares of a busy
	// CPU, and CPU per request follows (seen here: 1.22× with 1 core of
	// foreign CPU, 0.95× quiet).
	busy := max(nat.foreign, ctr.foreign)
	switch ratio := ratios[len(ratios)/2]; {
	case busy > 0.5:
		t.Logf("container ÷ native %.2f× not judged: the host was busy (%.2f cores of foreign CPU, over the 0.5 a window's gate would allow)", ratio, busy)
	case ratio < 0.8 || ratio > 1.4:
		// The bounds catch a measurement that misses the cgroup (the
		// container's CPU near 0) or counts it twice (2×), and leave room
		// for a CI neighbour under the gate (seen in CI: 1.20× with 0.28
		// cores of foreign CPU, rounds 1.02–1.25); the container's own
		// cost is under 1 % (above).
		t.Errorf("container's server CPU per request is %.2f× the native one's (median of %d rounds); want 0.8–1.4×", ratio, rounds)
	}
	if ctr.serverRSS <= 0 {
		t.Errorf("container's memory not measured: %d bytes", ctr.serverRSS)
	}
	// Had the cgroup not been measured, the container's whole server CPU
	// (ctr.cores, about 0.25 for the heavy server) would be foreign: on a quiet host its window
	// would show it over the native one's. With other packages' tests
	// beside it the two windows' foreign loads differ by as much (seen in
	// CI: 0.18 and 0.52 cores, the container's CPU measured to 0.1 %), so
	// like the ratio it is judged only when neither passed 0.5 cores; the
	// cgroup-against-process-table check above holds either way. The
	// rounds' own excesses are paired (each round's two windows are next
	// to each other) and their median kept, as for the ratio: a
	// neighbour's burst in one window moved the five rounds' mean by 0.21
	// cores in .ci/run (2026-12-03, foreign 0.28 and 0.49 cores).
	slices.Sort(excesses)
	excess := excesses[len(excesses)/2]
	// Quiet enough to judge the foreign CPU: in .ci/run, with other
	// packages' tests beside it, the container's windows showed 0.45
	// cores of foreign CPU against the native ones' 0.14 (the median
	// paired excess 0.39) while the cgroup and the process table agreed
	// to the millisecond; on a quiet host, 0.19 against 0.10.
	const quietForeign = 0.25
	if !judgeForeign {
		t.Logf("foreign CPU %+.2f cores with the container (its server used %.2f): not judged for a server this light", excess, ctr.cores)
	} else if busy > quietForeign {
		t.Logf("foreign CPU %+.2f cores with the container not judged: the host was busy (%.2f cores)", excess, busy)
	} else if excess > 0.3*ctr.cores+0.1 {
		t.Errorf("foreign CPU rose by %.2f cores with the container (its server used %.2f): the container's CPU went unmeasured", excess, ctr.cores)
	}
}

// A container left by a killed run is found by its run label and removed.
func TestRemoveLeftoverContainers(t *testing.T) {
	docker := dockertest.Require(t)
	image, _ := dockertest.StaticImage(t, docker, "../../bench/load/server", "stackbench-test-server")
	run := "leftover-" + strconv.Itoa(os.Getpid())
	name := "stackbench-test-leftover-" + strconv.Itoa(os.Getpid())
	if out, err := exec.Command(docker, "create", "--name", name, "--label", RunLabel+"="+run, image).CombinedOutput(); err != nil {
		t.Fatalf("docker create: %v\n%s", err, out)
	}
	names, err := RemoveLeftoverContainers(context.Background(), docker, run)
	if err != nil || len(names) != 1 || names[0] != name {
		t.Fatalf("RemoveLeftoverContainers = %v, %v; want [%s]", names, err, name)
	}
	if names, err := RemoveLeftoverContainers(context.Background(), docker, run); err != nil || len(names) != 0 {
		t.Errorf("second pass = %v, %v; want none left", names, err)
	}
}

// The runtime's commands (inspect, stop, rm) reach the daemon the start's
// environment names, as its docker run does: with the harness's own
// DOCKER_HOST naming no daemon, a start whose Env names the real one
// attaches to its container, and Stop removes it there. RemoveContainer
// says whether there was one to remove.
func TestRuntimeCommandsUseTheStartsEnvironment(t *testing.T) {
	docker := dockertest.Require(t)
	image, _ := dockertest.StaticImage(t, docker, "../../bench/load/server", "stackbench-test-server")
	daemon := os.Getenv("DOCKER_HOST")
	if daemon == "" {
		daemon = "unix:///var/run/docker.sock"
	}
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-daemon.sock"))
	port, err := netutil.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(context.Background(), Spec{Name: "envbox", Dir: t.TempDir(), Env: []string{"DOCKER_HOST=" + daemon, "PORT=" + strconv.Itoa(port)},
		Command: docker + ` run --rm --network host --name "$` + ContainerNameEnv + `" ` + image + ` -addr 127.0.0.1:$PORT`,
		Port:    port, HealthPath: "/", LogPath: filepath.Join(t.TempDir(), "envbox.log"), BootTimeout: time.Minute,
		Container: &Container{Runtime: docker}})
	if err != nil {
		t.Fatalf("start with the daemon in the start's environment: %v", err)
	}
	c := *p.Container()
	if !p.InContainer() || p.ContainerPID() <= 0 {
		t.Fatalf("not attached to container %s: pid %d", c.Name, p.ContainerPID())
	}
	if err := p.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(docker, "--host", daemon, "ps", "--all", "--quiet", "--filter", "name=^"+c.Name+"$").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("container %s after Stop: %q, %v; want it removed", c.Name, out, err)
	}
	if removed, err := RemoveContainer(context.Background(), &c); removed || err != nil {
		t.Errorf("RemoveContainer of a removed container = %v, %v; want false, nil", removed, err)
	}
}
