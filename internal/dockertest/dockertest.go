// Package dockertest gives tests a container runtime and images, FROM
// scratch, of this module's servers (no registry needed).
package dockertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Require returns the docker command, or ends the test saying exactly why
// the runtime cannot be used here. CI (CI=true: .ci/run installs
// docker.io and starts dockerd) fails instead of skipping.
func Require(t testing.TB) string {
	t.Helper()
	why := ""
	docker, err := exec.LookPath("docker")
	if err != nil {
		why = "no docker on PATH (Debian: apt-get install docker.io)"
	} else if out, err := exec.Command(docker, "info", "--format", "{{.ServerVersion}} {{.CgroupVersion}}").CombinedOutput(); err != nil {
		why = fmt.Sprintf("docker info failed, so the daemon is not running or not reachable (start it: dockerd &): %v: %s", err, strings.TrimSpace(string(out)))
	} else {
		t.Logf("docker server and cgroup version: %s", strings.TrimSpace(string(out)))
		return docker
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

// StaticImage builds the main package in dir statically (CGO_ENABLED=0)
// into an image FROM scratch whose entry point it is, tagged
// name:<this process's pid> and removed at the end; it returns the image
// and the binary.
func StaticImage(t testing.TB, docker, dir, name string) (image, binary string) {
	t.Helper()
	out := StaticContext(t, dir)
	image = name + ":" + strconv.Itoa(os.Getpid())
	if b, err := exec.Command(docker, "build", "--quiet", "--tag", image, out).CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, b)
	}
	t.Cleanup(func() { exec.Command(docker, "rmi", "--force", image).Run() })
	return image, filepath.Join(out, "server")
}

// StaticContext is a new directory holding the main package in dir built
// statically (CGO_ENABLED=0) as "server", and a Dockerfile building an
// image FROM scratch whose entry point it is: a build context, or a
// container stack's dir with container: {build: Dockerfile}.
func StaticContext(t testing.TB, dir string) string {
	t.Helper()
	out := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(out, "server"), ".")
	build.Dir, build.Env = dir, append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", dir, err, b)
	}
	if err := os.WriteFile(filepath.Join(out, "Dockerfile"), []byte("FROM scratch\nCOPY server /server\nENTRYPOINT [\"/server\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
