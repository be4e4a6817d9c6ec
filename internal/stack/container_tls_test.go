package stack

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/dockertest"
	"github.com/stackbench/stackbench/internal/plan"
)

// A container stack with tls: on gets the run's certificate and key
// mounted read-only at the paths TLS_CERT_FILE and TLS_KEY_FILE name, and
// answers its health check over TLS trusting the run's authority (an
// image FROM scratch holding bench/load/server, which serves TLS when
// those variables are set). CI (CI=true; .ci/run starts dockerd) fails
// instead of skipping.
func TestContainerStackServesTLS(t *testing.T) {
	docker := dockertest.Require(t)
	image, _ := dockertest.StaticImage(t, docker, "../../bench/load/server", "stackbench-test-tls")

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
