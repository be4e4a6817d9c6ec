package stack

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// A container stack with tls: on gets the run's certificate and key
// mounted read-only at the paths TLS_CERT_FILE and TLS_KEY_FILE name, and
// answers its health check over TLS trusting the run's authority (an
// image FROM scratch holding bench/load/server, which serves TLS when
// those variables are set). CI (CI=true; .ci/run starts dockerd) fails
// instead of skipping.
func TestContainerStackServesTLS(t *testing.T) {
	docker, err := exec.LookPath("docker")
	if err == nil {
		err = exec.Command(docker, "info").Run()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("docker is needed here: %v", err)
		}
		t.Skipf("no docker daemon (apt-get install docker.io; dockerd &): %v", err)
	}
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "server"), "../../bench/load/server")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the server: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM scratch\nCOPY server /server\nENTRYPOINT [\"/server\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	image := "stackbench-test-tls:" + strconv.Itoa(os.Getpid())
	if out, err := exec.Command(docker, "build", "--quiet", "--tag", image, dir).CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(docker, "rmi", "--force", image).Run() })

	s := plan.Stack{Name: "tls-box", Dir: t.TempDir(), Start: "-addr 127.0.0.1:$PORT", Health: "/",
		Container: &plan.Container{Image: image, Runtime: docker}, Wire: plan.Wire{TLS: true}}
	logDir := t.TempDir()
	p, err := Start(context.Background(), s, Harness{Workload: "load"}, logDir)
	if err != nil {
		t.Fatalf("a container stack with tls: on did not answer over TLS: %v", err)
	}
	defer p.Stop(StopGrace)
	log, _ := os.ReadFile(filepath.Join(logDir, "tls-box.log"))
	if strings.Contains(string(log), "no such file") {
		t.Errorf("the server did not find its certificate: %s", log)
	}
}
