package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/profiling/perfrec"
	"github.com/stackbench/stackbench/internal/remote"
	"github.com/stackbench/stackbench/internal/remote/sshtest"
)

// onHosts starts the named test hosts for runs whose agents are copies
// of stackbenchBin (shared with the package's other host tests, which run
// in parallel), and removes at the end what the runs leave: the processes
// in the namespaces and the logs of the named stacks' servers.
func onHosts(t *testing.T, hosts []string, stacks ...string) *sshtest.Net {
	t.Helper()
	return onHostsWith(t, sshtest.Options{}, hosts, stacks...)
}

// onHostsWith is onHosts with the hosts' options o.
func onHostsWith(t *testing.T, o sshtest.Options, hosts []string, stacks ...string) *sshtest.Net {
	t.Helper()
	n := sshtest.StartWith(t, o, hosts...)
	sshtest.ForgetAgentOf(t, stackbenchBin)
	t.Cleanup(func() { killIn(n) }) // before the namespaces go: nothing left behind
	t.Cleanup(func() {
		// The agents (one user, one file system) keep the servers' logs
		// in the user's cache directory.
		cache, _ := os.UserCacheDir()
		for _, s := range stacks {
			logs, _ := filepath.Glob(filepath.Join(cache, "stackbench", "logs", s+".*.log"))
			for _, l := range logs {
				os.Remove(l)
			}
		}
	})
	return n
}

// hostsSection is a comparison file's hosts: section for the named hosts.
func hostsSection(n *sshtest.Net, names ...string) string {
	var b strings.Builder
	b.WriteString("hosts:\n")
	for _, name := range names {
		h := n.Host(name)
		fmt.Fprintf(&b, "  %s: {ssh: \"%s@%s\", identity: %s}\n", name, n.User, h.HostPort(), n.Identity)
	}
	return b.String()
}

// refDirForHosts is a copy of the reference server's directory for one
// test to sync to its server host, removed from the host's cache at the
// end: tests in parallel never sync into one directory.
func refDirForHosts(t *testing.T) string { return dirForHosts(t, refServerDir) }

// dirForHosts is refDirForHosts for the stack directory src.
func dirForHosts(t *testing.T, src string) string {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	forgetSynced(t, dir)
	return dir
}

// refOnHostsFile is a saas-slice file of the named stacks of the Go
// reference server (synced from dir) on app1, their embedded database on
// db1, loaded from load1 and load2: the protocol's own lines (indented;
// no boot suite, gate off), then what follows the stacks.
func refOnHostsFile(n *sshtest.Net, dir, protocol string, stacks []string, tail string) string {
	top := hostsSection(n, "app1", "db1", "load1", "load2") +
		"roles:\n  server: app1\n  database: db1\n  generators: [load1, load2]\nprofile: quick\n"
	list := "stacks:\n"
	for _, s := range stacks {
		list += "  - name: " + s + "\n    dir: " + dir + "\n    start: " + refServerBin + "\n"
	}
	return saasFile(top, protocol, list) + tail
}

// hostsRun resolves the comparison file at path into the options of a run
// over n's hosts into a new results directory; the run's log is shown
// when the test fails.
func hostsRun(t *testing.T, n *sshtest.Net, path string) Options {
	t.Helper()
	f, err := plan.LoadEnv(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(plan.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	log := &strings.Builder{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("run log:\n%s", log.String())
		}
	})
	return Options{File: f, Plan: p, Dir: filepath.Join(t.TempDir(), "results"), Stackbench: stackbenchBin, Log: log, ToolVersion: "test",
		Remote: remote.Options{KnownHosts: []string{n.KnownHosts}, Binary: stackbenchBin, DialTimeout: time.Second}}
}

