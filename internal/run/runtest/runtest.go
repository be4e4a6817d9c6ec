// Package runtest holds what the tests of internal/run, of the runs
// across hosts (internal/run/acrosshosts) and of internal/run/localruns
// share: the binaries they build once, comparison files and their
// results, and the test hosts. The across-hosts tests and the local runs
// there are packages of their own so that `go test ./...` runs them
// beside internal/run's tests instead of after them.
package runtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/remote"
	"github.com/stackbench/stackbench/internal/remote/sshtest"
)

// Binaries are what the tests build once: the stackbench command (a run
// drives `stackbench load` as a child process, and copies it to hosts as
// their agent) and the test servers.
type Binaries struct {
	Stackbench string
	// Flaky fails the contract on purpose (internal/run/testdata/flaky);
	// OwnApp is a small app of a user's own (internal/run/testdata/ownapp).
	Flaky, OwnApp string
	// RefServer is the Go reference server (apps/nethttp-pgx), GRPCServer
	// the gRPC one (apps/grpc-pgx); the Dir fields are their sources, the
	// stacks' dir.
	RefServer, RefServerDir   string
	GRPCServer, GRPCServerDir string
	dir                       string
}

// Build builds the binaries of the module at root (a test's path to it,
// relative to its package's directory) in one go command, which links
// them side by side (a go build each took one after another), and the
// reference servers in a second, in their own module (root/apps). The
// stackbench binary's version says tag, the test package's name: the
// hosts' cached agent is named by the binary's hash, and two test
// packages running at once must not share one (each removes its agent
// when its last test ends: sshtest.PlaceAgentOf, whose count of the
// tests using it is its binary's own).
func Build(root, tag string) (*Binaries, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "stackbench-run-test-")
	if err != nil {
		return nil, err
	}
	// With -o naming a directory, each main package's binary is written
	// there under its directory's name.
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"-ldflags=-X github.com/stackbench/stackbench/internal/cli.Version=test-"+tag,
		"./cmd/stackbench", "./internal/run/testdata/flaky", "./internal/run/testdata/ownapp")
	cmd.Dir = root
	apps := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./nethttp-pgx", "./grpc-pgx")
	apps.Dir = filepath.Join(root, "apps")
	for _, c := range []*exec.Cmd{cmd, apps} {
		if out, err := c.CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("build the test binaries in %s: %v\n%s", c.Dir, err, out)
		}
	}
	return &Binaries{
		Stackbench:    filepath.Join(dir, "stackbench"),
		Flaky:         filepath.Join(dir, "flaky"),
		OwnApp:        filepath.Join(dir, "ownapp"),
		RefServer:     filepath.Join(dir, "nethttp-pgx"),
		RefServerDir:  filepath.Join(root, "apps", "nethttp-pgx"),
		GRPCServer:    filepath.Join(dir, "grpc-pgx"),
		GRPCServerDir: filepath.Join(root, "apps", "grpc-pgx"),
		dir:           dir,
	}, nil
}

// Remove removes the binaries.
func (b *Binaries) Remove() { os.RemoveAll(b.dir) }

// WriteFile writes a comparison file named name into a new directory and
// returns its path.
func WriteFile(t testing.TB, name, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Finals reads a results directory's final windows by key.
func Finals(t testing.TB, dir string) (map[string]journal.Window, *journal.Results) {
	t.Helper()
	res, err := journal.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]journal.Window{}
	for _, w := range res.Windows {
		if w.Final {
			if _, dup := out[w.Key]; dup {
				t.Errorf("window %s has two final records", w.Key)
			}
			out[w.Key] = w
		}
	}
	return out, res
}

// SaasFile is a saas-slice comparison file: top-level lines (database,
// profile), the protocol's own lines (indented; no boot suite, gate off),
// then the stacks.
func SaasFile(top, protocol, stacks string) string {
	return "workload: saas-slice\n" + top + "protocol:\n" + protocol + "  boot_starts: 0\n  gate: off\n" + stacks
}

// OnHosts starts the named test hosts for runs whose agents are copies of
// the binary agentBin, placed in the hosts' cache beforehand
// (sshtest.PlaceAgentOf: the runs' tests are not about the copy), and
// removes at the end what the runs leave: the processes in the
// namespaces and the logs of the named stacks' servers.
func OnHosts(t testing.TB, agentBin string, hosts []string, stacks ...string) *sshtest.Net {
	t.Helper()
	return OnHostsWith(t, agentBin, sshtest.Options{}, hosts, stacks...)
}

// OnHostsWith is OnHosts with the hosts' options o.
func OnHostsWith(t testing.TB, agentBin string, o sshtest.Options, hosts []string, stacks ...string) *sshtest.Net {
	t.Helper()
	n := sshtest.StartWith(t, o, hosts...)
	sshtest.PlaceAgentOf(t, agentBin)
	t.Cleanup(func() { KillIn(n) }) // before the namespaces go: nothing left behind
	t.Cleanup(func() {
		// The agents (one user, one file system) keep the servers' logs
		// in the user's cache directory.
		cache, _ := os.UserCacheDir()
		for _, s := range stacks {
			logs, _ := filepath.Glob(filepath.Join(cache, "stackbench", "logs", s+".*.log"))
			for _, l := range logs {
				os.Remove(l)
			}
		}
	})
	return n
}

