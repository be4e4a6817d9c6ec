package agent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/dockertest"
)

// A container stack on the agent's host: the agent builds its image from
// the Dockerfile in the stack's dir, refuses an image the host lacks
// naming it, starts the server in a container, and samples the
// container's cgroup as the server (the CPU the server spends under load,
// which the runtime's command it started, idle, does not), the runtime's
// command and daemons apart; stop removes the container, and so does the
// end of the session for one still running.
func TestContainerStartSampleAndStop(t *testing.T) {
	docker := dockertest.Require(t)
	dir := dockertest.StaticContext(t, "../../bench/load/server")
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the logs go there
	image := "stackbench-agent-test:" + strconv.Itoa(os.Getpid())
	t.Cleanup(func() { exec.Command(docker, "rmi", "--force", image).Run() })
	t0 := time.Now()
	runtime, err := s.client.Image(ctx, ImageSpec{Stack: "box", Dir: dir, Runtime: docker, Image: image, Build: "Dockerfile", LogPath: "box.build"})
	if err != nil || runtime != docker {
		t.Fatalf("image build = %q, %v; want it built with %s", runtime, err, docker)
	}
	t.Logf("image built by the agent in %s", time.Since(t0).Round(time.Millisecond))
	missing := "stackbench-agent-test-missing:" + strconv.Itoa(os.Getpid())
	if _, err := s.client.Image(ctx, ImageSpec{Stack: "box", Dir: dir, Image: missing}); err == nil ||
		!strings.Contains(err.Error(), "image "+missing+" is not on this host") || !strings.Contains(err.Error(), "pipe:") {
		t.Fatalf("a missing image = %v; want it named, on the agent's host", err)
	}

	start := func(name string) (port int, container string) {
		t.Helper()
		port, err := s.client.FreePort(ctx)
		if err != nil {
			t.Fatal(err)
		}
		spec := StartSpec{Name: name, Dir: dir, Command: "-addr 127.0.0.1:$PORT -work 2000", Env: []string{"PORT=" + strconv.Itoa(port)},
			Port: port, HealthPath: "/", LogPath: name, BootTimeout: time.Minute, Container: &ContainerSpec{Runtime: docker, Image: image}}
		t0 := time.Now()
		if _, _, err := s.client.Start(ctx, spec); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s started in a container in %s", name, time.Since(t0).Round(time.Millisecond))
		return port, fmt.Sprintf("stackbench-%s-%d", name, port)
	}
	port, box := start("box.1")
	if !containerExists(t, docker, box) {
		t.Fatalf("no container %s runs after the start", box)
	}

	// Load for the whole sample, at a rate this busy 2-core host serves
	// well: the server's CPU is the container's, hashing.
	from := time.Now().Add(300 * time.Millisecond)
	to := from.Add(time.Second)
	loaded := loadUntil(t, port, to.Add(100*time.Millisecond), 4)
	smp, err := s.client.Sample(ctx, "box.1", from, to)
	requests := loaded()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sample over %s, %d requests: server (the cgroup) %.3f CPU-s, %.2f cores, RSS peak %d B; runtime (its command and daemons) %+v; host busy %.2f cores",
		smp.Wall.Round(time.Millisecond), requests, smp.CPUSeconds, smp.Cores, smp.RSSPeakBytes, smp.Runtime, smp.HostBusyCores)
	if requests == 0 || smp.CPUSeconds < 0.05 || smp.RSSPeakBytes <= 0 {
		t.Errorf("server %.3f CPU-s, RSS peak %d B after %d requests; want the container's hashing measured through its cgroup", smp.CPUSeconds, smp.RSSPeakBytes, requests)
	}
	// The runtime's command (docker run, idle in the foreground) and the
	// daemons are sampled apart: a few processes at least, and their CPU
	// far under the server's hashing.
	if r := smp.Runtime; r == nil || r.Processes < 2 || r.CPUSeconds >= smp.CPUSeconds {
		t.Errorf("runtime %+v; want docker run and the daemons apart, under the server's %.3f CPU-s", r, smp.CPUSeconds)
	}
	if err := s.client.Stop(ctx, "box.1"); err != nil {
		t.Fatal(err)
	}
	if containerExists(t, docker, box) {
		t.Errorf("container %s is still there after stop", box)
	}

	// One that a killed agent left is removed when a resume asks; the
	// agent touches only the containers it names.
	const abandoned = "stackbench-box.9-1"
	if out, err := exec.Command(docker, "create", "--name", abandoned, image).CombinedOutput(); err != nil {
		t.Fatalf("docker create: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command(docker, "rm", "--force", abandoned).Run() })
	if removed, err := s.client.RemoveContainer(ctx, ContainerRef{Runtime: "docker", Name: abandoned}); !removed || err != nil || containerExists(t, docker, abandoned) {
		t.Errorf("remove %s = %v, %v; want it removed", abandoned, removed, err)
	}
	if removed, err := s.client.RemoveContainer(ctx, ContainerRef{Runtime: "docker", Name: abandoned}); removed || err != nil {
		t.Errorf("remove %s again = %v, %v; want nothing removed, and no error", abandoned, removed, err)
	}
	if _, err := s.client.RemoveContainer(ctx, ContainerRef{Runtime: "docker", Name: "postgres"}); err == nil || !strings.Contains(err.Error(), "named stackbench-") {
		t.Errorf("remove postgres = %v; want it refused", err)
	}

	// One still running when the session ends is removed with it.
	_, left := start("box.2")
	s.stdin.Close()
	if err := <-s.served; err != nil {
		t.Fatalf("Serve after stdin closed = %v", err)
	}
	s.served <- nil // for the cleanup
	if containerExists(t, docker, left) {
		t.Errorf("container %s is still there after the session ended", left)
	}
}

// containerExists reports whether docker knows a container of that name.
func containerExists(t *testing.T, docker, name string) bool {
	t.Helper()
	out, err := exec.Command(docker, "ps", "--all", "--quiet", "--filter", "name=^"+name+"$").CombinedOutput()
	if err != nil {
		t.Fatalf("docker ps: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out)) != ""
}

// loadUntil sends requests to 127.0.0.1:port on conns connections until
// end; the function it returns waits for them and counts the answers.
func loadUntil(t *testing.T, port int, end time.Time, conns int) func() int64 {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var n int64
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	for range conns {
		wg.Go(func() {
			for time.Now().Before(end) {
				resp, err := http.Get(url)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					mu.Lock()
					n++
					mu.Unlock()
				}
			}
		})
	}
	return func() int64 { wg.Wait(); return n }
}
