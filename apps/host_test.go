package apps_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/netutil"
)

// A reference server listens on $HOST when it is set (a server on another
// host than the generator) and on 127.0.0.1 only when it is not.
func TestReferenceServerListensOnHOST(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "server")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goTool(), "build", "-pgo=off", "-o", bin, "./nethttp-pgx").CombinedOutput(); err != nil {
		t.Fatalf("go build ./nethttp-pgx: %v\n%s", err, out)
	}
	// An address of this machine that is not loopback, when it has one:
	// what another host would dial.
	outside := nonLoopback(t)
	t.Logf("non-loopback address: %q", outside)

	cases := []struct {
		host     string
		reach    []string
		reachNot []string
	}{
		{"", []string{"127.0.0.1"}, []string{"127.0.0.2", outside}},
		{"127.0.0.2", []string{"127.0.0.2"}, []string{"127.0.0.1", outside}},
		{"0.0.0.0", []string{"127.0.0.1", outside}, nil},
	}
	for _, c := range cases {
		t.Run("HOST="+c.host, func(t *testing.T) {
			port, err := netutil.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin)
			cmd.Env = append(withoutHOST(os.Environ()), "PORT="+strconv.Itoa(port), "STACKBENCH_WORKLOAD=micro")
			if c.host != "" {
				cmd.Env = append(cmd.Env, "HOST="+c.host)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			for _, a := range c.reach {
				if a == "" {
					continue
				}
				if err := waitHealth(a, port, 20*time.Second); err != nil {
					t.Fatalf("HOST=%q: not reached at %s: %v", c.host, a, err)
				}
			}
			for _, a := range c.reachNot {
				if a == "" {
					continue
				}
				if err := waitHealth(a, port, 0); err == nil {
					t.Fatalf("HOST=%q: reached at %s", c.host, a)
				}
			}
		})
	}
}

func withoutHOST(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOST=") {
			out = append(out, kv)
		}
	}
	return out
}

// waitHealth gets /health at addr:port until it answers 200 or wait has
// passed (one try when wait is 0).
func waitHealth(addr string, port int, wait time.Duration) error {
	url := fmt.Sprintf("http://%s/health", net.JoinHostPort(addr, strconv.Itoa(port)))
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(wait)
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// nonLoopback is an IPv4 address of an interface of this machine that is
// up and not loopback; "" when there is none.
func nonLoopback(t *testing.T) string {
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 || i.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := i.Addrs()
		for _, a := range addrs {
			if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil {
				return ip.IP.String()
			}
		}
	}
	return ""
}