// HostsSection is a comparison file's hosts: section for the named hosts.
func HostsSection(n *sshtest.Net, names ...string) string {
	var b strings.Builder
	b.WriteString("hosts:\n")
	for _, name := range names {
		h := n.Host(name)
		fmt.Fprintf(&b, "  %s: {ssh: \"%s@%s\", identity: %s}\n", name, n.User, h.HostPort(), n.Identity)
	}
	return b.String()
}

// RefOnHostsFile is a saas-slice file of the named stacks of the Go
// reference server (synced from dir) on app1, their embedded database on
// db1, loaded from load1 and load2: the protocol's own lines (indented;
// no boot suite, gate off), then what follows the stacks.
func (b *Binaries) RefOnHostsFile(n *sshtest.Net, dir, protocol string, stacks []string, tail string) string {
	top := HostsSection(n, "app1", "db1", "load1", "load2") +
		"roles:\n  server: app1\n  database: db1\n  generators: [load1, load2]\nprofile: quick\n"
	list := "stacks:\n"
	for _, s := range stacks {
		list += "  - name: " + s + "\n    dir: " + dir + "\n    start: " + b.RefServer + "\n"
	}
	return SaasFile(top, protocol, list) + tail
}

// DirForHosts is a copy of the stack directory src for one test to sync
// to its server host, removed from the host's cache at the end: tests in
// parallel never sync into one directory.
func DirForHosts(t testing.TB, src string) string {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	ForgetSynced(t, dir)
	return dir
}

// ForgetSynced removes the copy the server host's agent keeps of a stack's
// dir (in our home, which the namespaces share) at the end.
func ForgetSynced(t testing.TB, dir string) {
	key, err := agent.SyncKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Join(home, ".cache", "stackbench", "dirs", key)) })
}

// KillIn kills every process left in the hosts' namespaces (agents whose
// session was cut with the link, and what they started).
func KillIn(n *sshtest.Net) {
	for _, h := range n.Hosts {
		out, _ := exec.Command("ip", "netns", "pids", h.NS).Output()
		for _, pid := range strings.Fields(string(out)) {
			exec.Command("kill", "-9", pid).Run()
		}
	}
}

// HostsPlan resolves the comparison file at path for a run over n's
// hosts: the file, its plan, the remote options that reach n's hosts
// with agents copied from agentBin, and the run's log, shown when the
// test fails.
func HostsPlan(t testing.TB, n *sshtest.Net, path, agentBin string) (*plan.File, *plan.Plan, remote.Options, *strings.Builder) {
	t.Helper()
	f, p, log := LocalPlan(t, path)
	return f, p, remote.Options{KnownHosts: []string{n.KnownHosts}, Binary: agentBin, DialTimeout: time.Second}, log
}

// LocalPlan loads and resolves the comparison file at path for a run on
// this host alone, and returns the run's log, shown when the test fails.
func LocalPlan(t testing.TB, path string) (*plan.File, *plan.Plan, *strings.Builder) {
	t.Helper()
	f, err := plan.LoadEnv(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(plan.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	log := &strings.Builder{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("run log:\n%s", log.String())
		}
	})
	return f, p, log
}

// SpinningListenerIn starts, in the namespace ns ("": ours), a process
// that listens on a TCP port of its loopback and burns some CPU (a short
// burst every 5 ms: a few percent of a core, not the shared host's whole
// core), and returns the port.
func SpinningListenerIn(t testing.TB, ns string) int {
	t.Helper()
	argv := []string{"python3", "-c", `import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True)
while True:
    sum(i * i for i in range(5000)); time.sleep(0.005)`}
	if ns != "" {
		argv = append([]string{"ip", "netns", "exec", ns}, argv...)
	}
	svc := exec.Command(argv[0], argv[1:]...)
	out, err := svc.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Process.Kill(); svc.Wait() })
	var port int
	if _, err := fmt.Fscan(out, &port); err != nil {
		t.Fatal(err)
	}
	return port
}

// OwnAppFile is a custom workload with setup steps of both scopes, a
// case cycling over a captured list and a case drawing from ${rand}.
func (b *Binaries) OwnAppFile(extraStacks string) string {
	return `
workload:
  name: blog
  setup:
    - name: login
      method: POST
      path: /login
      expect: [200]
      capture: {token: body.user.token, auth: header.Authorization}
    - name: articles
      scope: process
      repeat: 20
      method: POST
      path: /articles
      headers: {Authorization: "${auth}", Content-Type: application/json}
      body: '{"article":{"title":"Bench ${i}"}}'
      expect: [201]
      capture: {slugs: body.article.slug}
  cases:
    - name: article
      path: /articles/${slugs}
      ignore: [article.createdAt]
    - name: page
      path: /articles?offset=${rand:0..190}
      ignore: [at]
profile: quick
protocol:
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at internal/run's flakyFile
  window: 500ms
  rounds: 2
  boot_starts: 0
  gate: off
stacks:
  - name: one
    dir: .
    start: ` + b.OwnApp + `
` + extraStacks
}
