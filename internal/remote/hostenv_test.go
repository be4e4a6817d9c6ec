package remote

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/remote/sshtest"
)

// A reference server started by the agent of a server host with HOST=0.0.0.0
// answers at that host's address, from here; without HOST it answers only on
// the host's loopback, so not from here.
func testReferenceServerOnHOST(t *testing.T, n *sshtest.Net) {
	bin := filepath.Join(t.TempDir(), "server")
	build := exec.Command("go", "build", "-pgo=off", "-o", bin, "./nethttp-pgx")
	build.Dir = "../../apps" // the reference servers' module
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./nethttp-pgx in apps/: %v\n%s", err, out)
	}
	ctx := context.Background()
	s, err := Connect(ctx, hostOf(n, "app1"), Options{KnownHosts: []string{n.KnownHosts}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addr := n.Host("app1").Addr
	client := &http.Client{Timeout: 2 * time.Second}
	for _, host := range []string{"0.0.0.0", ""} {
		port, err := s.Agent.FreePort(ctx)
		if err != nil {
			t.Fatal(err)
		}
		env := []string{"PORT=" + strconv.Itoa(port), "STACKBENCH_WORKLOAD=micro"}
		if host != "" {
			env = append(env, "HOST="+host)
		}
		// The agent's start waits for 200 on the host's own 127.0.0.1.
		if _, _, err := s.Agent.Start(ctx, agent.StartSpec{Name: "server", Dir: filepath.Dir(bin), Command: bin, Env: env,
			Port: port, HealthPath: "/health", LogPath: "server", BootTimeout: 20 * time.Second}); err != nil {
			t.Fatalf("HOST=%q: %v", host, err)
		}
		url := fmt.Sprintf("http://%s/health", net.JoinHostPort(addr, strconv.Itoa(port)))
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
		}
		switch {
		case host != "" && (err != nil || resp.StatusCode != http.StatusOK):
			t.Errorf("HOST=%s: %s from here: %v; want 200", host, url, err)
		case host == "" && err == nil:
			t.Errorf("HOST unset: %s answered from here; the server must listen on the host's loopback only", url)
		}
		if err := s.Agent.Stop(ctx, "server"); err != nil {
			t.Fatal(err)
		}
	}
}
