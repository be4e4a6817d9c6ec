package netutil

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// LoopbackRedirects follows a redirect on this machine and refuses one
// to another host before connecting to it.
func TestLoopbackRedirects(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("here")) }))
	defer target.Close()
	to := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	c := &http.Client{Timeout: 5 * time.Second, CheckRedirect: LoopbackRedirects}

	to = target.URL + "/ok"
	resp, err := c.Get(srv.URL)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a loopback redirect: %v", err)
	}
	resp.Body.Close()

	to = "http://192.0.2.1:9/away" // TEST-NET-1: never reached
	t0 := time.Now()
	_, err = c.Get(srv.URL)
	if !errors.Is(err, ErrRedirectRefused) || time.Since(t0) > time.Second {
		t.Errorf("a redirect to another host: %v after %v; want it refused at once", err, time.Since(t0))
	}
}
