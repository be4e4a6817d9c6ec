package plan

import (
	"strings"
	"testing"
	"time"
)

func TestThresholdsResolvePerCase(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, `workload: saas-slice
protocol: {cases: [health, user, order]}
thresholds:
  p99: 25ms
  error_rate: 0.1%
  throughput: 2000
  cases:
    order: {p99: 50ms, error_rate: 0}
`+validStacks), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Thresholds) != 3 {
		t.Fatalf("thresholds %+v, want one per selected case", p.Thresholds)
	}
	user, order := p.Thresholds[1], p.Thresholds[2]
	if user.Case != "user" || user.Thresholds.P99 != 25*time.Millisecond || *user.Thresholds.ErrorRate != 0.001 || user.Thresholds.ThroughputRPS != 2000 {
		t.Errorf("user: %+v", user)
	}
	if order.Case != "order" || order.Thresholds.P99 != 50*time.Millisecond || *order.Thresholds.ErrorRate != 0 || order.Thresholds.ThroughputRPS != 2000 {
		t.Errorf("order: the case's limits replace the general ones it names, and keep the others: %+v", order)
	}
}

func TestThresholdsChangeTheFingerprint(t *testing.T) {
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
	none, a, b := fp(""), fp("thresholds: {p99: 25ms}\n"), fp("thresholds: {p99: 30ms}\n")
	if none == a || a == b || none == b {
		t.Errorf("fingerprints %s %s %s must differ", none, a, b)
	}
	if again := fp("thresholds: {p99: 25ms}\n"); again != a {
		t.Errorf("fingerprint not stable: %s then %s", a, again)
	}
}

func TestThresholdsProblems(t *testing.T) {
	got := loadProblems(t, `workload: saas-slice
thresholds:
  p99: fast
  p95: 10ms
  error_rate: 150%
  throughput: lots
  cases:
    usr: {p99: 5ms}
    order: {}
    user: [p99]
`+validStacks)
	want := []string{
		`3:8: p99 "fast" is not a duration`,
		`4:3: unknown key "p95" in thresholds; did you mean`,
		`5:15: error_rate: "150%": want a share`,
		`6:15: throughput "lots" is not a rate; write the least successful responses per second`,
		`8:5: thresholds cases: unknown case "usr" in workload saas-slice; did you mean "user"?`,
		`9:12: the thresholds of case order set no limit`,
		`10:11: the thresholds of case user must be a mapping`,
	}
	if len(got) != len(want) {
		t.Fatalf("%d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s…", i+1, got[i], want[i])
		}
	}
}

// A mix's route can have limits of its own (mix/route under cases:):
// they follow the mix, alone (the general limits are the mix's), and
// bad names say what to write.
func TestThresholdsOnAMixRoute(t *testing.T) {
	shop := `workload:
  name: shop
  cases:
    - {name: user, path: /users/1}
    - {name: list, path: /users}
    - mix: {name: storefront, of: {user: 3, list: 1}}
`
	f, err := LoadEnv(writeConfig(t, shop+`protocol: {cases: [storefront]}
thresholds:
  p99: 50ms
  cases:
    storefront/list: {p99: 25ms, error_rate: 0}
`+validStacks), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Thresholds) != 2 || p.Thresholds[0].Name() != "storefront" || p.Thresholds[1].Name() != "storefront/list" {
		t.Fatalf("thresholds %+v; want the mix's, then its route's", p.Thresholds)
	}
	if l := p.Thresholds[1].Thresholds; l.P99 != 25*time.Millisecond || l.ErrorRate == nil || *l.ErrorRate != 0 || l.ThroughputRPS != 0 {
		t.Errorf("storefront/list: %+v", l)
	}
	got := loadProblems(t, shop+`thresholds:
  cases:
    storefront/order: {p99: 5ms}
    user/list: {p99: 5ms}
    shop/list: {p99: 5ms}
`+validStacks)
	want := []string{
		`8:3: thresholds set no limit`,
		`9:5: thresholds cases: "order" is not a route of mix storefront; write one of: user, list`,
		`10:5: thresholds cases: user/list names case user, which is not a mix`,
		`11:5: thresholds cases: shop/list is not a mix of the workload`,
	}
	matchProblems(t, got, want)
}
