package workload

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// documentedSaaSChecks is the number of saas-slice checks the docs promise
// ("The checks (saas-slice: 104 per stack)" in docs/workloads.md).
const documentedSaaSChecks = 104

func TestChecksCoverEveryCase(t *testing.T) {
	for _, name := range Names() {
		w, _ := Builtin(name, DefaultJWTSecret)
		checks := Checks(w, DefaultJWTSecret)
		// The last check, only-created-orders-stored, is added when the
		// checks run (it counts what the others inserted).
		if name == "saas-slice" && len(checks)+1 != documentedSaaSChecks {
			t.Errorf("%s: %d checks and the stored-orders one, docs/workloads.md and the README promise %d", name, len(checks), documentedSaaSChecks)
		}
		seen := map[string]bool{}
		success, failure := map[string]int{}, map[string]int{}
		for _, c := range checks {
			if seen[c.Name] {
				t.Errorf("%s: check %s appears twice", name, c.Name)
			}
			seen[c.Name] = true
			if _, ok := w.Case(c.Case); !ok && c.Case != "health" {
				t.Errorf("%s: check %s names case %q, which the workload lacks", name, c.Name, c.Case)
			}
			if len(c.Expect.Status) == 0 {
				t.Errorf("%s: check %s allows no status", name, c.Name)
			}
			if c.Expect.Success() {
				success[c.Case]++
				if c.Expect.Body == "" && c.Expect.Order == nil && c.Expect.TFB == nil {
					t.Errorf("%s: success check %s does not say what body it wants", name, c.Name)
				}
			} else {
				failure[c.Case]++
			}
		}
		for _, cs := range w.Cases {
			if success[cs.Name] == 0 {
				t.Errorf("%s: case %s has no happy-path check", name, cs.Name)
			}
			// TFB's contract has no error answers: its bad counts are
			// clamped, and answered 200.
			if failure[cs.Name] == 0 && cs.Name != "health" && cs.Name != "get" && name != "tfb" {
				t.Errorf("%s: case %s has no error check", name, cs.Name)
			}
		}
	}
}

// TestLoadRequestsAreChecked makes sure the request the load sends for each
// case is one the gate checks with its expected success status.
func TestLoadRequestsAreChecked(t *testing.T) {
	for _, name := range Names() {
		w, _ := Builtin(name, DefaultJWTSecret)
		checks := Checks(w, DefaultJWTSecret)
	cases:
		for _, cs := range w.Cases {
			for _, c := range checks {
				if c.Method == cs.Method && c.Path == cs.Path && string(c.Body) == string(cs.Body) &&
					headerValue(c.Header, "Authorization") == headerValue(cs.Header, "Authorization") &&
					c.Expect.Status[0] == cs.Expect[0] {
					continue cases
				}
			}
			t.Errorf("%s: the load's request for case %s (%s %s) is not checked", name, cs.Name, cs.Method, cs.Path)
		}
	}
}

func headerValue(hs []Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

func TestExpectedBodiesFromTheSeed(t *testing.T) {
	got := seededUserJSON(4242)
	if !strings.HasPrefix(got, `{"id":4242,"name":"User 4242","email":"user4242@example.com","age":`) ||
		!strings.HasSuffix(got, `,"createdAt":"2023-11-14T23:24:01.000Z"}`) {
		t.Errorf("user 4242 = %s", got)
	}
	page := userPageJSON(7, 20)
	if !strings.HasPrefix(page, `{"page":7,"limit":20,"items":[{"id":121,`) || !strings.Contains(page, `{"id":140,`) ||
		strings.Contains(page, `{"id":141,`) || strings.Count(page, `"id":`) != 20 {
		t.Errorf("page 7 = %.200s…", page)
	}
	if last := userPageJSON(1667, 30); strings.Count(last, `"id":`) != 20 || !strings.Contains(last, `{"id":50000,`) {
		t.Errorf("page 1667 of 30 has %d users, want 49981…50000", strings.Count(last, `"id":`))
	}
	if got := cpuChain(1); got != "0f0194bebe88948631df19569101d272137f459b50f5d7ac9b9efba4f2d3fcc7" {
		t.Errorf("cpuChain(1) = %s", got)
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 4, "abcd…(+6 bytes)"},
		{"ééé", 3, "é…(+4 bytes)"}, // never cuts inside a character
	} {
		if got := truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestFirstDifference(t *testing.T) {
	got := firstDifference(`{"id":1,"age":41}`, `{"id":1,"age":"41"}`)
	if !strings.Contains(got, "at byte 14") || !strings.Contains(got, `"age":41}`) || !strings.Contains(got, `"age":"41"}`) {
		t.Errorf("firstDifference = %s", got)
	}
	if got := firstDifference(`{"a":1}`, `{"a":1`); !strings.Contains(got, "ends at byte 6") {
		t.Errorf("firstDifference of a cut body = %s", got)
	}
}

func TestObjectFields(t *testing.T) {
	keys, vals, err := objectFields([]byte(`{"id":7,"userId":1,"amount":"1.00","currency":"USD","createdAt":"x"}`))
	if err != nil || strings.Join(keys, ",") != "id,userId,amount,currency,createdAt" || string(vals["amount"]) != `"1.00"` {
		t.Errorf("objectFields = %v, %v, %v", keys, vals, err)
	}
	if got := string(blankVolatile(keys, vals)); got != `{"id":0,"userId":1,"amount":"1.00","currency":"USD","createdAt":""}` {
		t.Errorf("blankVolatile = %s", got)
	}
	for _, bad := range []string{`[]`, `{"a":1,"a":2}`, `{"a":1} {}`, `{"a":`} {
		if _, _, err := objectFields([]byte(bad)); err == nil {
			t.Errorf("objectFields(%s): no error", bad)
		}
	}
}

func TestChecksOfACustomWorkload(t *testing.T) {
	w := &Workload{Name: "mine", Cases: []Case{
		{Name: "ping", Method: "GET", Path: "/ping", Expect: []int{200, 204}},
		{Name: "add", Method: "POST", Path: "/items", Body: []byte(`{}`), Expect: []int{201}, Inserts: true},
	}}
	cs := Checks(w, DefaultJWTSecret)
	if len(cs) != 2 || cs[0].Name != "ping/load-request" || len(cs[0].Expect.Status) != 2 || cs[0].Expect.Volatile ||
		!cs[1].Expect.Volatile || string(cs[1].Body) != `{}` {
		t.Errorf("Checks(custom) = %+v", cs)
	}
}

// A custom workload on the database inserts rows of its own: RunChecks runs
// its cases' checks and does not hold it to the built-in order count.
func TestRunChecksOfACustomDatabaseWorkload(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	w := &Workload{Name: "mine", NeedsDatabase: true, Cases: []Case{
		{Name: "add", Method: "POST", Path: "/orders", Body: []byte(`{}`), Expect: []int{201}, Inserts: true, Database: true},
	}}
	r := RunChecks(context.Background(), w, srv.URL, RunOptions{Stack: "mine"})
	if !r.OK() || len(r.Checks) != 1 || r.Checks[0].Check != "add/load-request" {
		t.Errorf("RunChecks(custom) = %+v, want the one load-request check passed", r)
	}
}
