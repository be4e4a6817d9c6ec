package acrosshosts

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/profiling/perfrec"
	"github.com/stackbench/stackbench/internal/run"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// Across hosts, a latency window is an open loop whose rate the
// generator hosts share by their connections, and a capacity search's
// probes are windows of the same kind: each measured on app1 with both
// generators' parts.
func TestLatencyAndCapacityAcrossHosts(t *testing.T) {
	n := onHosts(t, []string{"app1", "db1", "load1", "load2"}, "one")
	// Three rounds with a latency window at 200 req/s after each (a cell
	// needs 3 latency windows), then a capacity search whose budget
	// affords a few probes: the first fits in any budget over its warm-up
	// and window (0.4 s); each next one is expected to take what the
	// first took (with the lead the windows before set, remote_lead.go),
	// and is not started when it would overrun 2 s. What is checked is
	// where and from where they were measured.
	path := writeFile(t, bins.RefOnHostsFile(n, runtest.DirForHosts(t, bins.RefServerDir), `  cases: [user]
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 3
  latency: {rate: 200}
`, []string{"one"}, `capacity:
  cases: {user: p99=50ms}
  probe: 300ms
  warmup: 100ms
  budget: 2s
  confirm: 1
  resolution: 25%
`))
	opt := hostsRun(t, n, path)
	opt.SkipParity = true // what is checked is where the windows ran; the gate is TestEveryWireAcrossHosts's
	if err := run.RemoteSupported(opt.File, opt.Plan); err != nil {
		t.Fatalf("RemoteSupported: %v; latency windows and capacity searches run across hosts", err)
	}
	if _, err := run.Run(context.Background(), opt); err != nil {
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

// sessionFlow is a flow case of the own app (runtest.OwnAppFile): log in
// (the token from a header), write an article (its slug from the
// answer), read it back with the slug; each step carries what the one
// before captured, so a user whose captures went astray fails. Then a
// mix of the app's two cases, articles three to one page.
const sessionFlow = `    - flow:
        name: session
        steps:
          - {name: login, method: POST, path: /login, expect: [200], capture: {auth: header.Authorization}}
          - name: write
            method: POST
            path: /articles
            headers: {Authorization: "${auth}", Content-Type: application/json}
            body: '{"article":{"title":"Flow ${rand:1..1000000}"}}'
            expect: [201]
            capture: {slug: body.article.slug}
          - {name: read, path: "/articles/${slug}", expect: [200]}
    - mix: {name: browse, of: {article: 3, page: 1}}
`

// Across hosts, a custom workload's setup steps run from here against
// each fresh process on app1, and the variants they feed are sent to both
// generator hosts as the windows' request pool: an article of another
// process (or none) would answer 404, and the window would fail. The
// stack's services: (a listener on app1 that burns CPU) are measured on
// app1 with each window, and not as foreign CPU there. A flow case goes
// to both generator hosts too, each running its share of the users, and
// its window journals the merged flow figures (checkFlowAcrossHosts).
func TestSetupStepsAcrossHosts(t *testing.T) {
	n := onHosts(t, []string{"app1", "load1", "load2"}, "one")
	stackDir := t.TempDir()
	runtest.ForgetSynced(t, stackDir)
	svc := runtest.SpinningListenerIn(t, n.Host("app1").NS)
	own := strings.Replace(bins.OwnAppFile(""), "profile: quick\n", sessionFlow+"profile: quick\n", 1)
	src := runtest.HostsSection(n, "app1", "load1", "load2") + "roles:\n  server: app1\n  generators: [load1, load2]\n" +
		strings.ReplaceAll(own, "dir: .", "dir: "+stackDir) + fmt.Sprintf("    services: [%d]\n", svc)
	opt := hostsRun(t, n, writeFile(t, src))
	// What is checked is the windows on app1; the parity gate runs here
	// whatever the roles, and internal/run's TestSetupCapturesFeedTheVariantsOfEachProcess
	// checks it on this app with its setup steps.
	opt.SkipParity = true
	if err := run.RemoteSupported(opt.File, opt.Plan); err != nil {
		t.Fatalf("RemoteSupported: %v; setup steps and templated cases run across hosts", err)
	}
	if _, err := run.Run(context.Background(), opt); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, _ := runtest.Finals(t, opt.Dir)
	if len(byKey) != 8 {
		t.Fatalf("%d final windows; want 8 (article, page, the session flow and the browse mix, 2 rounds)", len(byKey))
	}
	flows, mixes := 0, 0
	for k, w := range byKey {
		switch w.Case {
		case "session":
			flows++
			checkFlowAcrossHosts(t, k, w)
		case "browse":
			mixes++
			checkMixAcrossHosts(t, k, w)
		}
		// A flow's users render their own requests: the pool is the
		// engine's one placeholder. A mix's pool holds its routes'.
		want := map[string]int{"article": 20, "page": 1000, "session": 1, "browse": 1020}[w.Case]
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
		} else if w.ForeignTickCores > w.HostBusyCores-w.Server.Cores-v.Cores+0.01 {
			// The ticks' reading is the host's busy CPU less the
			// groups' (the service's among them); the process-by-process
			// one is exact CPU of the processes no group claims, which
			// the busy ticks undercount (docs/methodology.md, "Host CPU
			// and foreign CPU"), so only the first is held to busy.
			t.Errorf("%s: foreign by the ticks %.2f cores of app1's %.2f busy includes the service's %.2f", k, w.ForeignTickCores, w.HostBusyCores, v.Cores)
		}
		if w.ForeignProcessCores <= 0 {
			t.Errorf("%s: no process-by-process foreign CPU from app1's agent (ticks %.2f)", k, w.ForeignTickCores)
		}
	}
	if flows != 2 || mixes != 2 {
		t.Errorf("%d final windows of the session flow, %d of the browse mix; want 2 each", flows, mixes)
	}
}

// checkMixAcrossHosts holds a mix's window loaded from two generator
// hosts to its routes: both counted, their attempts summing to the
// window's, in the ratio of the weights (each generator sends the whole
// interleaving over its connections).
func checkMixAcrossHosts(t *testing.T, key string, w journal.Window) {
	t.Helper()
	l := w.Load
	if l == nil || len(l.Routes) != 2 {
		t.Fatalf("%s: routes %v; want article and page (reasons %v)", key, l != nil, w.Reasons)
	}
	var sum int64
	for _, r := range l.Routes {
		sum += r.Attempts
	}
	art := l.Routes[0]
	if art.Name == "page" {
		art = l.Routes[1]
	}
	t.Logf("%s: %d attempts, article's share %.3f (weight's %.3f)", key, l.Attempts, art.Share, art.WeightShare)
	if sum != l.Attempts || art.Name != "article" || math.Abs(art.Share-0.75) > 0.01 {
		t.Errorf("%s: routes %s (%d attempts, share %.3f) over %d attempts (the routes' sum %d); want article at 3/4 of them", key, art.Name, art.Attempts, art.Share, l.Attempts, sum)
	}
}

// checkFlowAcrossHosts holds a flow's window loaded from two generator
// hosts to its journaled flow figures: flows completed and none failed
// (a user whose token or slug went astray fails its flow), every step
// counted, the CPU per flow the generators' summed CPU over the merged
// flows, and each generator's requests in the merged ones.
func checkFlowAcrossHosts(t *testing.T, key string, w journal.Window) {
	t.Helper()
	l := w.Load
	if l == nil || l.Flow == nil {
		t.Fatalf("%s: no flow figures journaled (load %v; reasons %v)", key, l != nil, w.Reasons)
	}
	if len(w.Generators) != 2 {
		t.Fatalf("%s: %d generator parts; want 2", key, len(w.Generators))
	}
	f := l.Flow
	t.Logf("%s: %d flows started, %d completed (%.0f/s), %d failed %v; p50 %d µs, p99 %d µs; %.1f generator CPU-µs per flow; parts %d and %d successes",
		key, f.Started, f.Completed, f.FlowsPerSecond, f.Failed, f.Failures, f.LatencyMicros.P50, f.LatencyMicros.P99, f.GeneratorCPUMicrosPerFlow,
		w.Generators[0].Successes, w.Generators[1].Successes)
	if f.Name != "session" || f.Completed == 0 || f.Failed != 0 || f.FlowsPerSecond <= 0 || f.LatencyMicros.P50 <= 0 || f.LatencyHist == "" {
		t.Errorf("%s: flow %s: %d completed, %d failed (%v), %.1f/s, p50 %d µs; want flows completed and none failed",
			key, f.Name, f.Completed, f.Failed, f.Failures, f.FlowsPerSecond, f.LatencyMicros.P50)
	}
	if len(f.Steps) != 3 || f.Steps[0].Name != "login" || f.Steps[2].Name != "read" || f.Steps[2].Successes < f.Completed {
		t.Errorf("%s: steps %+v; want login, write and read, each flow's read among the successes", key, f.Steps)
	}
	var steps int64
	for _, s := range f.Steps {
		steps += s.Attempts
	}
	if steps != l.Attempts {
		t.Errorf("%s: the steps' attempts sum to %d; the window's are %d", key, steps, l.Attempts)
	}
	if want := l.GeneratorCPUSeconds * 1e6 / float64(f.Completed); math.Abs(f.GeneratorCPUMicrosPerFlow-want) > 1e-6*want {
		t.Errorf("%s: %.3f generator CPU-µs per flow; the summed CPU over the merged flows is %.3f", key, f.GeneratorCPUMicrosPerFlow, want)
	}
	if w.Generators[0].Connections+w.Generators[1].Connections != w.Concurrency ||
		w.Generators[0].Successes+w.Generators[1].Successes != l.Successes {
		t.Errorf("%s: generator parts %+v; want two whose connections and successes sum to the window's", key, w.Generators)
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
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 1
`
	here := func() string {
		return runtest.SaasFile(runtest.HostsSection(n, "db1", "load1")+"roles:\n  database: db1\n  generators: [load1]\nprofile: quick\n", protocol,
			"stacks:\n  - {name: plain, dir: "+bins.RefServerDir+", start: "+bins.RefServer+"}\n  - {name: tls, dir: "+bins.RefServerDir+", start: "+bins.RefServer+", protocol: h2}\n")
	}
	there := func() string {
		svc := runtest.SpinningListenerIn(t, n.Host("app1").NS) // started for this run alone
		return runtest.SaasFile(runtest.HostsSection(n, "app1", "db1")+"roles:\n  server: app1\n  database: db1\nprofile: quick\n", protocol+"  profiling: on\n",
			fmt.Sprintf("stacks:\n  - {name: plain, dir: %s, start: %s, services: [%d], pprof: /debug/pprof}\n", runtest.DirForHosts(t, bins.RefServerDir), bins.RefServer, svc))
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
		opt.SkipParity = true // what is checked is where the windows ran; the gate is TestEveryWireAcrossHosts's
		if err := run.RemoteSupported(opt.File, opt.Plan); err != nil {
			t.Fatalf("%s: RemoteSupported: %v", c.name, err)
		}
		t0 := time.Now()
		if _, err := run.Run(context.Background(), opt); err != nil {
			t.Fatalf("%s: run: %v", c.name, err)
		}
		t.Logf("%s: %s", c.name, time.Since(t0).Round(time.Millisecond))
		byKey, res := runtest.Finals(t, opt.Dir)
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
