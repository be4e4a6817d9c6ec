//go:build linux

package run

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/dockertest"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/remote/sshtest"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// A container stack on the server host app1, serving h2 over TLS, the
// database here, the load from here: app1's agent builds the image there from the synced
// Dockerfile (app1's own daemon: a dockerd in its network namespace,
// which its login environment names, as a real host's default daemon is
// its own), runs the container on app1's network with the run's
// certificate and the database's CA mounted, and samples its cgroup
// as the server; the container is gone from app1 once the run ends. (The
// namespaces share this machine's dockerd otherwise, whose --network
// host is the root network namespace, not app1's.)
func TestContainerStackOnTheServerHost(t *testing.T) {
	// Beside the other parallel tests: no generator host, and nothing
	// asserted that a busy host changes (see "Parallel tests" in
	// main_test.go).
	t.Parallel()
	docker := dockertest.Require(t)
	daemonDir := t.TempDir()
	sock := filepath.Join(daemonDir, "docker.sock")
	n := runtest.OnHostsWith(t, stackbenchBin, sshtest.Options{Env: map[string][]string{"app1": {"DOCKER_HOST=unix://" + sock}}}, []string{"app1"}, "ctrbox")
	app1 := dockerdIn(t, docker, n.Host("app1").NS, daemonDir, sock)

	dir := dockertest.StaticContext(t, refServerDir)
	runtest.ForgetSynced(t, dir)
	// plan's name for the image stack ctrbox builds, here (for the
	// parity gate) and on app1.
	const image = "stackbench-ctrbox"
	t.Cleanup(func() { exec.Command(docker, "rmi", "--force", image).Run() })
	path := writeFile(t, runtest.SaasFile(runtest.HostsSection(n, "app1")+"roles:\n  server: app1\nprofile: quick\n", `  cases: [user]
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 1s
  rounds: 1
`, "stacks:\n  - {name: ctrbox, dir: "+dir+", container: {build: Dockerfile, runtime: docker}, protocol: h2}\n"))
	opt := hostsRun(t, n, path)
	if err := RemoteSupported(opt.File, opt.Plan); err != nil {
		t.Fatalf("RemoteSupported: %v; a container stack runs on the server host", err)
	}
	log := opt.Log.(*strings.Builder)
	t0 := time.Now()
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("run: %s", time.Since(t0).Round(time.Millisecond))
	if !strings.Contains(log.String(), "ctrbox: image "+image+" built on app1 with docker") {
		t.Errorf("the run log does not say the image was built on app1")
	}
	if out, err := app1("image", "inspect", "--format", "{{.Id}}", image); err != nil {
		t.Errorf("image %s is not in app1's daemon: %v: %s", image, err, out)
	}
	if out, err := app1("ps", "--all", "--quiet", "--filter", "label=dev.stackbench.run"); err != nil || out != "" {
		t.Errorf("app1's containers after the run: %q, %v; want none left", out, err)
	}
	pids, _ := os.ReadFile(filepath.Join(opt.Dir, serversFile))
	if !regexp.MustCompile(`(?m)^container docker stackbench-ctrbox\.1-\d+ app1$`).Match(pids) {
		t.Errorf("%s:\n%s\nwant the container on app1 named, for a resume", serversFile, pids)
	}
	removedOnResume(t, opt, app1, image)
	byKey, _ := runtest.Finals(t, opt.Dir)
	if len(byKey) != 1 {
		t.Fatalf("%d final windows; want 1", len(byKey))
	}
	for k, w := range byKey {
		if l := w.Load; l == nil || l.Successes == 0 || l.ErrorCount() != 0 || l.TLS == nil || l.Protocol != "h2" {
			t.Fatalf("%s: load %+v (reasons %v); want successes only, h2 over TLS (the certificate the agent wrote, mounted in the container)", k, l, w.Reasons)
		}
		// The server's CPU is its container's cgroup on app1: docker
		// run, the tree the agent started, idles in the foreground.
		if w.ServerHost != "app1" || w.Server.CPUSeconds < 0.02 || w.Server.RSSPeakBytes <= 0 {
			t.Errorf("%s: server on %q, %+v; want the container measured on app1", k, w.ServerHost, w.Server)
		}
		t.Logf("%s: %d successes over %.2fs; the container on app1 %.3f CPU-s (%.2f cores), RSS peak %d B; app1 busy %.2f cores, foreign %.2f; the database here %.3f CPU-s",
			k, w.Load.Successes, w.WallSeconds, w.Server.CPUSeconds, w.Server.Cores, w.Server.RSSPeakBytes, w.HostBusyCores, w.ForeignCores, w.Database.CPUSeconds)
	}
}

