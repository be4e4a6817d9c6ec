package remote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/remote/sshtest"
)

// hostOf is the remote.Host of a test host.
func hostOf(n *sshtest.Net, name string) Host {
	h := n.Host(name)
	return Host{Name: name, User: n.User, Addr: h.Addr, Port: h.Port, Identity: n.Identity}
}

// Over real SSH to sshd in network namespaces (one set for every subtest:
// each login runs the host's shell, which is slow on a busy host).
func TestOverSSH(t *testing.T) {
	n := sshtest.Start(t, "app1", "db1")
	sshtest.ForgetAgent(t)
	t.Run("agent and checks", func(t *testing.T) { testAgentAndChecks(t, n) })
	t.Run("sync dir", func(t *testing.T) { testSyncDir(t, n) })
	t.Run("reference server on HOST", func(t *testing.T) { testReferenceServerOnHOST(t, n) })
	t.Run("dropped session", func(t *testing.T) { testDroppedSession(t, n) })
	t.Run("host keys", func(t *testing.T) { testHostKeys(t, n) })
	t.Run("unreachable", func(t *testing.T) { testUnreachable(t, n) })
}

// The binary is copied once and then found in the cache, the agent greets
// with our version and binary, the clock offset is estimated, and the
// checks find PostgreSQL where asked.
func testAgentAndChecks(t *testing.T, n *sshtest.Net) {
	ctx := context.Background()
	o := Options{KnownHosts: []string{n.KnownHosts}}

	s, err := Connect(ctx, hostOf(n, "app1"), o)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	hash, _ := fileHash(exe)
	if !s.Copied || s.Platform != Local() || s.Hello.Version != agent.Version || s.Hello.Binary != hash {
		t.Fatalf("first connect: copied %v, platform %s, hello %+v; want a copy of %s for %s", s.Copied, s.Platform, s.Hello, hash[:16], Local())
	}
	off, err := s.Agent.Clock(ctx, ClockExchanges)
	if err != nil {
		t.Fatal(err)
	}
	// The namespaces share our clock: the estimate must be within its bound.
	if off.Offset.Abs() > off.Bound+time.Microsecond || off.Bound > MaxGeneratorClockError {
		t.Fatalf("clock %s over a veth pair with one clock", off)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	checks := CheckHosts(ctx, []Host{hostOf(n, "app1"), hostOf(n, "db1")}, map[string]Need{"db1": {Postgres: true, Clock: true}}, o)
	for _, c := range checks {
		if c.Err != nil {
			t.Fatalf("check %s: %v", c.Host.Name, c.Err)
		}
		if c.Copied {
			t.Errorf("check %s copied the binary again; the host's cache has it", c.Host.Name)
		}
		if c.FreePort <= 0 || c.Hello.CPUs <= 0 {
			t.Errorf("check %s: %+v", c.Host.Name, c)
		}
	}
	if checks[0].Postgres != "" || !strings.Contains(checks[1].Postgres, "/") {
		t.Fatalf("PostgreSQL: app1 %q (not asked), db1 %q (asked)", checks[0].Postgres, checks[1].Postgres)
	}
}

// An unknown host key is refused, naming the host and the fingerprint to
// verify; a changed one is refused naming the line that holds the old key.
func testHostKeys(t *testing.T, n *sshtest.Net) {
	ctx := context.Background()
	h := hostOf(n, "app1")
	want := ssh.FingerprintSHA256(n.Host("app1").Key)

	empty := n.KnownHostsWith(t, nil)
	_, err := Dial(ctx, h, Options{KnownHosts: []string{empty}})
	var he *HostKeyError
	if !errors.As(err, &he) || !he.Unknown || he.Fingerprint != want || !strings.Contains(err.Error(), "host app1") ||
		!strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "ssh-keyscan") {
		t.Fatalf("unknown key: %v; want a refusal naming app1 and %s", err, want)
	}

	changed := n.KnownHostsWith(t, sshtest.NewKey(t), "app1")
	_, err = Dial(ctx, h, Options{KnownHosts: []string{changed}})
	if !errors.As(err, &he) || he.Unknown || he.Fingerprint != want || !strings.Contains(err.Error(), changed+":1") {
		t.Fatalf("changed key: %v; want a refusal naming %s:1", err, changed)
	}

	_, err = Dial(ctx, h, Options{KnownHosts: []string{filepath.Join(t.TempDir(), "none")}})
	if err == nil || !strings.Contains(err.Error(), "no known_hosts file") {
		t.Fatalf("no known_hosts: %v", err)
	}

	c, err := Dial(ctx, h, Options{KnownHosts: []string{n.KnownHosts}})
	if err != nil {
		t.Fatalf("known key: %v", err)
	}
	c.Close()

	h.Identity = ""
	if _, err := Dial(ctx, h, Options{KnownHosts: []string{n.KnownHosts}}); err == nil || !strings.Contains(err.Error(), "no SSH key") {
		t.Fatalf("no key at all: %v", err)
	}
	other := filepath.Join(t.TempDir(), "other")
	sshtest.WriteKey(t, other)
	h.Identity = other
	if _, err := Dial(ctx, h, Options{KnownHosts: []string{n.KnownHosts}}); err == nil || !strings.Contains(err.Error(), "refused our keys") {
		t.Fatalf("a key the host does not allow: %v", err)
	}
}

// A host that does not answer fails within the dial timeout, with a
// message that names it.
func testUnreachable(t *testing.T, n *sshtest.Net) {
	h := Host{Name: "gone", User: "root", Addr: n.Unreachable, Port: 22, Identity: n.Identity}
	began := time.Now()
	const timeout = 2 * time.Second
	_, err := Dial(context.Background(), h, Options{KnownHosts: []string{n.KnownHosts}, DialTimeout: timeout})
	took := time.Since(began)
	if err == nil || !strings.Contains(err.Error(), "host gone (root@"+n.Unreachable+":22) is unreachable") {
		t.Fatalf("unreachable host: %v", err)
	}
	// One dial, not a retry loop: under twice the timeout however late
	// a busy host wakes the timer.
	if took > 2*timeout {
		t.Fatalf("the unreachable host took %s to fail; the dial timeout is %s", took, timeout)
	}
}

// When the SSH connection drops, the agent on the host sees its stdin
// close and stops the processes it started.
func testDroppedSession(t *testing.T, n *sshtest.Net) {
	ctx := context.Background()
	s, err := Connect(ctx, hostOf(n, "app1"), Options{KnownHosts: []string{n.KnownHosts}})
	if err != nil {
		t.Fatal(err)
	}
	port, err := s.Agent.FreePort(ctx)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	pid, _, err := s.Agent.Start(ctx, agent.StartSpec{Name: "server", Dir: t.TempDir(), Command: exe,
		Env: []string{serveEnv + "=1", "PORT=" + strconv.Itoa(port)}, Port: port, HealthPath: "/health",
		LogPath: "server", BootTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("start on the host: %v (agent stderr: %s)", err, s.Stderr())
	}
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("pid %d is not running", pid)
	}
	s.Drop()
	if _, err := s.Agent.FreePort(ctx); !errors.Is(err, agent.ErrSessionLost) {
		t.Fatalf("a call after the drop = %v; want ErrSessionLost", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still runs 10 s after its session dropped", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
