package plan

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCapacitySectionResolves(t *testing.T) {
	path := writeConfig(t, `workload: saas-slice
profile: quick
capacity:
  slo: p99=20ms
  cases: {order: p99.9=50ms, health: p99=5ms}
  errors: 0.5%
  resolution: 0.03
  confirm: 5
  retries: 0
  probe: 1s
  warmup: 300ms
  budget: 90s
  connections: 128
  start_fraction: 25%
  generator_wait: 80%
  searches: 5
protocol:
  cases: [user, order, health]
`+validStacks)
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Capacity
	if c == nil {
		t.Fatal("no capacity phase")
	}
	want := []CapacityCase{{Case: "user", SLO: "p99=20ms"}, {Case: "order", SLO: "p99.9=50ms"}, {Case: "health", SLO: "p99=5ms"}}
	if !slices.EqualFunc(c.Cases, want, func(a, b CapacityCase) bool { return a.Case == b.Case && a.SLO == b.SLO && len(a.Steps) == 0 }) {
		t.Errorf("cases %+v, want %+v", c.Cases, want)
	}
	if c.MaxErrorShare != 0.005 || c.Resolution != 0.03 || c.Confirmations != 5 || c.Retries != 0 || c.Probe != time.Second ||
		c.Warmup != 300*time.Millisecond || c.Budget != 90*time.Second || c.Connections != 128 || c.StartFraction != 0.25 || c.MaxGeneratorWaitShare != 0.8 || c.Searches != 5 {
		t.Errorf("settings %+v", *c)
	}
	if got := c.Cases[1].ParsedSLO(); got.Percentile != 99.9 || got.Latency != 50*time.Millisecond {
		t.Errorf("parsed SLO %+v", got)
	}
	if e := p.EstimateCapacity(); e <= 0 || p.Estimate() < e+p.EstimateWindows(p.Windows) {
		t.Errorf("estimate %s of %s in all", e, p.Estimate())
	}

	// Only the cases named, when there is no SLO for all; defaults elsewhere.
	path = writeConfig(t, "workload: saas-slice\ncapacity:\n  cases: {order: p99=50ms}\n"+validStacks)
	f, _ = LoadEnv(path, noEnv)
	p2, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if c := p2.Capacity; len(c.Cases) != 1 || c.Cases[0].Case != "order" || c.Confirmations != DefaultCapacityConfirm ||
		c.Budget != DefaultCapacityBudget || c.Resolution != 0.02 || c.Connections != DefaultCapacityConnections || c.MaxGeneratorWaitShare != 0.5 ||
		c.Searches != DefaultCapacitySearches || DefaultCapacitySearches < 4 {
		t.Errorf("capacity %+v", *c)
	}
	// One stack has no step: one search by default.
	p1, err := f.Resolve(Overrides{Stacks: []string{"a"}})
	if err != nil || p1.Capacity.Searches != 1 {
		t.Errorf("one stack: %v, %d searches", err, p1.Capacity.Searches)
	}
	// The estimate grows with the searches: each is a whole search and a
	// fresh process.
	p2.Capacity.Searches = 1
	one := p2.EstimateCapacity()
	p2.Capacity.Searches = 4
	if four := p2.EstimateCapacity(); four != 4*one {
		t.Errorf("estimate of 4 searches %s, of 1 %s", four, one)
	}
	// Deselecting the only case with an SLO is an error that says what to do.
	if _, err := f.Resolve(Overrides{Cases: []string{"user"}}); err == nil || !strings.Contains(err.Error(), "none of the cases this run measures has an SLO") {
		t.Errorf("want the no-SLO error, got %v", err)
	}
}

// The section is part of the fingerprint; a file without it keeps the
// fingerprint it had.
func TestCapacityChangesTheFingerprint(t *testing.T) {
	fp := func(extra string) string {
		f, err := LoadEnv(writeConfig(t, "workload: saas-slice\n"+extra+validStacks), noEnv)
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.Resolve(Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		return p.Fingerprint
	}
	none, a, b := fp(""), fp("capacity: {slo: p99=20ms}\n"), fp("capacity: {slo: p99=25ms}\n")
	if none == a || a == b || none == b {
		t.Errorf("fingerprints %s %s %s must differ", none, a, b)
	}
	if s := fp("capacity: {slo: p99=20ms, searches: 2}\n"); s == a {
		t.Error("the searches are not in the fingerprint")
	}
	if s := fp("capacity: {slo: p99=20ms, searches: 5}\n"); s != a {
		t.Error("searches: 5, the default, changes the fingerprint")
	}
	if again := fp("capacity: {slo: p99=20ms}\n"); again != a {
		t.Errorf("fingerprint not stable: %s then %s", a, again)
	}
}

func TestCapacityProblems(t *testing.T) {
	got := loadProblems(t, `workload: saas-slice
capacity:
  slo: p99=twenty
  cases:
    usr: p99=20ms
    order: 20ms
    health: [p99=5ms]
  errors: 150%
  resolution: 0
  confirm: 0
  probe: 10ms
  budget: soon
  conections: 10
  start_fraction: 2
  generator_wait: 0
  searches: 0
`+validStacks)
	want := []string{
		`3:8: slo: "p99=twenty": the latency "twenty" must be a duration`,
		`5:5: capacity cases: unknown case "usr" in workload saas-slice; did you mean "user"?`,
		`6:12: the SLO of case order: "20ms": want a percentile and a latency, e.g. p99=20ms`,
		`7:13: the SLO of case health must be a single value, not a list`,
		`8:11: errors: "150%": want a share such as 0.1% or 0.001, from 0 to 100%; write errors: 0.1%`,
		`9:15: resolution must be above 0`,
		`10:12: confirm must be at least 1`,
		`11:10: probe 10ms is too short; write at least 200ms`,
		`12:11: budget "soon" is not a duration`,
		`13:3: unknown key "conections" in capacity; did you mean "connections"?`,
		`14:19: start_fraction: "2": want a share such as 0.1% or 0.001`,
		`15:19: generator_wait must be above 0`,
		`16:13: searches must be at least 1`,
	}
	if len(got) != len(want) {
		t.Fatalf("%d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s…", i+1, got[i], want[i])
		}
	}
	if got := loadProblems(t, "workload: saas-slice\ncapacity:\n  budget: 1m\n"+validStacks); len(got) != 1 || !strings.HasPrefix(got[0], "3:3: capacity has no SLO") {
		t.Errorf("a section without an SLO: %v", got)
	}
	if got := loadProblems(t, "workload: saas-slice\ncapacity: p99=20ms\n"+validStacks); len(got) != 1 || !strings.Contains(got[0], "capacity must be a mapping") {
		t.Errorf("a scalar section: %v", got)
	}
	for _, bad := range []struct{ value, want string }{
		{"21", "4:13: searches 21 is more than 20"},
		{"three", "4:13: searches must be a whole number"},
		{"2.5", "4:13: searches must be a whole number"},
	} {
		got := loadProblems(t, "workload: saas-slice\ncapacity:\n  slo: p99=20ms\n  searches: "+bad.value+"\n"+validStacks)
		if len(got) != 1 || !strings.HasPrefix(got[0], bad.want) {
			t.Errorf("searches: %s: %v, want %s…", bad.value, got, bad.want)
		}
	}
	var ce *ConfigError
	if _, err := LoadEnv(writeConfig(t, "workload: saas-slice\ncapacity: {slo: p99=20ms}\n"+validStacks), noEnv); errors.As(err, &ce) {
		t.Errorf("a valid section: %v", err)
	}
}
