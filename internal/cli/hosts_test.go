package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/remote"
	"github.com/stackbench/stackbench/internal/remote/sshtest"
)

// serveEnv makes the test binary a small HTTP server on every address at
// $PORT (200 on every path), for the server an agent starts.
const serveEnv = "STACKBENCH_CLI_TEST_SERVE"

// The test binary is what `stackbench plan` copies to the hosts; run with
// "agent" it is `stackbench agent`, and with "load" (as an agent runs the
// generator) `stackbench load`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "agent" || os.Args[1] == "load") {
		os.Exit(Main(context.Background(), os.Args[1:], OSEnv()))
	}
	if os.Getenv(serveEnv) != "" {
		h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
		fmt.Fprintln(os.Stderr, http.ListenAndServe(":"+os.Getenv("PORT"), h))
		os.Exit(1)
	}
	// One PostgreSQL cluster for the package's tests that need a seeded
	// database but not the embedded one's start (pgtest.Cluster), torn
	// down after them.
	dir, err := os.MkdirTemp("", "stackbench-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	refServerDir = dir
	os.Exit(pgtest.Run(m, func() { os.RemoveAll(dir) }))
}

func hostsYAML(n *sshtest.Net, extra string) string {
	var b strings.Builder
	b.WriteString("hosts:\n")
	for _, h := range n.Hosts {
		fmt.Fprintf(&b, "  %s: {ssh: \"%s@%s:%d\", identity: %s}\n", h.Name, n.User, h.Addr, h.Port, n.Identity)
	}
	b.WriteString(extra)
	b.WriteString("roles:\n  server: app1\n  database: db1\n  generators: [load1]\n")
	b.WriteString("stacks:\n  - name: a\n    dir: apps/a\n    start: ./server\n")
	return b.String()
}