// A run with the server, the database and two generators in four
// namespaces, over SSH: every window's counts are the sums of the
// generators' own and its percentiles those of their merged histograms;
// a session killed mid-window gives a redone window; a generator host
// that stays unreachable stops the run with its journal intact, and
// --resume reconnects and finishes it.
func TestRunWithServerAndGeneratorsOnHosts(t *testing.T) {
	n := onHosts(t, []string{"app1", "db1", "load1", "load2"}, "one", "two")
	path := writeFile(t, refOnHostsFile(n, refDirForHosts(t), `  cases: [user]
  concurrency: [5]
  warmup: 200ms
  warmup_max: 200ms # see "Fixed warm-ups" at flakyFile
  window: 600ms
  rounds: 2
`, []string{"one", "two"}, ""))
	opt := hostsRun(t, n, path)
	p, dir := opt.Plan, opt.Dir
	if len(p.Windows) != 4 {
		t.Fatalf("the plan has %d windows; want 4", len(p.Windows))
	}
	dropKey, cutKey := p.Windows[1].Key, p.Windows[2].Key
	cut := ""
	hook := func(key string, attempt int, fl *fleet) {
		switch {
		case key == dropKey && attempt == 1:
			// Mid-window: after the lead and the warm-up.
			s := fl.sessions["load1"]
			time.AfterFunc(remoteLead+400*time.Millisecond, func() { s.Drop() })
		case key == cutKey && cut == "":
			cut = linkOf(t, n.Host("load2").NS)
			ipLink(t, n.Host("load2").NS, cut, "down")
			s := fl.sessions["load2"]
			time.AfterFunc(remoteLead+400*time.Millisecond, func() { s.Drop() })
		}
	}
	t0 := time.Now()
	_, err := runWith(context.Background(), opt, testHooks{loaded: hook})
	t.Logf("first invocation: %s", time.Since(t0).Round(time.Millisecond))
	if !errors.Is(err, ErrHostUnreachable) || !strings.Contains(err.Error(), "host load2") {
		t.Fatalf("the run with load2 cut off: %v; want it stopped naming load2", err)
	}
	got, _ := finals(t, dir)
	if len(got) != 2 {
		t.Fatalf("the stopped run journaled %d final windows; want the 2 before the cut", len(got))
	}

	ipLink(t, n.Host("load2").NS, cut, "up")
	opt.Resume = true
	t0 = time.Now()
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatalf("resume: %v", err)
	}
	t.Logf("resume: %s", time.Since(t0).Round(time.Millisecond))

	got, res := finals(t, dir)
	if len(got) != 4 {
		t.Fatalf("%d final windows after the resume; want 4", len(got))
	}
	redone := false
	for _, w := range res.Windows {
		if w.Key == dropKey && !w.Final && strings.Contains(strings.Join(w.Reasons, " "), "session with host load1 dropped") {
			redone = true
		}
	}
	if !redone {
		t.Errorf("no redone try of %s names load1's dropped session", dropKey)
	}
	for key, w := range got {
		checkMerged(t, key, w)
	}
}

