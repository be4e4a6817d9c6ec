package plan

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/workload"
)

const threeStacks = `stacks:
  - {name: a, dir: apps/a, start: ./s}
  - {name: b, dir: apps/b, start: ./s}
  - {name: c, dir: apps/a, start: ./s}
`

func resolve(t *testing.T, content string, o Overrides) *Plan {
	t.Helper()
	f, err := LoadEnv(writeConfig(t, content), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func keys(ws []Window) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Key
	}
	return out
}

func TestMatrixGroupedOrder(t *testing.T) {
	p := resolve(t, "protocol:\n  concurrency: [10, 100]\n  rounds: 3\n  layout: grouped\n  cases: [health, order]\n"+threeStacks, Overrides{})
	if len(p.Windows) != 3*3*2*2 {
		t.Fatalf("%d windows, want 36", len(p.Windows))
	}
	// Rounds take the Williams sequences in turn: a b c, its mirror c b a,
	// then b c a.
	var order []string
	for _, w := range p.Windows {
		if w.NewProcess {
			order = append(order, w.Stack)
		}
	}
	if got := strings.Join(order, " "); got != "a b c c b a b c a" {
		t.Errorf("process order %q", got)
	}
	first := strings.Join(keys(p.Windows[:4]), " ")
	if first != "r1/a/health/c10 r1/a/health/c100 r1/a/order/c10 r1/a/order/c100" {
		t.Errorf("first windows %s", first)
	}
	w := p.Windows[15] // round 2, slot 0 (stack c), order at c100
	if w.Key != "r2/c/order/c100" || w.Round != 2 || w.Slot != 0 || w.Process != 3 || !w.Inserts || w.Index != 15 {
		t.Errorf("window 15: %+v", w)
	}
	seen := map[string]bool{}
	for i, w := range p.Windows {
		if seen[w.Key] || w.Index != i {
			t.Errorf("window %d: key %s repeated or index %d wrong", i, w.Key, w.Index)
		}
		seen[w.Key] = true
	}
}

