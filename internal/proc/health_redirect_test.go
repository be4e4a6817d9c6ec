package proc

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
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

// A redirect during the health poll is a failure of the stack, said as
// such, even to another listener on this machine: that listener's 200
// would otherwise count as the stack's boot.
func TestHealthRedirectFailsTheBoot(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer other.Close()
	stack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/ok", http.StatusFound)
	}))
	defer stack.Close()
	port := stack.Listener.Addr().(*net.TCPAddr).Port
	t0 := time.Now()
	_, err := pollHealth(context.Background(), Spec{Port: port, HealthPath: "/health", BootTimeout: 5 * time.Second}, make(chan struct{}), t0)
	if err == nil || !strings.Contains(err.Error(), "redirect") || !strings.Contains(err.Error(), other.URL+"/ok") || time.Since(t0) > 2*time.Second {
		t.Errorf("health behind a redirect to another listener: %v after %v; want the boot failed at once, naming the redirect", err, time.Since(t0))
	}
}