// stackbench plan shows where each role runs and checks every host over
// SSH; an unreachable host fails it in seconds, an unknown host key is
// refused with its fingerprint.
func TestPlanChecksHosts(t *testing.T) {
	t.Parallel() // the hosts and their agent are shared safely (sshtest)
	n := sshtest.Start(t, "app1", "db1", "load1")
	sshtest.ForgetAgent(t)
	dir := writeComparison(t, hostsYAML(n, ""))
	code, out, errOut := runMain(t, dir, nil, "plan", "--known-hosts", n.KnownHosts)
	if code != 0 {
		t.Fatalf("plan: code %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"roles:\n  server      app1 (root@" + n.Host("app1").Addr + ":22)\n",
		"  database    db1 (root@" + n.Host("db1").Addr + ":22)\n",
		"  generators  load1 (root@" + n.Host("load1").Addr + ":22), the load split evenly\n",
		"hosts, checked over SSH:\n",
		"PostgreSQL in /",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	// The namespaces share our clock: each offset is a few microseconds
	// either side of 0, so its sign is chance.
	if got := len(regexp.MustCompile(`clock [+-]\S+ ± \S+`).FindAllString(out, -1)); got != 3 {
		t.Errorf("want a clock offset with its bound for each of the three hosts, found %d:\n%s", got, out)
	}
	if strings.Count(out, "can listen") != 3 || strings.Count(out, "PostgreSQL in") != 1 {
		t.Errorf("want three hosts checked and PostgreSQL looked for on db1 alone:\n%s", out)
	}

	dir = writeComparison(t, hostsYAML(n, "  gone: {ssh: \"root@"+n.Unreachable+"\", identity: "+n.Identity+"}\n"))
	began := time.Now()
	code, out, errOut = runMain(t, dir, nil, "plan", "--known-hosts", n.KnownHosts)
	took := time.Since(began)
	if code != ExitNotMeasured || !strings.Contains(errOut, "host gone (root@"+n.Unreachable+":22) is unreachable") || !strings.Contains(out, "gone  ") {
		t.Fatalf("unreachable host: code %d\n%s\n%s", code, out, errOut)
	}
	if took > 8*time.Second {
		t.Fatalf("plan with an unreachable host took %s", took)
	}

	known := n.KnownHostsWith(t, nil, "app1", "load1")
	dir = writeComparison(t, hostsYAML(n, ""))
	code, _, errOut = runMain(t, dir, nil, "plan", "--known-hosts", known)
	fp := ssh.FingerprintSHA256(n.Host("db1").Key)
	if code != ExitNotMeasured || !strings.Contains(errOut, "host db1 ("+n.Host("db1").Addr+":22) is not in "+known) || !strings.Contains(errOut, fp) {
		t.Fatalf("unknown key: code %d, stderr %s; want the refusal with %s", code, errOut, fp)
	}
}

// run refuses, naming it, what cannot be measured with roles on other
// hosts, instead of measuring everything here: a stack that listens on
// the loopback only while its load comes from another host.
func TestRunRefusesRolesItCannotPlace(t *testing.T) {
	dir := writeComparison(t, "workload: micro\nhosts:\n  app1: {ssh: b@h}\nroles: {server: app1}\nstacks:\n  - name: a\n    dir: apps/a\n    start: ./server\n    env: {HOST: 127.0.0.1}\n")
	code, _, errOut := runMain(t, dir, nil, "run")
	if code != ExitUsage || !strings.Contains(errOut, "these cannot be measured with them: stack a with HOST=127.0.0.1") {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
}

// The agent is left out of the command list, but answers.
func TestAgentIsHidden(t *testing.T) {
	_, out, _ := runMain(t, t.TempDir(), nil, "help")
	if strings.Contains(out, "agent") {
		t.Fatalf("help lists the agent:\n%s", out)
	}
	code, out, _ := runMain(t, t.TempDir(), nil, "agent")
	if code != 0 || out != "" {
		t.Fatalf("agent with empty stdin: code %d, stdout %q; want 0 and nothing", code, out)
	}
}

// One window from two generator hosts against a server on a third, over
// SSH to sshd in network namespaces: the agents start their generators at
// one instant (each on its own clock, corrected by its measured offset),
// and the merged result's counts are the sums of the generators' own and
// its percentiles those of the two histograms merged. A generator refuses
// the server's non-loopback address without --allow-remote.
func TestTwoGeneratorsOneWindow(t *testing.T) {
	t.Parallel() // the hosts and their agent are shared safely (sshtest)
	n := sshtest.Start(t, "app1", "load1", "load2")
	sshtest.ForgetAgent(t)
	ctx := context.Background()
	o := remote.Options{KnownHosts: []string{n.KnownHosts}}
	connect := func(name string) *remote.Session {
		h := n.Host(name)
		s, err := remote.Connect(ctx, remote.Host{Name: name, User: n.User, Addr: h.Addr, Port: h.Port, Identity: n.Identity}, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	app := connect("app1")
	port, err := app.Agent.FreePort(ctx)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if _, _, err := app.Agent.Start(ctx, agent.StartSpec{Name: "server", Dir: t.TempDir(), Command: exe,
		Env: []string{serveEnv + "=1", "PORT=" + strconv.Itoa(port)}, Port: port, HealthPath: "/health",
		LogPath: "server", BootTimeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	url := "http://" + net.JoinHostPort(n.Host("app1").Addr, strconv.Itoa(port)) + "/"
	args := func(allowRemote bool, at time.Time) []string {
		f := load.FlagsOf(load.Config{URL: url, Connections: 2, Duration: time.Second, Warmup: 200 * time.Millisecond,
			Timeout: 5 * time.Second, AllowRemote: allowRemote, StartAt: at})
		f.Output = "json"
		return append([]string{"load"}, f.Args(url)...)
	}

	gens := []*remote.Session{connect("load1"), connect("load2")}
	if _, err := gens[0].Agent.Load(ctx, agent.LoadSpec{Args: args(false, time.Time{})}); err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Fatalf("a generator without --allow-remote: %v; want the loopback refusal", err)
	}
	// Far enough ahead for both generators to start and open their
	// connections on a busy host.
	start := time.Now().Add(3 * time.Second)
	parts := make([]*load.Result, len(gens))
	errs := make([]error, len(gens))
	var wg sync.WaitGroup
	for i, g := range gens {
		off, err := g.Agent.Clock(ctx, remote.ClockExchanges)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			raw, err := g.Agent.Load(ctx, agent.LoadSpec{Args: args(true, start.Add(off.Offset))})
			if err == nil {
				parts[i] = &load.Result{}
				err = json.Unmarshal(raw, parts[i])
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("generator %d: %v", i+1, err)
		}
		if parts[i].Successes == 0 {
			t.Fatalf("generator %d had no success: %+v", i+1, parts[i])
		}
	}
	// Each window opens at the instant, never before it (the namespaces
	// share our clock), and the two cover the same interval: they overlap
	// over most of the window. How late each opens is how late a busy host
	// wakes a timer, which says nothing of the engine, so it is logged,
	// not bounded.
	for i, p := range parts {
		if opened := time.Unix(0, p.MeasureStartUnixNano); opened.Before(start.Add(-time.Millisecond)) {
			t.Errorf("generator %d opened its window %s before the instant", i+1, start.Sub(opened))
		}
	}
	skew := time.Duration(parts[0].MeasureStartUnixNano - parts[1].MeasureStartUnixNano).Abs()
	overlap := time.Duration(min(parts[0].MeasureEndUnixNano, parts[1].MeasureEndUnixNano) - max(parts[0].MeasureStartUnixNano, parts[1].MeasureStartUnixNano))
	t.Logf("the generators' windows opened %s apart and overlap for %s", skew, overlap)
	if overlap < 3*time.Second/4 {
		t.Errorf("the generators' windows overlap for %s of their 1s (opened %s apart); they were started at one instant", overlap, skew)
	}
	m, err := load.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if m.Successes != parts[0].Successes+parts[1].Successes || m.Attempts != parts[0].Attempts+parts[1].Attempts ||
		m.ErrorCount() != parts[0].ErrorCount()+parts[1].ErrorCount() {
		t.Fatalf("merged successes %d, attempts %d, errors %d; generators %d+%d, %d+%d, %d+%d", m.Successes, m.Attempts, m.ErrorCount(),
			parts[0].Successes, parts[1].Successes, parts[0].Attempts, parts[1].Attempts, parts[0].ErrorCount(), parts[1].ErrorCount())
	}
	a, err := hist.Decode(parts[0].LatencyHist)
	if err != nil {
		t.Fatal(err)
	}
	b, err := hist.Decode(parts[1].LatencyHist)
	if err != nil {
		t.Fatal(err)
	}
	a.Merge(b)
	if a.Count() != m.Successes {
		t.Fatalf("the generators' histograms hold %d latencies; merged successes %d", a.Count(), m.Successes)
	}
	for _, q := range []struct {
		p    float64
		got  int64
		name string
	}{{50, m.LatencyMicros.P50, "p50"}, {90, m.LatencyMicros.P90, "p90"}, {99, m.LatencyMicros.P99, "p99"}, {99.9, m.LatencyMicros.P999, "p99.9"}} {
		if want := a.PercentileMicros(q.p); q.got != want {
			t.Errorf("merged %s = %d µs; the merged histograms say %d µs", q.name, q.got, want)
		}
	}
}