// checkMerged holds a final window to its generators' parts: counts are
// their sums, percentiles those of their merged histograms, and the
// server was measured on app1.
func checkMerged(t *testing.T, key string, w journal.Window) {
	t.Helper()
	if w.Load == nil || len(w.Generators) != 2 {
		t.Fatalf("%s: load %v, %d generator parts; want a load and 2 parts (flags %v, %v)", key, w.Load != nil, len(w.Generators), w.Flags, w.Reasons)
	}
	if w.ServerHost != "app1" || w.Server.CPUSeconds <= 0 {
		t.Errorf("%s: server on %q with %.3f CPU-s; want it measured on app1", key, w.ServerHost, w.Server.CPUSeconds)
	}
	if w.DatabaseHost != "db1" || w.Database.CPUSeconds <= 0 {
		t.Errorf("%s: database on %q with %.3f CPU-s; want it measured on db1", key, w.DatabaseHost, w.Database.CPUSeconds)
	}
	var succ, att, fail, conns int64
	var h *hist.Histogram
	for i, g := range w.Generators {
		if want := []string{"load1", "load2"}[i]; g.Host != want {
			t.Errorf("%s: part %d from %s; want %s", key, i, g.Host, want)
		}
		if g.Successes == 0 {
			t.Errorf("%s: the generator on %s had no success", key, g.Host)
		}
		succ += g.Successes
		att += g.Attempts
		conns += int64(g.Connections)
		for _, n := range g.Failures {
			fail += n
		}
		d, err := hist.Decode(g.LatencyHist)
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			h = d
		} else {
			h.Merge(d)
		}
	}
	if w.Load.Successes != succ || w.Load.Attempts != att || w.Load.ErrorCount() != fail || int64(w.Load.Connections) != conns || conns != int64(w.Concurrency) {
		t.Errorf("%s: merged successes %d, attempts %d, failures %d, connections %d; the parts sum to %d, %d, %d, %d (concurrency %d)",
			key, w.Load.Successes, w.Load.Attempts, w.Load.ErrorCount(), w.Load.Connections, succ, att, fail, conns, w.Concurrency)
	}
	for _, q := range []struct {
		p   float64
		got int64
	}{{50, w.Load.LatencyMicros.P50}, {90, w.Load.LatencyMicros.P90}, {99, w.Load.LatencyMicros.P99}, {99.9, w.Load.LatencyMicros.P999}} {
		if want := h.PercentileMicros(q.p); q.got != want {
			t.Errorf("%s: p%g = %d µs; the parts' merged histograms say %d µs", key, q.p, q.got, want)
		}
	}
	skew := time.Duration(w.Generators[0].MeasureStartUnixNano - w.Generators[1].MeasureStartUnixNano).Abs()
	t.Logf("%s: %d + %d successes; windows opened %s apart", key, w.Generators[0].Successes, w.Generators[1].Successes, skew)
	if skew > 200*time.Millisecond {
		t.Errorf("%s: the generators' windows opened %s apart; they were scheduled at one instant", key, skew)
	}
}

// forgetSynced removes the copy the server host's agent keeps of a stack's
// dir (in our home, which the namespaces share) at the end.
func forgetSynced(t *testing.T, dir string) {
	key, err := agent.SyncKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Join(home, ".cache", "stackbench", "dirs", key)) })
}

// killIn kills every process left in the hosts' namespaces (agents whose
// session was cut with the link, and what they started).
func killIn(n *sshtest.Net) {
	for _, h := range n.Hosts {
		out, _ := exec.Command("ip", "netns", "pids", h.NS).Output()
		for _, pid := range strings.Fields(string(out)) {
			exec.Command("kill", "-9", pid).Run()
		}
	}
}

// linkOf is the namespace's link to the switch (its one link but lo).
func linkOf(t *testing.T, ns string) string {
	out, err := exec.Command("ip", "-n", ns, "-o", "link", "show").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 {
			name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
			if name != "lo" {
				return name
			}
		}
	}
	t.Fatalf("no link in %s:\n%s", ns, out)
	return ""
}

func ipLink(t *testing.T, ns, dev, state string) {
	if out, err := exec.Command("ip", "-n", ns, "link", "set", dev, state).CombinedOutput(); err != nil {
		t.Fatalf("ip -n %s link set %s %s: %v: %s", ns, dev, state, err, out)
	}
}