// TestMatrixInterleaved: stacks take turns case by case, each case in its
// own Williams sequence then reversed, alternately; one process per stack
// and round, started at its first window.
func TestMatrixInterleaved(t *testing.T) {
	p := resolve(t, "protocol:\n  concurrency: [10, 100]\n  rounds: 2\n  layout: interleaved\n  cases: [health, order]\n"+threeStacks, Overrides{})
	if len(p.Windows) != 2*3*2*2 {
		t.Fatalf("%d windows, want 24", len(p.Windows))
	}
	got := strings.Join(keys(p.Windows[:12]), " ")
	want := "r1/a/health/c10 r1/b/health/c10 r1/c/health/c10 " +
		"r1/c/health/c100 r1/b/health/c100 r1/a/health/c100 " +
		"r1/b/order/c10 r1/c/order/c10 r1/a/order/c10 " +
		"r1/a/order/c100 r1/c/order/c100 r1/b/order/c100"
	if got != want {
		t.Errorf("round 1:\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(keys(p.Windows[12:15]), " "); got != "r2/c/health/c10 r2/b/health/c10 r2/a/health/c10" {
		t.Errorf("round 2 starts %s, want round 1's mirror c b a", got)
	}
	procs := map[int]string{}
	for _, w := range p.Windows {
		if prev, ok := procs[w.Process]; ok && prev != w.Stack {
			t.Errorf("process %d serves %s and %s", w.Process, prev, w.Stack)
		}
		if _, ok := procs[w.Process]; ok == w.NewProcess {
			t.Errorf("%s: new process %v", w.Key, w.NewProcess)
		}
		procs[w.Process] = w.Stack
	}
	if len(procs) != 6 {
		t.Errorf("%d processes, want one per stack and round (6)", len(procs))
	}
	if w := p.Windows[13]; w.Slot != 1 || w.Stack != "b" || w.Process != 4 {
		t.Errorf("window 13: %+v", w)
	}
	// An extra round of two cells keeps the alternation of their levels.
	extra := p.ExtraRound(3, map[CellKey]bool{{"a", "order", 100}: true, {"b", "order", 100}: true, {"b", "health", 10}: true})
	if got := strings.Join(keys(extra), " "); got != "r3/b/health/c10 r3/b/order/c100 r3/a/order/c100" {
		t.Errorf("extra round %s", got)
	}
	if extra[0].Index != 24 || extra[0].Process != 6 || !extra[0].NewProcess || extra[1].NewProcess || extra[2].Process != 7 {
		t.Errorf("extra round numbering %+v", extra)
	}
}

// TestMatrixRepeat: with repeat 2 each process serves each of its cells
// twice a round; interleaved, the second turn reverses the first (a b b a).
func TestMatrixRepeat(t *testing.T) {
	p := resolve(t, "protocol:\n  concurrency: [10]\n  rounds: 1\n  layout: interleaved\n  repeat: 2\n  cases: [health, user]\n"+threeStacks, Overrides{Stacks: []string{"a", "b"}})
	want := "r1/a/health/c10 r1/b/health/c10 r1/b/health/c10/w2 r1/a/health/c10/w2 r1/b/user/c10 r1/a/user/c10 r1/a/user/c10/w2 r1/b/user/c10/w2"
	if got := strings.Join(keys(p.Windows), " "); got != want {
		t.Errorf("interleaved repeat:\n got %s\nwant %s", got, want)
	}
	if w := p.Windows[3]; w.Repeat != 2 || w.Process != 0 || w.NewProcess {
		t.Errorf("window 3: %+v", w)
	}
	p = resolve(t, "protocol:\n  concurrency: [10]\n  rounds: 1\n  layout: grouped\n  repeat: 2\n  cases: [health]\n"+threeStacks, Overrides{Stacks: []string{"a", "b"}})
	if got := strings.Join(keys(p.Windows), " "); got != "r1/a/health/c10 r1/a/health/c10/w2 r1/b/health/c10 r1/b/health/c10/w2" {
		t.Errorf("grouped repeat: %s", got)
	}
	if p.Windows[0].Repeat != 1 {
		t.Errorf("first repeat numbered %d", p.Windows[0].Repeat)
	}
	if ps := loadProblems(t, "protocol:\n  repeat: 9\n"+threeStacks); len(ps) != 1 || !strings.HasPrefix(ps[0], `2:11: repeat "9": above 5; give at most 5: a process's windows`) {
		t.Errorf("repeat 9: %v", ps)
	}
}

func TestMatrixFreshCase(t *testing.T) {
	p := resolve(t, "protocol:\n  concurrency: [10, 100]\n  cases: [health, user, order]\n  rounds: 1\n  fresh: case\n"+threeStacks, Overrides{})
	procs := map[int][]string{}
	for _, w := range p.Windows {
		procs[w.Process] = append(procs[w.Process], w.Stack+"/"+w.Case)
		if w.NewProcess != (w.Concurrency == 10) {
			t.Errorf("%s: new process %v", w.Key, w.NewProcess)
		}
	}
	if len(procs) != 9 {
		t.Fatalf("%d processes, want one per stack and case (9)", len(procs))
	}
	for id, cells := range procs {
		if len(cells) != 2 || cells[0] != cells[1] {
			t.Errorf("process %d serves %v, want one case at both levels", id, cells)
		}
	}
}

func TestPrecedence(t *testing.T) {
	file := "profile: full\nprotocol:\n  window: 7s\n  rounds: 2\n  gate: {threshold: 0.8, retries: 0}\n" + validStacks
	p := resolve(t, file, Overrides{})
	pr := p.Protocol
	// full profile, then the file.
	if pr.Profile != "full" || pr.Window != 7*time.Second || pr.Rounds != 2 || pr.Warmup != 5*time.Second ||
		len(pr.Concurrency) != 3 || pr.BootStarts != 30 || pr.Gate.Mode != GateCores || pr.Gate.Cores != 0.8 || pr.Gate.Retries != 0 {
		t.Errorf("profile < file: %+v", pr)
	}
	if len(pr.Cases) != 7 || pr.Cases[0] != "health" || pr.Timeout != 60*time.Second || pr.Fresh != FreshRound {
		t.Errorf("defaults: %+v", pr)
	}
	// The command line beats the file; a profile from the command line still
	// sits below the file's protocol.
	zero, yes := 0, true
	p = resolve(t, file, Overrides{Profile: "quick", Window: 2 * time.Second, Concurrency: []int{5}, BootStarts: &zero,
		Cases: []string{"cpu", "health"}, Stacks: []string{"b", "a"}, Gate: "off", Spread: &yes, Fresh: FreshCase})
	pr = p.Protocol
	if pr.Profile != "quick" || pr.Window != 2*time.Second || pr.Rounds != 2 || pr.Warmup != 500*time.Millisecond ||
		pr.Concurrency[0] != 5 || pr.BootStarts != 0 || pr.Gate.Mode != GateOff || !pr.Spread || pr.Fresh != FreshCase {
		t.Errorf("file < command line: %+v", pr)
	}
	if got := strings.Join(pr.Cases, ","); got != "cpu,health" {
		t.Errorf("cases %s", got)
	}
	if len(p.Stacks) != 2 || p.Stacks[0].Name != "a" {
		t.Errorf("stacks keep file order: %v", p.Stacks)
	}
	if !p.NeedsDatabase {
		t.Error("saas-slice's stacks need the database even when only cpu and health are measured")
	}
}

func TestOverrideProblems(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, validStacks), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	neg := -1
	_, err = f.Resolve(Overrides{Profile: "quik", Stacks: []string{"a", "z", "a"}, Cases: []string{"ordr"},
		Concurrency: []int{0, 10, 10}, Warmup: time.Millisecond, Rounds: -2, Fresh: "never", BootStarts: &neg, Gate: "-1"})
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("want *ConfigError, got %v", err)
	}
	want := []string{
		`--profile quik: unknown profile; did you mean "quick"?`,
		`--stacks: unknown stack "z"; write one of: a, b`,
		`--stacks: stack "a" is listed twice`,
		`--cases: unknown case "ordr"; did you mean "order"?`,
		`--concurrency "0,10,10": 0 is below 1; 10 is listed twice`,
		`--warmup "1ms": too short; give at least 100ms`,
		`--rounds "-2": below 1`,
		`--fresh "never": not known; write round`,
		`--boot-starts "-1": below 0`,
		`--gate "-1": the gate is auto`,
	}
	if len(ce.Problems) != len(want) {
		t.Fatalf("got %d problems:\n%v", len(ce.Problems), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(ce.Problems[i].String(), w) {
			t.Errorf("problem %d: got %s, want %s", i, ce.Problems[i], w)
		}
	}
}

