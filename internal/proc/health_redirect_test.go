package proc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/netutil"
)

// The health client follows no redirect away from this machine.
func TestHealthRefusesARedirectElsewhere(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://192.0.2.1:9/health", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	c, _ := healthClient(Spec{})
	defer c.CloseIdleConnections()
	t0 := time.Now()
	_, _, err := healthOnce(context.Background(), c, srv.URL+"/health", false)
	if !errors.Is(err, netutil.ErrRedirectRefused) || time.Since(t0) > time.Second {
		t.Errorf("health behind a redirect to another host: %v after %v; want it refused at once", err, time.Since(t0))
	}
}