// Across hosts, a latency window is an open loop whose rate the
// generator hosts share by their connections, and a capacity search's
// probes are windows of the same kind: each measured on app1 with both
// generators' parts.
func TestLatencyAndCapacityAcrossHosts(t *testing.T) {
	n := onHosts(t, []string{"app1", "db1", "load1", "load2"}, "one")
	// Three rounds with a latency window at 200 req/s after each, then a
	// capacity search with a budget of a few probes (each has the remote
	// lead): what is checked is where and from where they were measured.
	path := writeFile(t, refOnHostsFile(n, refDirForHosts(t), `  cases: [user]
  concurrency: [4]
  warmup: 200ms
  warmup_max: 200ms # see "Fixed warm-ups" at flakyFile
  window: 600ms
  rounds: 3
  latency: {rate: 200}
`, []string{"one"}, `capacity:
  cases: {user: p99=50ms}
  probe: 300ms
  warmup: 100ms
  budget: 10s
  confirm: 1
  resolution: 25%
`))
	opt := hostsRun(t, n, path)
	if err := RemoteSupported(opt.File, opt.Plan); err != nil {
		t.Fatalf("RemoteSupported: %v; latency windows and capacity searches run across hosts", err)
	}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatalf("run: %v", err)
	}
	res, err := journal.ReadDir(opt.Dir)
	if err != nil {
		t.Fatal(err)
	}
	latency := 0
	for _, w := range res.Latency {
		if !w.Final {
			continue
		}
		latency++
		if w.Load == nil || w.Load.Mode != "open" || w.Load.Rate != 200 || w.ServerHost != "app1" || len(w.Generators) != 2 {
			t.Errorf("%s: load %+v on %q with %d generator parts; want an open loop at 200 req/s on app1 from 2 generators (flags %v, %v)",
				w.Key, w.Load, w.ServerHost, len(w.Generators), w.Flags, w.Reasons)
			continue
		}
		if got := w.Generators[0].RateRPS + w.Generators[1].RateRPS; got != 200 || w.Generators[0].RateRPS != 100 {
			t.Errorf("%s: the generators sent %.1f and %.1f req/s; want 100 each (2 connections each)", w.Key, w.Generators[0].RateRPS, w.Generators[1].RateRPS)
		}
		if w.Server.CPUSeconds <= 0 {
			t.Errorf("%s: the server on app1 was not sampled: %+v", w.Key, w.Server)
		}
	}
	if latency != 3 {
		t.Errorf("%d final latency windows; want 3", latency)
	}
	key := journal.CapacitySearchKey("one", "user", 1)
	if _, ok := res.CapacitySearch(key); !ok {
		t.Errorf("%s: no end record", key)
	}
	probes := res.CapacityProbes(key)
	if len(probes) == 0 {
		t.Fatalf("%s: no probe journaled", key)
	}
	for _, pr := range probes {
		if pr.Window.ServerHost != "app1" || len(pr.Window.Generators) != 2 || pr.Window.Load == nil {
			t.Errorf("%s probe %d: on %q with %d generator parts; want app1 and 2 parts", key, pr.Probe.Index, pr.Window.ServerHost, len(pr.Window.Generators))
		}
	}
}

// Across hosts, a custom workload's setup steps run from here against
// each fresh process on app1, and the variants they feed are sent to both
// generator hosts as the windows' request pool: an article of another
// process (or none) would answer 404, and the window would fail. The
// stack's services: (a listener on app1 that burns CPU) are measured on
// app1 with each window, and not as foreign CPU there.
func TestSetupStepsAcrossHosts(t *testing.T) {
	n := onHosts(t, []string{"app1", "load1", "load2"}, "one")
	stackDir := t.TempDir()
	forgetSynced(t, stackDir)
	svc := spinningListenerIn(t, n.Host("app1").NS)
	src := hostsSection(n, "app1", "load1", "load2") + "roles:\n  server: app1\n  generators: [load1, load2]\n" +
		strings.ReplaceAll(ownAppFile(""), "dir: .", "dir: "+stackDir) + fmt.Sprintf("    services: [%d]\n", svc)
	opt := hostsRun(t, n, writeFile(t, src))
	if err := RemoteSupported(opt.File, opt.Plan); err != nil {
		t.Fatalf("RemoteSupported: %v; setup steps and templated cases run across hosts", err)
	}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, _ := finals(t, opt.Dir)
	if len(byKey) != 4 {
		t.Fatalf("%d final windows; want 4", len(byKey))
	}
	for k, w := range byKey {
		want := map[string]int{"article": 20, "page": 1000}[w.Case]
		if w.Load == nil || w.ServerHost != "app1" || len(w.Generators) != 2 {
			t.Errorf("%s: load %v on %q from %d generators; want app1 and 2 (reasons %v)", k, w.Load != nil, w.ServerHost, len(w.Generators), w.Reasons)
			continue
		}
		if w.Load.Successes == 0 || w.Load.ErrorCount() != 0 || w.Load.PoolSize != want {
			t.Errorf("%s: %d successes, %d failures (%v), pool %d; want successes only from a pool of %d", k, w.Load.Successes, w.Load.ErrorCount(), w.Load.Errors, w.Load.PoolSize, want)
		}
		for _, g := range w.Generators {
			if g.Successes == 0 {
				t.Errorf("%s: the generator on %s had no success", k, g.Host)
			}
		}
		// Any CPU shows it was measured (a busy host gives the spinner
		// a few percent of a core).
		if v := w.Services; v == nil || v.CPUSeconds <= 0 || v.Processes != 1 {
			t.Errorf("%s: services %+v; want the listener's tree on app1", k, v)
		} else if w.ForeignCores > w.HostBusyCores-w.Server.Cores-v.Cores+0.01 {
			t.Errorf("%s: foreign %.2f cores of app1's %.2f busy includes the service's %.2f", k, w.ForeignCores, w.HostBusyCores, v.Cores)
		}
	}
}

