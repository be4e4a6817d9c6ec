package plan

import (
	"errors"
	"strings"
	"testing"
)

// latency: {rate: …} is read as a share or an absolute rate, fingerprinted
// and overridden by --latency-rate; its windows follow each cell's last
// window of a round — round 1's at the round's end in an interleaved
// layout with a fresh process per round (LatencyRoundOne), from round 2
// otherwise — and the estimate counts them.
func TestLatencyKey(t *testing.T) {
	path := writeConfig(t, `profile: quick
protocol:
  rounds: 5
  cases: [health, user]
  latency: {rate: 50%}
stacks:
  - {name: a, dir: apps/a, start: ./server}
  - {name: b, dir: apps/b, start: ./server}
`)
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	share, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if l := share.Protocol.Latency; l == nil || l.Share != 0.5 || l.RPS != 0 || l.FirstRound(1) != 2 || l.String() != "50%" {
		t.Fatalf("latency %+v", l)
	}
	// quick: interleaved, a fresh process per round: round 1's latency
	// windows wait for the round's end. The rate is fixed from the
	// closed-loop windows of rounds 1 and 2 (5 rounds leave a cell 4
	// latency windows), so round 2's latency windows wait for its end and
	// round 1 has none: 2 stacks × 2 cases × rounds 2–5.
	if pr := share.Protocol; !pr.LatencyRoundOne || pr.RateRounds() != 2 || pr.LatencyFirstRound() != 2 {
		t.Fatalf("quick at 50%%: round one %v, rate rounds %d, first round %d", pr.LatencyRoundOne, pr.RateRounds(), pr.LatencyFirstRound())
	}
	if n := share.LatencyWindows(share.Windows); n != 16 {
		t.Errorf("%d latency windows, want 16", n)
	}
	for _, w := range share.Windows {
		if share.Protocol.LatencyAfter(w) != (w.Round >= 2) || share.Protocol.LatencyDeferred(w) != (w.Round == 2) {
			t.Errorf("%s: latency after it %v, deferred %v", w.Key, share.Protocol.LatencyAfter(w), share.Protocol.LatencyDeferred(w))
		}
	}
	// Grouped, a stack's process of round 1 is gone before the others'
	// windows fix the rate: its latency windows start in round 2.
	grouped, err := f.Resolve(Overrides{Layout: LayoutGrouped})
	if err != nil {
		t.Fatal(err)
	}
	if grouped.Protocol.LatencyRoundOne || grouped.LatencyWindows(grouped.Windows) != 16 {
		t.Errorf("grouped at 50%%: round one %v, %d latency windows; want false and 16 (rounds 2–5)", grouped.Protocol.LatencyRoundOne, grouped.LatencyWindows(grouped.Windows))
	}
	for _, w := range grouped.Windows {
		if grouped.Protocol.LatencyAfter(w) != (w.Round >= 2) || grouped.Protocol.LatencyDeferred(w) {
			t.Errorf("grouped %s: latency after it %v", w.Key, grouped.Protocol.LatencyAfter(w))
		}
	}
	if k := LatencyKey(share.Windows[len(share.Windows)-1]); !strings.HasPrefix(k, "r5/") || !strings.HasSuffix(k, "/c32/latency") {
		t.Errorf("latency key %q", k)
	}
	abs, err := f.Resolve(Overrides{Latency: &LatencyRate{RPS: 800}})
	if err != nil {
		t.Fatal(err)
	}
	if abs.Protocol.Latency.RPS != 800 || abs.LatencyWindows(abs.Windows) != 20 || abs.Fingerprint == share.Fingerprint {
		t.Errorf("--latency-rate 800: %+v, %d windows (want 20: from round 1), fingerprint changed %v",
			abs.Protocol.Latency, abs.LatencyWindows(abs.Windows), abs.Fingerprint != share.Fingerprint)
	}
	f.protocol.Latency = nil
	none, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if none.Protocol.Latency != nil || none.Fingerprint == share.Fingerprint {
		t.Errorf("without latency: %+v, fingerprint changed %v", none.Protocol.Latency, none.Fingerprint != share.Fingerprint)
	}
	// Each latency window costs at least its window of load.
	if grow := share.Estimate() - none.Estimate(); grow < 16*share.Protocol.Window {
		t.Errorf("latency windows add %s to the estimate; want at least 16 windows of %s", grow, share.Protocol.Window)
	}
	// Repeats: only the cell's last window of the round is followed.
	rep, err := f.Resolve(Overrides{Repeat: 2, Latency: &LatencyRate{Share: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.LatencyWindows(rep.Windows); n != 16 {
		t.Errorf("with repeat 2: %d latency windows, want 16 (one per cell and round from round 2)", n)
	}
}

func TestLatencyKeyRefused(t *testing.T) {
	got := strings.Join(loadProblems(t, `protocol:
  latency: {rate: 150%}
stacks:
  - {name: a, dir: apps/a, start: ./server}
`), "\n")
	if want := `2:19: latency rate "150%": must be above 0 % and below 100 %`; !strings.Contains(got, want) {
		t.Errorf("problems:\n%s\nwant %q", got, want)
	}
	for _, c := range []struct{ yaml, want string }{
		{"  latency: {rate: 0.5}\n", `2:19: latency rate "0.5": an absolute rate is at least 1 request per second`},
		{"  latency: {rate: fast}\n", `2:19: latency rate "fast": not a percentage or a number of requests per second`},
		{"  latency: {}\n", `2:12: latency needs a rate`},
		{"  latency: {rate: 50%, p99: 1ms}\n", `2:24: unknown key "p99" in latency`},
		{"  latency: 50%\n", `2:12: latency must be a mapping`},
	} {
		got := strings.Join(loadProblems(t, "protocol:\n"+c.yaml+"stacks:\n  - {name: a, dir: apps/a, start: ./server}\n"), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%q: problems:\n%s\nwant %q", c.yaml, got, c.want)
		}
	}
	// A share starts in round 2 unless round 1's wait for its end (grouped
	// here), and a cell needs 3 windows: 4 rounds.
	path := writeConfig(t, "protocol:\n  rounds: 3\n  layout: grouped\n  latency: {rate: 50%}\nstacks:\n  - {name: a, dir: apps/a, start: ./server}\n")
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var ce *ConfigError
	if _, err := f.Resolve(Overrides{}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "needs at least 4 rounds (it has 3)") {
		t.Errorf("3 rounds at 50%%: %v", err)
	}
	if _, err := f.Resolve(Overrides{Latency: &LatencyRate{RPS: 100}}); err != nil {
		t.Errorf("3 rounds at 100 req/s (from round 1): %v", err)
	}
}

func TestParseLatencyRate(t *testing.T) {
	for in, want := range map[string]LatencyRate{"50%": {Share: 0.5}, " 25 % ": {Share: 0.25}, "800": {RPS: 800}, "1200/s": {RPS: 1200}, "1": {RPS: 1}} {
		if got, err := ParseLatencyRate(in); err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"0%", "100%", "0", "0.9", "-5", "NaN", "x"} {
		if got, err := ParseLatencyRate(in); err == nil {
			t.Errorf("%q: %+v, want an error", in, got)
		}
	}
}
