package saas

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/pprof/profile"
)

// The profiles the profiling phase reads answer under /debug/pprof/, and
// the server's own routes are untouched.
func TestPprofBesideTheRoutes(t *testing.T) {
	h := withPprof(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/debug/pprof/allocs")
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("/debug/pprof/allocs is no pprof profile: %v", err)
	}
	if len(p.SampleType) == 0 || p.SampleType[0].Type != "alloc_objects" {
		t.Errorf("sample types %v, want the allocation profile's", p.SampleType)
	}
	resp, err = http.Get(srv.URL + "/users/1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot {
		t.Errorf("/users/1 answered %d, want the server's own handler", resp.StatusCode)
	}
}
