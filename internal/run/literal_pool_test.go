package run

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// A case's literal headers and body go to the generator through a pool
// file (0600), not on its command line, which ps shows to every user of
// the host: here and on a generator host. A bare request (a method and a
// path) still goes on the command line.
func TestLiteralHeadersAndBodyStayOffTheCommandLine(t *testing.T) {
	r := &runner{opt: Options{Plan: &plan.Plan{}, PoolDir: t.TempDir()}}
	r.pools = &requestPools{r: r}
	cur := &server{stack: plan.Stack{Name: "a"}}
	login := workload.Case{Name: "login", Method: "POST", Path: "/login?next=/home",
		Header: []workload.Header{{Name: "Authorization", Value: "Bearer tok-LITERAL-77"}},
		Body:   []byte(`{"password":"hunter2-LITERAL"}`)}
	secrets := []string{"tok-LITERAL-77", "hunter2-LITERAL"}

	pool, err := r.pools.of(cur, login)
	if err != nil || pool == "" {
		t.Fatalf("pool of a case with a header and a body = %q, %v; want a file", pool, err)
	}
	local := loadArgsAt("http://127.0.0.1:9", login, pool, loadWire{}, 4, 0, warmupSpan{floor: time.Second}, time.Second, time.Minute)
	poolBytes, err := os.ReadFile(pool)
	if err != nil {
		t.Fatal(err)
	}
	remote := remoteLoadArgs("http://10.9.9.9:9", login, plan.Wire{}, agent.LoadSpec{Requests: poolBytes}, 4, 0, 0, time.Second, time.Second, time.Minute, time.Now())
	for name, args := range map[string][]string{"local": local, "remote": remote} {
		line := strings.Join(args, " ")
		for _, s := range secrets {
			if strings.Contains(line, s) {
				t.Errorf("the %s generator's command line shows %q: %s", name, s, line)
			}
		}
	}
	st, err := os.Stat(pool)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("pool %s has mode %v, want 0600", pool, st.Mode().Perm())
	}
	b, _ := os.ReadFile(pool)
	want := `{"method":"POST","path":"/login?next=/home","headers":{"Authorization":"Bearer tok-LITERAL-77"},"body":"{\"password\":\"hunter2-LITERAL\"}"}` + "\n"
	if string(b) != want {
		t.Errorf("pool holds\n%s\nwant\n%s", b, want)
	}
	if again, _ := r.pools.of(cur, login); again != pool {
		t.Errorf("a second window wrote another pool %q (first %q)", again, pool)
	}

	bare := workload.Case{Name: "health", Method: "GET", Path: "/health"}
	if p, err := r.pools.of(cur, bare); p != "" || err != nil {
		t.Errorf("pool of a bare GET = %q, %v; want none", p, err)
	}
}
