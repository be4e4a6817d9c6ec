package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

func TestStepStacks(t *testing.T) {
	stacks := []string{"pq", "pgx", "pgo", "fiber"}
	got, err := stepStacks("pgx..fiber", stacks)
	if err != nil || strings.Join(got, ",") != "pgx,pgo,fiber" {
		t.Errorf("pgx..fiber = %v, %v; want pgx, pgo, fiber", got, err)
	}
	for spec, want := range map[string]string{
		"pgx":       "write FROM..TO",
		"pgo..pq":   "must be listed before",
		"pgx..nope": `no stack "nope"`,
		"..pgx":     "write FROM..TO",
	} {
		if _, err := stepStacks(spec, stacks); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--steps %s: %v; want an error saying %q", spec, err, want)
		}
	}
}

// explain's report of one round prints the profiles' findings, not calls
// that one window per cell cannot make: no verdict, no step list.
func TestExplainReportPrintsNoCalls(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../report/testdata/run/journal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	writeExplainReport(Env{Stdout: &out, Stderr: &errOut}, dir)
	got := out.String()
	for _, absent := range []string{"Decided:", "Not decided:", "What each step bought"} {
		if strings.Contains(got, absent) {
			t.Errorf("explain's output has %q:\n%s", absent, got)
		}
	}
	if !strings.Contains(got, "too few for calls") || !strings.Contains(got, "report: "+filepath.Join(dir, "report.html")) {
		t.Errorf("explain's output does not say why it has no calls, or where its report is:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Errorf("no report written: %v (stderr %s)", err, errOut.String())
	}
}

// explain runs on a file whose protocol has latency windows (which need
// 3 rounds, and explain measures one): it leaves them out, and the run
// arguments it records resolve to the same plan, so that run --resume
// continues it. Asked for with --latency-rate, they stay.
func TestExplainAcceptsAFileWithLatency(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stackbench.yaml")
	if err := os.WriteFile(path, []byte(`workload: micro
protocol:
  rounds: 3
  latency: {rate: 50%}
  calls: [p99]
stacks:
  - {name: a, dir: ., start: ./a}
  - {name: b, dir: ., start: ./b}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := Env{Stdin: strings.NewReader(""), Stdout: &strings.Builder{}, Stderr: &strings.Builder{}, Getenv: func(string) string { return "" }, Dir: dir}
	f, err := plan.LoadEnv(path, env.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	ra, err := parseExplainArgs([]string{"-f", path}, env)
	if err != nil {
		t.Fatal(err)
	}
	p, err := resolvePlan(f, ra.overrides)
	if err != nil {
		t.Fatalf("explain's plan: %v", err)
	}
	if p.Protocol.Latency != nil || p.Protocol.Rounds != 1 || p.LatencyWindows(p.Windows) != 0 {
		t.Errorf("explain's protocol: latency %v, %d rounds", p.Protocol.Latency, p.Protocol.Rounds)
	}
	resumed, err := parseRunArgs(ra.recorded, env)
	if err != nil {
		t.Fatalf("run %v: %v", ra.recorded, err)
	}
	if q, err := resolvePlan(f, resumed.overrides); err != nil || q.Fingerprint != p.Fingerprint {
		t.Errorf("run %v resolves to another plan (%v)", ra.recorded, err)
	}
	// With --latency-rate and --rounds 3 the latency windows stay.
	ra, err = parseExplainArgs([]string{"-f", path, "--rounds", "3", "--latency-rate", "30%"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := resolvePlan(f, ra.overrides); err != nil || p.Protocol.Latency == nil {
		t.Errorf("explain --rounds 3 --latency-rate 30%%: %v", err)
	}
}
