package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// writeAccessLog writes a 10,000-line log: combined format and JSON
// lines, ids in paths (numbers and uuids), query strings, 4xx and 5xx, a
// write route, a route that only fails, and lines that do not parse. It
// returns the requests it wrote per route (method and shape).
func writeAccessLog(t *testing.T, path string) map[string]int {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	counts := map[string]int{}
	var b bytes.Buffer
	uuids := []string{"9f1c2d3e-4a5b-4c6d-8e7f-001122334455", "00000000-1111-4222-8333-444455556666"}
	for i := range 10_000 {
		method, target, status, shape := "GET", "", 200, ""
		switch k := rng.IntN(100); {
		case k < 40:
			id := 1 + rng.IntN(500)
			target, shape = fmt.Sprintf("/users/%d", id), "GET /users/{n}"
			if id%25 == 0 {
				status = 404
			}
		case k < 65:
			target, shape = fmt.Sprintf("/users?page=%d", rng.IntN(3)), "GET /users"
		case k < 75:
			target, shape = "/articles/"+uuids[rng.IntN(2)]+"/comments", "GET /articles/{uuid}/comments"
		case k < 88:
			target, shape, status = "/health", "GET /health", 204
		case k < 95:
			method, target, shape, status = "POST", "/orders", "POST /orders", 201
		case k < 98:
			target, shape, status = "/broken", "GET /broken", 500
		default:
			fmt.Fprintf(&b, "garbage line %d\n", i)
			continue
		}
		counts[shape]++
		if i%3 == 0 {
			fmt.Fprintf(&b, `{"time":"2026-12-06T10:00:00Z","method":%q,"path":%q,"status":%d,"bytes":120}`+"\n", method, target, status)
		} else {
			fmt.Fprintf(&b, "10.0.0.%d - - [06/Dec/2026:10:00:%02d +0000] \"%s %s HTTP/1.1\" %d 512 \"-\" \"bench/1.0\"\n", i%250, i%60, method, target, status)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return counts
}

// init --access-log writes a file plan accepts: a case per replayable
// route (ids templated over the ids seen, the most frequent query kept)
// and a mix whose weights are the log's counts; it says what it left out.
func TestInitFromAccessLog(t *testing.T) {
	dir := t.TempDir()
	counts := writeAccessLog(t, filepath.Join(dir, "access.log"))
	code, out, errOut := runMain(t, dir, nil, "init", "--access-log", "access.log")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"left out: 1 route of other methods than GET and HEAD (POST", "left out: 1 route that never answered 2xx or 3xx", "lines that did not parse (the first, line"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	f, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		data, _ := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
		t.Fatalf("plan: %v\n%s", err, data)
	}
	code, planOut, errOut := runMain(t, dir, nil, "plan")
	if code != 0 {
		t.Fatalf("stackbench plan exits %d: %s", code, errOut)
	}
	if !strings.Contains(planOut, "mix          access-log = users-id ") {
		t.Errorf("plan does not show the mix:\n%s", planOut)
	}
	mix, ok := f.Workload.Case("access-log")
	if !ok {
		t.Fatalf("no mix in %+v", f.Workload.CaseNames())
	}
	want := map[string]string{"users-id": "GET /users/{n}", "users": "GET /users", "articles-id-comments": "GET /articles/{uuid}/comments", "health": "GET /health"}
	if len(mix.Mix) != len(want) {
		t.Errorf("mix %+v, want the 4 replayable routes", mix.Mix)
	}
	for _, part := range mix.Mix {
		if shape, ok := want[part.Case]; !ok || part.Weight != counts[shape] {
			t.Errorf("route %s weighs %d; the log has %d requests of %s", part.Case, part.Weight, counts[shape], shape)
		}
	}
	users, _ := f.Workload.Case("users-id")
	health, _ := f.Workload.Case("health")
	page, _ := f.Workload.Case("users")
	switch {
	case users.Path != "/users/${rand:1..500}" || !users.Templated:
		t.Errorf("users-id path %q (templated %v), want /users/${rand:1..500}", users.Path, users.Templated)
	case len(health.Expect) != 1 || health.Expect[0] != 204:
		t.Errorf("health expects %v, want its 204", health.Expect)
	case !strings.HasPrefix(page.Path, "/users?page="):
		t.Errorf("users path %q, want the most frequent query kept", page.Path)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
	if !strings.Contains(string(data), "# GET /users/{n}: ") || !strings.Contains(string(data), "404 ×") {
		t.Errorf("the cases do not say what the log showed:\n%s", data)
	}
}

// --top keeps the most requested routes and says how many it left.
func TestInitFromAccessLogTop(t *testing.T) {
	dir := t.TempDir()
	writeAccessLog(t, filepath.Join(dir, "access.log"))
	code, out, errOut := runMain(t, dir, nil, "init", "--access-log", "access.log", "--top", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mix, _ := f.Workload.Case("access-log")
	if len(mix.Mix) != 2 || mix.Mix[0].Case != "users-id" || mix.Mix[1].Case != "users" || !strings.Contains(out, "2 routes less requested") {
		t.Errorf("mix %+v; output:\n%s", mix.Mix, out)
	}
	if code, _, errOut := runMain(t, dir, nil, "init", "--force", "--access-log", "missing.log"); code == 0 || !strings.Contains(errOut, "missing.log") {
		t.Errorf("a missing log: exit %d, %s", code, errOut)
	}
}