// removedOnResume: a container an agent on app1 left (it was killed, and
// its session could not stop it) is removed through app1's agent when a
// resume opens its session, as servers.pids names it; a line naming a
// container no stack of the file starts is left alone.
func removedOnResume(t *testing.T, opt Options, app1 func(args ...string) (string, error), image string) {
	t.Helper()
	const left, foreign = "stackbench-ctrbox.7-1", "stackbench-other.1-1"
	for _, name := range []string{left, foreign} {
		if out, err := app1("create", "--name", name, "--network", "host", image); err != nil {
			t.Fatalf("create %s on app1: %v: %s", name, err, out)
		}
	}
	t.Cleanup(func() { app1("rm", "--force", foreign) })
	dir := t.TempDir()
	l := leftovers{dir: dir, stacks: opt.Plan.Stacks, event: func(_ journal.Level, _, format string, a ...any) { t.Logf("event: "+format, a...) }}
	l.rememberContainerOn("app1", "docker", left)
	l.rememberContainerOn("app1", "docker", foreign)
	l.stop() // the resume's first step keeps the lines of hosts
	fl := newFleet(opt.File, opt.Remote, t.Logf)
	if err := fl.open(context.Background(), []string{"app1"}); err != nil {
		t.Fatal(err)
	}
	defer fl.close()
	l.stopOnHosts(context.Background(), fl)
	if out, _ := app1("ps", "--all", "--quiet", "--filter", "name=^"+left+"$"); out != "" {
		t.Errorf("container %s is still on app1 after the resume's step", left)
	}
	if out, _ := app1("ps", "--all", "--quiet", "--filter", "name=^"+foreign+"$"); out == "" {
		t.Errorf("container %s, of no stack of the file, was removed", foreign)
	}
	if _, err := os.Stat(filepath.Join(dir, serversFile)); !os.IsNotExist(err) {
		t.Errorf("%s is still there after the hosts' leftovers were removed: %v", serversFile, err)
	}
}

// dockerdIn starts a dockerd in the network namespace ns, its state under
// dir and its API on sock, and stops it at the end. Only the network
// namespace is entered (ip netns exec would mount a fresh sysfs, where
// dockerd finds no cgroups). It returns the docker command against it.
func dockerdIn(t *testing.T, docker, ns, dir, sock string) func(args ...string) (string, error) {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, "dockerd.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("nsenter", "--net=/run/netns/"+ns, "dockerd", "--data-root", filepath.Join(dir, "data"), "--exec-root", filepath.Join(dir, "exec"),
		"--pidfile", filepath.Join(dir, "dockerd.pid"), "-H", "unix://"+sock, "--bridge=none", "--iptables=false", "--ip6tables=false")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dockerd in %s: %v", ns, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		log.Close()
		unmountUnder(dir)
	})
	run := func(args ...string) (string, error) {
		out, err := exec.Command(docker, append([]string{"--host", "unix://" + sock}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if _, err := run("info"); err == nil {
			return run
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(log.Name())
			t.Fatalf("dockerd in %s exited: %s", ns, b)
		default:
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(log.Name())
			t.Fatalf("dockerd in %s did not answer within 30 s: %s", ns, b)
		}
	}
}

// unmountUnder detaches what a daemon left mounted under dir (dockerd
// keeps its network namespace's file mounted in its exec root).
func unmountUnder(dir string) {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return
	}
	lines := strings.Split(string(b), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if f := strings.Fields(lines[i]); len(f) > 1 && strings.HasPrefix(f[1], dir+"/") {
			syscall.Unmount(f[1], syscall.MNT_DETACH)
		}
	}
}
