package cli

import (
	"context"
	"fmt"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPGOCollectsAProfileOfTheReferenceServer runs stackbench pgo end to end:
// the reference server is built and started on a seeded database (the
// package's shared cluster, given as a URL), the
// workload is driven against it, and the profile it writes on SIGTERM must
// be one `go tool pprof` reads and that shows the server's own code.
func TestPGOCollectsAProfileOfTheReferenceServer(t *testing.T) {
	appDir, err := filepath.Abs("../../apps/nethttp-pgx")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "server")
	// The package's shared cluster, seeded once.
	yaml := fmt.Sprintf(`workload: saas-slice
database: %q
stacks:
  - name: ref
    dir: %s
    build: go build -o %s .
    start: %s
`, pgtest.Cluster(t).AdminURL(), appDir, bin, bin)
	if err := os.WriteFile(filepath.Join(dir, "stackbench.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMain(t, dir, nil, "pgo", "--stacks", "ref", "-d", "2s", "-c", "4", "--out", "default.pgo")
	if code != 0 {
		t.Fatalf("stackbench pgo exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "wrote "+filepath.Join(dir, "default.pgo")) {
		t.Errorf("stdout does not say where the profile went:\n%s", stdout)
	}
	for _, c := range []string{"health", "echo", "me", "user", "list", "order", "cpu"} {
		if !strings.Contains(stderr, "pgo: "+c+" ") {
			t.Errorf("case %s was not driven; stderr:\n%s", c, stderr)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the profile: %v", err)
	}
	top, err := exec.CommandContext(ctx, goTool, "tool", "pprof", "-top", "-nodecount=1000", filepath.Join(dir, "default.pgo")).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof cannot read the profile: %v\n%s", err, top)
	}
	// The cpu case spends its time in the server's SHA-256 chain.
	if !strings.Contains(string(top), "saas.CPUChain") {
		t.Errorf("the profile does not show the server's saas.CPUChain:\n%s", top)
	}
	// Its copy of the seed was its own (stackbench_pgo_<8 hex>) and is gone.
	if left := databasesLike(t, pgtest.Cluster(t).AdminURL(), "stackbench_pgo%"); len(left) > 0 {
		t.Errorf("pgo's copies of the seed left on the server: %v", left)
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, ".pgo-*")); len(entries) > 0 {
		t.Errorf("temporary files left beside the profile: %v", entries)
	}

	// The same server with the variable taken away writes no profile: an
	// error that says what the stack must do, and no file.
	deaf := strings.Replace(yaml, "start: "+bin, "start: env -u "+pgoProfileEnv+" "+bin, 1)
	if err := os.WriteFile(filepath.Join(dir, "deaf.yaml"), []byte(deaf), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runMain(t, dir, nil, "pgo", "-f", "deaf.yaml", "--stack", "ref", "-d", "1s", "-c", "2", "--out", "deaf.pgo")
	if code != ExitNotMeasured || !strings.Contains(stderr, "it must honour "+pgoProfileEnv) {
		t.Errorf("a stack that ignores %s: exit %d, stderr:\n%s\nwant exit 1 and what it must honour", pgoProfileEnv, code, stderr)
	}
	// The logs of a failed collection are kept for the user; not here.
	if _, logs, ok := strings.Cut(stderr, "logs are in "); ok {
		os.RemoveAll(strings.TrimSpace(strings.SplitN(logs, "\n", 2)[0]))
	}
	if _, err := os.Stat(filepath.Join(dir, "deaf.pgo")); err == nil {
		t.Error("a profile was written although the stack wrote none")
	}
}

func TestPGORefusesBadArguments(t *testing.T) {
	dir := writeComparison(t, "stacks:\n  - name: a\n    dir: apps/a\n    start: ./server\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"pgo", "--out", "x.pgo"}, "--stacks is required"},
		{[]string{"pgo", "--stacks", "a"}, "--out is required"},
		{[]string{"pgo", "--stacks", "a", "-o", "x.pgo"}, "-o x.pgo: -o is an output format in every command; name the profile's file with --out x.pgo"},
		{[]string{"pgo", "--stacks", "a,b", "--out", "x.pgo"}, "one stack at a time"},
		{[]string{"pgo", "--stacks", "zz", "--out", "x.pgo"}, "has no such stack; it has a"},
		{[]string{"pgo", "--stack", "a", "--out", "x.pgo", "-d", "10ms"}, "want at least 1s"},
		{[]string{"pgo", "--stacks", "a", "--out", "x.pgo", "-c", "0"}, "want at least 1 connection"},
	} {
		code, _, stderr := runMain(t, dir, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.pgo")); err == nil {
		t.Error("a refused command wrote a profile")
	}
}

func TestPGONextStep(t *testing.T) {
	if got := pgoNext("/a/default.pgo"); !strings.Contains(got, "rebuild the stack and commit the file") {
		t.Errorf("default.pgo: %q", got)
	}
	if got := pgoNext("/a/cpu.pgo"); !strings.Contains(got, "build with -pgo=/a/cpu.pgo") || !strings.Contains(got, "default.pgo") {
		t.Errorf("cpu.pgo: %q", got)
	}
}
