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
	"github.com/stackbench/stackbench/internal/remote"
	"github.com/stackbench/stackbench/internal/remote/sshtest"
)

// remoteFile is two stacks of the Go reference server on app1, their
// embedded database on db1, loaded from load1 and load2: one case, two
// rounds, short windows.
func remoteFile(n *sshtest.Net) string {
	host := func(name string) string {
		h := n.Host(name)
		return fmt.Sprintf("  %s: {ssh: \"%s@%s\", identity: %s}\n", name, n.User, h.HostPort(), n.Identity)
	}
	return `
workload: saas-slice
hosts:
` + host("app1") + host("db1") + host("load1") + host("load2") + `roles:
  server: app1
  database: db1
  generators: [load1, load2]
profile: quick
protocol:
  cases: [user]
  concurrency: [5]
  warmup: 200ms
  window: 600ms
  rounds: 2
  boot_starts: 0
  gate: off
stacks:
  - name: one
    dir: ` + refServerDir + `
    start: ` + refServerBin + `
  - name: two
    dir: ` + refServerDir + `
    start: ` + refServerBin + `
`
}

// A run with the server, the database and two generators in four
// namespaces, over SSH: every window's counts are the sums of the
// generators' own and its percentiles those of their merged histograms;
// a session killed mid-window gives a redone window; a generator host
// that stays unreachable stops the run with its journal intact, and
// --resume reconnects and finishes it.
func TestRunWithServerAndGeneratorsOnHosts(t *testing.T) {
	n := sshtest.Start(t, "app1", "db1", "load1", "load2")
	sshtest.ForgetAgentOf(t, stackbenchBin)
	t.Cleanup(func() { killIn(n) }) // before the namespaces go: nothing left behind
	t.Cleanup(func() {
		// The agents (one user, one file system) keep the servers' logs
		// in the user's cache directory.
		cache, _ := os.UserCacheDir()
		logs, _ := filepath.Glob(filepath.Join(cache, "stackbench", "logs", "one.*.log"))
		more, _ := filepath.Glob(filepath.Join(cache, "stackbench", "logs", "two.*.log"))
		for _, l := range append(logs, more...) {
			os.Remove(l)
		}
	})
	path := writeFile(t, remoteFile(n))
	forgetSynced(t, refServerDir)
	f, err := plan.LoadEnv(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(plan.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
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
	dir := filepath.Join(t.TempDir(), "results")
	var log strings.Builder
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("run log:\n%s", log.String())
		}
	})
	opt := Options{File: f, Plan: p, Dir: dir, Stackbench: stackbenchBin, Log: &log, ToolVersion: "test",
		Remote: remote.Options{KnownHosts: []string{n.KnownHosts}, Binary: stackbenchBin, DialTimeout: time.Second}}
	t0 := time.Now()
	_, err = runWith(context.Background(), opt, testHooks{loaded: hook})
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
