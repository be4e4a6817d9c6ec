package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/suite/boot"
)

// Two `stackbench boot` at once on one server (a user's, given by URL:
// here the package's shared cluster) each copy the seed under a name of
// their own and drop it at the end. With one fixed name
// (stackbench_boot) the second command's copy replaced the first's under
// its running server, and the first to end dropped the other's.
func TestBootsAtOnceOnOneServerHaveCopiesOfTheirOwn(t *testing.T) {
	bin := buildRefServer(t)
	admin := pgtest.Cluster(t).AdminURL()
	// The stack's start notes the database it was given, then serves.
	tmp := t.TempDir()
	seen := filepath.Join(tmp, "databases")
	script := filepath.Join(tmp, "start.sh")
	if err := os.WriteFile(script, []byte(fmt.Sprintf("echo \"$DATABASE_URL\" >> '%s'\nexec '%s'\n", seen, bin)), 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf("workload: saas-slice\ndatabase: %q\nstacks:\n  - name: a\n    dir: apps/a\n    start: exec sh '%s'\n", admin, script)
	type outcome struct {
		code        int
		out, errOut string
	}
	var got [2]outcome
	var wg sync.WaitGroup
	for i := range got {
		dir := writeComparison(t, yaml)
		wg.Go(func() {
			code, out, errOut := runMain(t, dir, nil, "boot", "-n", "2", "-o", "json")
			got[i] = outcome{code, out, errOut}
		})
	}
	wg.Wait()
	for i, o := range got {
		if o.code != 0 {
			t.Fatalf("boot %d: exit %d\n%s\n%s", i, o.code, o.out, o.errOut)
		}
		var res boot.Result
		if err := json.Unmarshal([]byte(o.out), &res); err != nil {
			t.Fatalf("boot %d -o json: %v\n%s", i, err, o.out)
		}
		for _, st := range res.Starts {
			if !st.FirstOK || st.FirstStatus != 200 {
				t.Errorf("boot %d: a start's first request: %+v; want 200 from its own copy", i, st)
			}
		}
	}
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, line := range strings.Fields(string(data)) {
		u, err := url.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		names[strings.TrimPrefix(u.Path, "/")] = true
	}
	own := regexp.MustCompile(`^stackbench_boot_[0-9a-f]{8}$`)
	if len(names) != 2 {
		t.Errorf("the two commands' servers used the databases %v; want one of its own each", names)
	}
	for name := range names {
		if !own.MatchString(name) {
			t.Errorf("a boot copy named %q; want stackbench_boot_<8 hex>", name)
		}
	}
	if left := databasesLike(t, admin, "stackbench_boot%"); len(left) > 0 {
		t.Errorf("boot copies left on the server: %v", left)
	}
}

// buildRefServer returns the Go reference server (apps/nethttp-pgx),
// built once for the package's tests into refServerDir: a go build -o
// links anew each time, a few CPU-seconds.
func buildRefServer(t *testing.T) string {
	t.Helper()
	bin, err := refServer()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

var (
	// refServerDir holds the reference server; TestMain removes it.
	refServerDir string
	refServer    = sync.OnceValues(func() (string, error) {
		bin := filepath.Join(refServerDir, "server")
		build := exec.Command("go", "build", "-o", bin, "./nethttp-pgx")
		build.Dir = "../../apps" // the reference servers' module
		if out, err := build.CombinedOutput(); err != nil {
			return "", fmt.Errorf("build the reference server: %v\n%s", err, out)
		}
		return bin, nil
	})
)

// databasesLike lists the databases on the server at admin whose names
// are LIKE pattern.
func databasesLike(t *testing.T, admin, pattern string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT datname FROM pg_database WHERE datname LIKE $1", pattern)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}
