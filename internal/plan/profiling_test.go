package plan

import (
	"strings"
	"testing"
	"time"
)

// profiling: on is read, fingerprinted, and --profiling overrides it; a
// stack's pprof: and runtime: are read and fingerprinted too.
func TestProfilingKeys(t *testing.T) {
	path := writeConfig(t, `protocol:
  profiling: on
stacks:
  - name: a
    dir: apps/a
    start: ./server
    pprof: /debug/pprof
    runtime: node
  - name: b
    dir: apps/b
    start: ./server
`)
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	on, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if !on.Protocol.Profiling || on.Stacks[0].Pprof != "/debug/pprof" || on.Stacks[0].Runtime != RuntimeNode {
		t.Fatalf("profiling %v, stack a %+v", on.Protocol.Profiling, on.Stacks[0])
	}
	no := false
	off, err := f.Resolve(Overrides{Profiling: &no})
	if err != nil {
		t.Fatal(err)
	}
	// Two stacks × every saas-slice case × one level, each window at
	// least 5 s: the estimate grows by at least that much.
	if grow := on.Estimate() - off.Estimate(); grow < time.Duration(2*len(on.Cases)*len(on.Protocol.Concurrency))*MinProfilingWindow {
		t.Errorf("profiling adds %s to the estimate; want at least a 5 s window per cell", grow)
	}
	if off.Protocol.Profiling || off.Fingerprint == on.Fingerprint {
		t.Errorf("--profiling=false: profiling %v, fingerprint unchanged %v", off.Protocol.Profiling, off.Fingerprint == on.Fingerprint)
	}
	f.Stacks[0].Pprof = "/other"
	other, _ := f.Resolve(Overrides{})
	if other.Fingerprint == on.Fingerprint {
		t.Error("a stack's pprof path is not in the fingerprint")
	}
}

func TestProfilingKeysRefused(t *testing.T) {
	got := strings.Join(loadProblems(t, `protocol:
  profiling: sometimes
stacks:
  - name: a
    dir: apps/a
    start: ./server
    pprof: debug/pprof
    runtime: erlang
`), "\n")
	for _, want := range []string{
		`2:14: profiling "sometimes": not on or off`,
		"7:12: pprof \"debug/pprof\" must start with '/'",
		"8:14: runtime \"erlang\" is not known; write one of go, native, node",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems:\n%s\nwant one with %q", got, want)
		}
	}
}

func TestProfilingWindow(t *testing.T) {
	for _, c := range []struct{ window, want time.Duration }{
		{time.Second, MinProfilingWindow},
		{5 * time.Second, 5 * time.Second},
		{5200 * time.Millisecond, 6 * time.Second},
		{30 * time.Second, 30 * time.Second},
	} {
		if got := (Protocol{Window: c.window}).ProfilingWindow(); got != c.want {
			t.Errorf("window %s: profile window %s, want %s", c.window, got, c.want)
		}
	}
}