func TestFingerprint(t *testing.T) {
	base := resolve(t, "protocol:\n  window: 5s\n"+validStacks, Overrides{})
	// Another checkout of the same comparison, with another database.
	same := resolve(t, "database: postgres://x@127.0.0.1:1/db\nprotocol:\n  window: 5s\n"+validStacks, Overrides{})
	if base.Fingerprint != same.Fingerprint || !strings.HasPrefix(base.Fingerprint, "sha256:") {
		t.Errorf("same plan, fingerprints %s and %s", base.Fingerprint, same.Fingerprint)
	}
	changed := map[string]*Plan{
		"window":     resolve(t, "protocol:\n  window: 6s\n"+validStacks, Overrides{}),
		"start":      resolve(t, "protocol:\n  window: 5s\n"+strings.Replace(validStacks, "./server", "./other", 1), Overrides{}),
		"case order": resolve(t, "protocol:\n  window: 5s\n  cases: [echo, health]\n"+validStacks, Overrides{}),
		"secret":     resolve(t, "jwt_secret: other\nprotocol:\n  window: 5s\n"+validStacks, Overrides{}),
		"stacks":     resolve(t, "protocol:\n  window: 5s\n"+validStacks, Overrides{Stacks: []string{"a"}}),
	}
	// A plan laid out in the order of journals before the balanced one.
	rotation := *base
	rotation.Protocol.Order = OrderRotation
	if base.Protocol.Order != OrderWilliams || fingerprint(&rotation, filepath.Dir(base.File), nil, nil) == base.Fingerprint {
		t.Errorf("the order (%q) is not in the fingerprint", base.Protocol.Order)
	}
	for what, p := range changed {
		if p.Fingerprint == base.Fingerprint {
			t.Errorf("changing the %s keeps the fingerprint", what)
		}
	}
}

// TestQuickProfileFitsInMinutes holds the quick profile to its promise: three
// stacks and the seven saas-slice cases in well under ten minutes.
func TestQuickProfileFitsInMinutes(t *testing.T) {
	p := resolve(t, "profile: quick\n"+threeStacks, Overrides{})
	if len(p.Windows) != 4*3*7 {
		t.Fatalf("%d windows", len(p.Windows))
	}
	// Each window costs at least its warm-up and window (1.5 s); the planned
	// rounds leave room in 10 minutes for the adaptive budget.
	est := p.Estimate()
	if est > 10*time.Minute || est < time.Duration(len(p.Windows))*1500*time.Millisecond || p.Protocol.Budget > 8*time.Minute {
		t.Errorf("quick estimate %s for %d windows", est, len(p.Windows))
	}
	if rest := p.EstimateWindows(p.Windows[60:]); rest <= 0 || rest >= p.EstimateWindows(p.Windows) {
		t.Errorf("estimate of the last windows %s", rest)
	}
}

func TestProfileIsACopy(t *testing.T) {
	a, _ := Profile("standard")
	a.Concurrency[0] = 99
	b, ok := Profile("standard")
	if !ok || b.Concurrency[0] != 10 {
		t.Errorf("Profile shares its slice: %v", b.Concurrency)
	}
	if _, ok := Profile("none"); ok {
		t.Error("unknown profile found")
	}
}

