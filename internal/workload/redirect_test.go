package workload

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A parity check answered with a redirect is a finding that says where it
// pointed; the check's headers and body never reach that place.
func TestRunChecksDoesNotFollowRedirects(t *testing.T) {
	var stolen atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { stolen.Add(1) }))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/steal", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	w := &Workload{Name: "mine", Cases: []Case{
		{Name: "add", Method: "POST", Path: "/things", Header: []Header{{Name: "X-Api-Key", Value: "k"}}, Body: []byte(`{}`), Expect: []int{201}},
	}}
	r := RunChecks(context.Background(), w, srv.URL, RunOptions{Stack: "mine"})
	if stolen.Load() != 0 {
		t.Fatalf("the redirect was followed: %d requests reached the other server", stolen.Load())
	}
	if r.OK() || len(r.Checks) != 1 || !strings.Contains(r.Checks[0].Problem, "status 307, want 201 (a redirect to "+elsewhere.URL+"/steal, not followed") {
		t.Errorf("RunChecks = %+v, want a 307 finding naming the redirect", r)
	}
}