// checkProfiledFromHere holds the one profile window of res to a window
// loaded from here against the server on host: the Go CPU profile read at
// host's address, and perf's profile of the server recorded there over
// the window (where perf works: the namespaces share this kernel).
func checkProfiledFromHere(t *testing.T, res *journal.Results, host string) {
	t.Helper()
	if len(res.Profiling) != 1 {
		t.Fatalf("%d profiling records; want 1", len(res.Profiling))
	}
	p := res.Profiling[0]
	if w := p.Window; w.Load == nil || p.Requests == 0 || w.ServerHost != host || len(w.Generators) != 0 {
		t.Fatalf("%s: %d requests, on %q from %d generator hosts; want a window on %s loaded from here (problems %v)", p.Key, p.Requests, w.ServerHost, len(w.Generators), host, p.Problems)
	}
	kinds := map[string]journal.ProfileFile{}
	for _, f := range p.Profiles {
		kinds[f.Kind] = f
	}
	if kinds[journal.ProfileGoCPU].Samples == 0 {
		t.Errorf("%s: no Go CPU profile (problems %v)", p.Key, p.Problems)
	}
	if _, err := perfrec.Check(context.Background(), t.TempDir()); err != nil {
		t.Logf("perf does not work here (%v): its profile is not checked", err)
	} else if perf := kinds[journal.ProfilePerfServer]; perf.Samples < 50 {
		t.Errorf("%s: perf's profile of the server on %s: %+v (problems %v); want its samples over the window", p.Key, host, perf, p.Problems)
	}
	t.Logf("%s: %d requests; Go CPU %d samples, perf %d samples", p.Key, p.Requests, kinds[journal.ProfileGoCPU].Samples, kinds[journal.ProfilePerfServer].Samples)
}

// spinningListenerIn starts, in the namespace ns ("": ours), a process
// that listens on a TCP port of its loopback and burns some CPU (a short
// burst every 5 ms: a few percent of a core, not the shared host's whole
// core), and returns the port.
func spinningListenerIn(t *testing.T, ns string) int {
	t.Helper()
	argv := []string{"python3", "-c", `import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True)
while True:
    sum(i * i for i in range(5000)); time.sleep(0.005)`}
	if ns != "" {
		argv = append([]string{"ip", "netns", "exec", ns}, argv...)
	}
	svc := exec.Command(argv[0], argv[1:]...)
	out, err := svc.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Process.Kill(); svc.Wait() })
	var port int
	if _, err := fmt.Fscan(out, &port); err != nil {
		t.Fatal(err)
	}
	return port
}

