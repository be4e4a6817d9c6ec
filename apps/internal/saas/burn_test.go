package saas

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestBurnSpinsBeforeEachRequest(t *testing.T) {
	served := 0
	h := withBurn(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served++ }), 2*time.Millisecond)
	start := time.Now()
	for range 5 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/health", nil))
	}
	if took := time.Since(start); served != 5 || took < 10*time.Millisecond {
		t.Errorf("5 requests at 2 ms of burn each: served %d in %v", served, took)
	}
	plain := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	if got := withBurn(plain, 0); got == nil {
		t.Error("no burn must leave the handler as it is")
	}
	for _, c := range []struct {
		v    string
		want time.Duration
		bad  bool
	}{{"", 0, false}, {"12", 12 * time.Microsecond, false}, {"-1", 0, true}, {"12us", 0, true}} {
		got, err := burnFromEnv(func(string) string { return c.v })
		if got != c.want || (err != nil) != c.bad {
			t.Errorf("%s=%q: %v, %v", BurnEnv, c.v, got, err)
		}
	}
}
