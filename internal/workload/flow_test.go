package workload

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/load"
)

// sessionFlow logs in, lists, reads one item and likes it: four steps,
// the token and the id captured.
func sessionFlow() Case {
	return Case{Name: "session", Flow: &load.Flow{Name: "session", Steps: []load.FlowStep{
		{Name: "login", Method: "POST", Path: "/login", Body: `{"user":"a"}`, Expect: []int{200}, Capture: map[string]string{"token": "body.token"}},
		{Name: "list", Path: "/items", Headers: map[string]string{"Authorization": "Bearer ${token}"}, Expect: []int{200}, Capture: map[string]string{"id": "body.items.#.id"}},
		{Name: "read", Path: "/items/${id}", Headers: map[string]string{"Authorization": "Bearer ${token}"}, Expect: []int{200}},
		{Name: "like", Method: "POST", Path: "/items/${id}/likes", Headers: map[string]string{"Authorization": "Bearer ${token}"}, Expect: []int{201}},
	}}, FlowParity: []StepParity{{Compare: CompareJSON, Ignore: []string{"token"}}, {Compare: CompareJSON}, {Compare: CompareJSON}, {Compare: CompareStatus}}}
}

// sessionServer serves the flow; title is what the third step's item is
// called, token the token it hands out, loginStatus its login's answer.
func sessionServer(t *testing.T, title, token string, loginStatus int) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/login":
			w.WriteHeader(loginStatus)
			io.WriteString(w, `{"token":"`+token+`"}`)
		case r.Header.Get("Authorization") != "Bearer "+token:
			w.WriteHeader(401)
		case r.URL.Path == "/items":
			io.WriteString(w, `{"items":[{"id":7}]}`)
		case r.URL.Path == "/items/7":
			io.WriteString(w, `{"id":7,"title":"`+title+`"}`)
		case r.URL.Path == "/items/7/likes" && r.Method == "POST":
			w.WriteHeader(201)
			io.WriteString(w, `{"like":"`+token+`"}`)
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func flowResults(t *testing.T, urls ...string) []StackResult {
	t.Helper()
	w := &Workload{Name: "app", Cases: []Case{sessionFlow()}}
	var out []StackResult
	for i, u := range urls {
		out = append(out, RunChecks(context.Background(), w, u, RunOptions{Stack: string(rune('a' + i))}))
	}
	return out
}

// Parity runs each flow once per stack, its captures flowing step to step
// (each stack's own token), and compares each step's answer: a third step
// that differs between stacks is caught at that step.
func TestFlowParityCatchesAThirdStepThatDiffers(t *testing.T) {
	same := flowResults(t, sessionServer(t, "Lamp", "tok-a", 200), sessionServer(t, "Lamp", "tok-b", 200))
	for _, r := range same {
		if len(r.Checks) != 4 || r.Passed() != 4 {
			t.Fatalf("stack %s: %d of %d checks passed: %+v", r.Stack, r.Passed(), len(r.Checks), r.Checks)
		}
	}
	if f, _ := Compare(same); len(f) != 0 {
		t.Errorf("two stacks that agree (tokens apart, ignored) differ: %+v", f)
	}
	differ := flowResults(t, sessionServer(t, "Lamp", "tok-a", 200), sessionServer(t, "Chair", "tok-a", 200))
	f, _ := Compare(differ)
	if len(f) != 1 || f[0].Check != "session/read" || !strings.Contains(f[0].Problem, "title") {
		t.Errorf("findings %+v; want one at session/read naming the title", f)
	}
}

// A flow whose login fails stops there: its later steps are not sent,
// each a failed check naming the step that stopped it.
func TestFlowParityStopsAtAFailingStep(t *testing.T) {
	res := flowResults(t, sessionServer(t, "Lamp", "tok-a", 401))[0]
	if len(res.Checks) != 4 || res.Passed() != 0 || !strings.Contains(res.Checks[0].Problem, "status 401") ||
		!strings.Contains(res.Checks[3].Problem, "stopped at step login") {
		t.Errorf("checks %+v", res.Checks)
	}
}