// The server and the load on different sides. With generators: and
// database: alone, the servers run here, listening on every address,
// reaching the database at db1's address (over TLS, verified against its
// CA), and load1 loads them at this machine's address on its link (over
// TLS too: the run's certificate is valid there), the servers sampled here
// and the database on db1 over the window's instants. With server: (and database:) alone, the generator
// runs here against app1's address, and app1's agent samples the server
// and its services: (and db1's the database) over the window the
// generator here announces.
func TestServerAndLoadOnDifferentSides(t *testing.T) {
	n := onHosts(t, []string{"app1", "db1", "load1"}, "plain", "tls")
	protocol := `  cases: [user]
  concurrency: [4]
  warmup: 200ms
  warmup_max: 200ms # see "Fixed warm-ups" at flakyFile
  window: 600ms
  rounds: 1
`
	here := func() string {
		return saasFile(hostsSection(n, "db1", "load1")+"roles:\n  database: db1\n  generators: [load1]\nprofile: quick\n", protocol,
			"stacks:\n  - {name: plain, dir: "+refServerDir+", start: "+refServerBin+"}\n  - {name: tls, dir: "+refServerDir+", start: "+refServerBin+", protocol: h2}\n")
	}
	there := func() string {
		svc := spinningListenerIn(t, n.Host("app1").NS) // started for this run alone
		return saasFile(hostsSection(n, "app1", "db1")+"roles:\n  server: app1\n  database: db1\nprofile: quick\n", protocol+"  profiling: on\n",
			fmt.Sprintf("stacks:\n  - {name: plain, dir: %s, start: %s, services: [%d], pprof: /debug/pprof}\n", refDirForHosts(t), refServerBin, svc))
	}
	for _, c := range []struct {
		name       string
		src        func() string
		windows    int
		serverHost string
		generators int
		dbHost     string
	}{
		{"servers here, load from load1", here, 2, "", 1, "db1"},
		{"server on app1, load from here", there, 1, "app1", 0, "db1"},
	} {
		opt := hostsRun(t, n, writeFile(t, c.src()))
		if err := RemoteSupported(opt.File, opt.Plan); err != nil {
			t.Fatalf("%s: RemoteSupported: %v", c.name, err)
		}
		t0 := time.Now()
		if _, err := Run(context.Background(), opt); err != nil {
			t.Fatalf("%s: run: %v", c.name, err)
		}
		t.Logf("%s: %s", c.name, time.Since(t0).Round(time.Millisecond))
		byKey, res := finals(t, opt.Dir)
		if len(byKey) != c.windows {
			t.Fatalf("%s: %d final windows; want %d", c.name, len(byKey), c.windows)
		}
		if c.serverHost != "" {
			checkProfiledFromHere(t, res, c.serverHost)
		}
		for k, w := range byKey {
			l := w.Load
			if l == nil || l.Successes == 0 || l.ErrorCount() != 0 {
				t.Errorf("%s: %s: load %+v (reasons %v); want successes only", c.name, k, l, w.Reasons)
				continue
			}
			if w.Stack == "tls" && (l.TLS == nil || l.Protocol != "h2") {
				t.Errorf("%s: %s: protocol %q, TLS %+v; want h2 over TLS to this machine's address", c.name, k, l.Protocol, l.TLS)
			}
			if w.ServerHost != c.serverHost || len(w.Generators) != c.generators || w.DatabaseHost != c.dbHost {
				t.Errorf("%s: %s: server on %q, %d generator hosts, database on %q; want %q, %d, %q",
					c.name, k, w.ServerHost, len(w.Generators), w.DatabaseHost, c.serverHost, c.generators, c.dbHost)
			}
			if w.Server.CPUSeconds <= 0 || w.Server.RSSPeakBytes <= 0 || w.Generator.CPUSeconds <= 0 {
				t.Errorf("%s: %s: server %+v, generator %+v; want both measured", c.name, k, w.Server, w.Generator)
			}
			if c.dbHost != "" && w.Database.CPUSeconds <= 0 {
				t.Errorf("%s: %s: database %+v; want it sampled on %s", c.name, k, w.Database, c.dbHost)
			}
			if v := w.Services; c.serverHost != "" && (v == nil || v.CPUSeconds <= 0 || v.Processes != 1) {
				t.Errorf("%s: %s: services %+v; want the listener's tree on %s", c.name, k, v, c.serverHost)
			}
			t.Logf("%s: %s: %d successes; server %.3f CPU-s, generator %.3f CPU-s, database %.3f CPU-s",
				c.name, k, l.Successes, w.Server.CPUSeconds, w.Generator.CPUSeconds, w.Database.CPUSeconds)
		}
	}
}