func TestStackDirAbsolute(t *testing.T) {
	abs := t.TempDir()
	f, err := LoadEnv(writeConfig(t, "stacks:\n  - {name: a, dir: "+abs+", start: ./s}\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if f.Stacks[0].Dir != abs {
		t.Errorf("dir %s, want %s", f.Stacks[0].Dir, abs)
	}
	if _, err := os.Stat(filepath.Join(abs)); err != nil {
		t.Fatal(err)
	}
}

func TestRemainingAndLookups(t *testing.T) {
	p := resolve(t, "protocol:\n  cases: [user, order]\n  rounds: 1\n  layout: grouped\n"+validStacks, Overrides{})
	done := map[string]bool{"r1/a/user/c10": true, "r1/a/user/c100": true, "r1/b/order/c10": true, "not/a/key": true}
	rest := p.Remaining(done)
	if got := strings.Join(keys(rest), " "); got != "r1/a/order/c10 r1/a/order/c100 r1/b/user/c10 r1/b/user/c100 r1/b/order/c100" {
		t.Errorf("remaining %s", got)
	}
	if c, ok := p.Case("order"); !ok || !c.Inserts || c.Path != "/orders" {
		t.Errorf("case order: %+v %v", c, ok)
	}
	if _, ok := p.Case("cpu"); ok {
		t.Error("a case that is not selected is found")
	}
	if s, ok := p.Stack("b"); !ok || s.Name != "b" {
		t.Errorf("stack b: %+v", s)
	}
}

// TestFingerprintCoversACustomWorkload: a setup step, a case's compare
// and ignore keys, the fixture and a stack's services shape what a run
// measures, so a resumed run must not mix windows across a change of any.
func TestFingerprintCoversACustomWorkload(t *testing.T) {
	base := &Plan{WorkloadName: "w", Cases: []workload.Case{{Name: "a", Method: "GET", Path: "/a"}}, Stacks: []Stack{{Name: "s", Dir: "/x", Start: "./s"}}}
	ref := fingerprint(base, "/", nil, nil)
	if again := fingerprint(base, "/", nil, nil); again != ref {
		t.Fatalf("fingerprint not stable: %s, %s", ref, again)
	}
	changes := map[string]func() string{
		"compare": func() string {
			p := *base
			p.Cases = []workload.Case{{Name: "a", Method: "GET", Path: "/a", Compare: "status"}}
			return fingerprint(&p, "/", nil, nil)
		},
		"ignore": func() string {
			p := *base
			p.Cases = []workload.Case{{Name: "a", Method: "GET", Path: "/a", Ignore: []string{"x"}}}
			return fingerprint(&p, "/", nil, nil)
		},
		"services": func() string {
			p := *base
			p.Stacks = []Stack{{Name: "s", Dir: "/x", Start: "./s", Services: []int{6379}}}
			return fingerprint(&p, "/", nil, nil)
		},
		"setup": func() string {
			return fingerprint(base, "/", &scenario.Scenario{Steps: []scenario.Step{{Name: "login"}}}, nil)
		},
		"fixture": func() string {
			return fingerprint(base, "/", nil, &DatabaseFixture{Hash: "h1", Schema: []string{"/abs/a.sql"}})
		},
	}
	// A step's gRPC call is part of it; a step without one is written as
	// before gRPC steps existed (earlier runs still resume).
	login := fingerprint(base, "/", &scenario.Scenario{Steps: []scenario.Step{{Name: "login"}}}, nil)
	if grpcLogin := fingerprint(base, "/", &scenario.Scenario{Steps: []scenario.Step{{Name: "login", GRPC: &scenario.GRPCStep{Method: "a.B/C"}}}}, nil); grpcLogin == login {
		t.Error("adding a step's gRPC call leaves the fingerprint as it was")
	}
	if b, _ := json.Marshal(scenario.Step{Name: "login"}); strings.Contains(string(b), "GRPC") {
		t.Errorf("a step without a gRPC call is written %s: the fingerprints of earlier runs would change", b)
	}
	for name, f := range changes {
		if f() == ref {
			t.Errorf("changing the %s leaves the fingerprint as it was", name)
		}
	}
	a := fingerprint(base, "/", nil, &DatabaseFixture{Hash: "h1", Schema: []string{"/one/a.sql"}})
	b := fingerprint(base, "/", nil, &DatabaseFixture{Hash: "h1", Schema: []string{"/two/a.sql"}})
	if a != b {
		t.Error("a moved checkout (same fixture hash, other absolute paths) changed the fingerprint")
	}
}
