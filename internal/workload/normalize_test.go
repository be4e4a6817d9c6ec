package workload

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// appServer answers GET /a with body and Content-Type ct.
func appServer(t *testing.T, ct, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func parity(t *testing.T, c Case, answers ...[2]string) ([]Finding, []Finding) {
	t.Helper()
	c.Name, c.Method, c.Path, c.Expect = "article", "GET", "/a", []int{200}
	w := &Workload{Name: "mine", Cases: []Case{c}}
	var results []StackResult
	for i, a := range answers {
		results = append(results, RunChecks(context.Background(), w, appServer(t, a[0], a[1]), RunOptions{Stack: fmt.Sprint("s", i)}))
	}
	rep := NewReport("mine", results)
	return rep.Failures, rep.Warnings
}

const js = "application/json"

func TestCompareJSONIgnoresKeyOrderAndPaths(t *testing.T) {
	a := `{"article":{"slug":"x","createdAt":"2026-01-01"},"tags":[{"id":1,"at":"t1"},{"id":2,"at":"t2"}]}`
	b := `{"tags":[{"at":"u1","id":1},{"id":2,"at":"u2"}],"article":{"createdAt":"2027-02-02","slug":"x"}}`
	fail, warn := parity(t, Case{Compare: CompareJSON, Ignore: []string{"article.createdAt", "tags.#.at"}}, [2]string{js, a}, [2]string{js + "; charset=utf-8", b})
	if len(fail) != 0 || len(warn) != 0 {
		t.Fatalf("failures %v, warnings %v", fail, warn)
	}
	fail, _ = parity(t, Case{Compare: CompareJSON, Ignore: []string{"article.createdAt"}}, [2]string{js, a}, [2]string{js, b})
	if len(fail) != 1 || !strings.Contains(fail[0].Problem, `at tags.0.at, want "t1" but got "u1"`) {
		t.Fatalf("want the first differing path and both values, got %v", fail)
	}
	fail, _ = parity(t, Case{Compare: CompareExact}, [2]string{js, `{"a":1,"b":2}`}, [2]string{js, `{"b":2,"a":1}`})
	if len(fail) != 1 || !strings.Contains(fail[0].Problem, "at byte 2") {
		t.Fatalf("exact: %v", fail)
	}
	fail, _ = parity(t, Case{Compare: CompareJSON}, [2]string{js, `{"n":[1,2]}`}, [2]string{js, `{"n":[1,2,3]}`})
	if len(fail) != 1 || !strings.Contains(fail[0].Problem, "at n.#, want 2 elements but got 3") {
		t.Fatalf("array length: %v", fail)
	}
}

func TestCompareStatusAndNoneAndContentType(t *testing.T) {
	if fail, _ := parity(t, Case{Compare: CompareStatus}, [2]string{js, `{"a":1}`}, [2]string{js, `{"a":2}`}); len(fail) != 0 {
		t.Errorf("status mode compared bodies: %v", fail)
	}
	fail, _ := parity(t, Case{Compare: CompareStatus}, [2]string{js, `{}`}, [2]string{"text/plain", `{}`})
	if len(fail) != 1 || !strings.Contains(fail[0].Problem, `Content-Type "text/plain", but stack s0 answered "application/json"`) {
		t.Errorf("content type: %v", fail)
	}
	if fail, _ := parity(t, Case{Compare: CompareNone}, [2]string{js, `{}`}, [2]string{"text/plain", `x`}); len(fail) != 0 {
		t.Errorf("none compared: %v", fail)
	}
	fail, _ = parity(t, Case{Compare: CompareJSON}, [2]string{js, `{}`}, [2]string{js, `not json`})
	if len(fail) != 1 || !strings.Contains(fail[0].Problem, "at byte 0") {
		t.Errorf("a body that is not JSON: %v", fail)
	}
}

func TestIgnorePathMatchingNothingWarns(t *testing.T) {
	_, warn := parity(t, Case{Compare: CompareJSON, Ignore: []string{"article.createdAt", "article.cretedAt"}},
		[2]string{js, `{"article":{"createdAt":1}}`}, [2]string{js, `{"article":{"createdAt":2}}`})
	if len(warn) != 1 || !strings.Contains(warn[0].Problem, `ignore path "article.cretedAt" matched nothing`) {
		t.Fatalf("warnings %v", warn)
	}
}
