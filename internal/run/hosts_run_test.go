package run

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/remote/sshtest"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// The runs across hosts whose tests reach into the run (testHooks) are
// here; the others are in internal/run/acrosshosts, a package of its own
// so that go test runs them beside this one's.

// onHosts starts the named test hosts for runs whose agents are copies
// of stackbenchBin (runtest.OnHosts).
func onHosts(t *testing.T, hosts []string, stacks ...string) *sshtest.Net {
	t.Helper()
	return runtest.OnHosts(t, stackbenchBin, hosts, stacks...)
}

// hostsRun resolves the comparison file at path into the options of a run
// over n's hosts into a new results directory; the run's log is shown
// when the test fails.
func hostsRun(t *testing.T, n *sshtest.Net, path string) Options {
	t.Helper()
	f, p, ro, log := runtest.HostsPlan(t, n, path, stackbenchBin)
	return Options{File: f, Plan: p, Dir: filepath.Join(t.TempDir(), "results"), Stackbench: stackbenchBin, Log: log, ToolVersion: "test", Remote: ro}
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

// A run with the server, the database and two generators in four
// namespaces, over SSH: every window's counts are the sums of the
// generators' own and its percentiles those of their merged histograms;
// a session killed mid-window gives a redone window; a generator host
// that stays unreachable stops the run with its journal intact, and
// --resume reconnects and finishes it.
func TestRunWithServerAndGeneratorsOnHosts(t *testing.T) {
	n := onHosts(t, []string{"app1", "db1", "load1", "load2"}, "one", "two")
	path := writeFile(t, bins.RefOnHostsFile(n, runtest.DirForHosts(t, refServerDir), `  cases: [user]
  concurrency: [5]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 2
`, []string{"one", "two"}, ""))
	opt := hostsRun(t, n, path)
	opt.SkipParity = true // what is checked is the windows; the gate across hosts is TestServerOnHostWithTheDatabaseHere's
	p, dir := opt.Plan, opt.Dir
	if len(p.Windows) != 4 {
		t.Fatalf("the plan has %d windows; want 4", len(p.Windows))
	}
	dropKey, cutKey := p.Windows[1].Key, p.Windows[2].Key
	cut := ""
	var leads []time.Duration
	hook := func(key string, attempt int, fl *fleet) {
		leads = append(leads, fl.lead.last)
		switch {
		case key == dropKey && attempt == 1:
			// Mid-window: after the lead and the warm-up.
			s := fl.sessions["load1"]
			time.AfterFunc(fl.lead.last+400*time.Millisecond, func() { s.Drop() })
		case key == cutKey && cut == "":
			cut = linkOf(t, n.Host("load2").NS)
			ipLink(t, n.Host("load2").NS, cut, "down")
			s := fl.sessions["load2"]
			time.AfterFunc(fl.lead.last+400*time.Millisecond, func() { s.Drop() })
		}
	}
	t0 := time.Now()
	_, err := runWith(context.Background(), opt, testHooks{loaded: hook})
	t.Logf("first invocation: %s", time.Since(t0).Round(time.Millisecond))
	if !errors.Is(err, ErrHostUnreachable) || !strings.Contains(err.Error(), "host load2") {
		t.Fatalf("the run with load2 cut off: %v; want it stopped naming load2", err)
	}
	got, _ := runtest.Finals(t, dir)
	if len(got) != 2 {
		t.Fatalf("the stopped run journaled %d final windows; want the 2 before the cut", len(got))
	}
	// The first window waits the longest lead; the next are scheduled
	// from the launches timed (remote_lead.go).
	t.Logf("the windows' leads: %v", leads)
	if len(leads) < 2 || leads[0] != maxRemoteLead || leads[1] >= maxRemoteLead {
		t.Errorf("the windows' leads %v; want %s, then less", leads, maxRemoteLead)
	}

	ipLink(t, n.Host("load2").NS, cut, "up")
	opt.Resume = true
	t0 = time.Now()
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatalf("resume: %v", err)
	}
	t.Logf("resume: %s", time.Since(t0).Round(time.Millisecond))

	got, res := runtest.Finals(t, dir)
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
