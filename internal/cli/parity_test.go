package cli

import (
	"encoding/json"
	"fmt"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/workload"
)

// TestParityCommand runs `stackbench parity` end to end on a seeded
// database (the package's shared cluster, given as a URL): the reference server passes; the same server given the wrong
// secret and a stack that cannot start fail, each named with its reason.
func TestParityCommand(t *testing.T) {
	ref, err := filepath.Abs(filepath.Join("..", "..", "apps", "nethttp-pgx"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "server")
	dir := t.TempDir()
	// The package's shared cluster, seeded once (the embedded one's start
	// is TestDBCommandEndToEnd's and TestBootCommandEndToEnd's).
	yaml := fmt.Sprintf(`workload: saas-slice
database: %[3]q
stacks:
  - name: ref
    dir: %[1]s
    build: go build -o '%[2]s' .
    start: exec '%[2]s'
  - name: wrong-secret
    dir: %[1]s
    start: JWT_SECRET=not-the-harness-secret exec '%[2]s'
  - name: no-start
    dir: .
    start: "echo 'listen tcp: simulated failure to bind' >&2; exit 3"
`, ref, bin, pgtest.Cluster(t).AdminURL())
	if err := os.WriteFile(filepath.Join(dir, "stackbench.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runMain(t, dir, nil, "parity", "-f", "stackbench.yaml")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"FAIL wrong-secret me/ok: status 401, want 200 | sent GET /me [Authorization: [redacted]]",
		"FAIL no-start: did not start",
		"simulated failure to bind",
		"parity saas-slice: FAIL, 3 stacks,",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "FAIL ref") {
			t.Errorf("the reference server failed: %s", line)
		}
		if strings.HasPrefix(line, "ref ") && !strings.Contains(line, "checks passed") {
			t.Errorf("summary line for ref: %s", line)
		}
	}
	if !strings.Contains(stderr, "build and server logs are in ") {
		t.Errorf("stderr does not say where the logs are:\n%s", stderr)
	}
	if i := strings.Index(stderr, "logs are in "); i >= 0 {
		os.RemoveAll(strings.TrimSpace(stderr[i+len("logs are in "):]))
	}

	code, stdout, stderr = runMain(t, dir, nil, "parity", "-f", "stackbench.yaml", "--stack", "ref", "-o", "json")
	var rep workload.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 {
		t.Fatalf("exit %d, JSON %v\nstdout:\n%s\nstderr:\n%s", code, err, stdout, stderr)
	}
	// 104 checks per stack, as docs/workloads.md and the README say.
	if len(rep.Stacks) != 1 || rep.Stacks[0].Passed != rep.Stacks[0].Checks || rep.Stacks[0].Checks != 104 || len(rep.Failures) != 0 {
		t.Errorf("report = %+v", rep)
	}

	micro := fmt.Sprintf("workload: micro\nstacks:\n  - name: ref\n    dir: %s\n    start: exec '%s'\n", ref, bin)
	if err := os.WriteFile(filepath.Join(dir, "micro.yaml"), []byte(micro), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr = runMain(t, dir, nil, "parity", "-f", "micro.yaml"); code != 0 || !strings.Contains(stdout, "parity micro: PASS") {
		t.Errorf("micro: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

func TestParityUsage(t *testing.T) {
	dir := writeComparison(t, twoStacks)
	if code, _, stderr := runMain(t, dir, benchDB, "parity", "-o", "xml"); code != 2 || !strings.Contains(stderr, "-o xml") {
		t.Errorf("-o xml: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runMain(t, dir, benchDB, "parity", "--stack", "nope"); code != 2 || !strings.Contains(stderr, `has no stack "nope"; it has nethttp-pgx, gin`) {
		t.Errorf("--stack nope: exit %d, %s", code, stderr)
	}
	// --stacks, as run, plan and boot take it.
	if code, _, stderr := runMain(t, dir, benchDB, "parity", "--stacks", "gin,nope"); code != 2 || !strings.Contains(stderr, `has no stack "nope"; it has nethttp-pgx, gin`) {
		t.Errorf("--stacks gin,nope: exit %d, %s", code, stderr)
	}
}

// A stack that never answers its health path: the wait is announced, ends
// at the stack's boot_timeout, and the message says what to do.
func TestParityStackThatNeverAnswers(t *testing.T) {
	dir := t.TempDir()
	yaml := "workload: micro\nstacks:\n  - name: silent\n    dir: .\n    start: exec sleep 60\n    boot_timeout: 2s\n"
	if err := os.WriteFile(filepath.Join(dir, "stackbench.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMain(t, dir, nil, "parity")
	if i := strings.Index(stderr, "logs are in "); i >= 0 {
		defer os.RemoveAll(strings.TrimSpace(stderr[i+len("logs are in "):]))
	}
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if want := "parity: silent: no 200 on /health after 1s; waiting up to 2s in all (raise boot_timeout"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if want := "within the boot timeout of 2s"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
}
