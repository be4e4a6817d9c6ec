package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestContainerStacks(t *testing.T) {
	path := writeConfig(t, `stacks:
  - name: Native
    dir: apps/a
    start: ./server
  - name: Boxed
    dir: apps/b
    container: {build: Dockerfile, runtime: podman}
  - name: pulled
    dir: apps/b
    container: {image: "my-api:1.0"}
    start: -addr 127.0.0.1:8080
`)
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "apps", "b", "Dockerfile"), []byte("FROM scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if f.Stacks[0].Container != nil {
		t.Errorf("native stack has a container: %+v", f.Stacks[0].Container)
	}
	boxed := f.Stacks[1].Container
	if boxed == nil || boxed.Image != "stackbench-boxed" || boxed.Runtime != "podman" || boxed.Build != filepath.Join(filepath.Dir(path), "apps", "b", "Dockerfile") {
		t.Errorf("built container: %+v", boxed)
	}
	if c := f.Stacks[2].Container; c == nil || c.Image != "my-api:1.0" || c.Build != "" || f.Stacks[2].Start != "-addr 127.0.0.1:8080" {
		t.Errorf("image container: %+v, start %q", c, f.Stacks[2].Start)
	}
	if len(f.Warnings) != 0 {
		t.Errorf("warnings: %v", f.Warnings)
	}
}

func TestContainerProblems(t *testing.T) {
	for _, tc := range []struct{ stack, want string }{
		{"container: {image: a:1, build: Dockerfile}", "container takes image: or build:, not both"},
		{"container: {}", "container needs image: or build:"},
		{"container: {build: Nope}", "container build \"Nope\": no Dockerfile at"},
		{"container: {image: \"My Image\"}", "container image \"My Image\" is not an image name"},
		{"container: {image: a, runtime: lxc}", "container runtime \"lxc\" is not known; write runtime: docker or runtime: podman"},
		{"container: {image: a, tag: b}", "tag"},
	} {
		problems := strings.Join(loadProblems(t, "stacks:\n  - name: a\n    dir: apps/a\n    "+tc.stack+"\n"), "\n")
		if !strings.Contains(problems, tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.stack, problems, tc.want)
		}
	}
}

// A start: that runs a container itself is valid but unmeasurable: the
// plan warns and points to container:.
func TestDockerRunStartWarns(t *testing.T) {
	for start, warns := range map[string]bool{
		"docker run --rm --network host my-api": true,
		"exec podman run my-api":                true,
		"/usr/bin/docker run my-api":            true,
		"./server":                              false,
		"docker compose up":                     false,
		"go run .":                              false,
	} {
		f, err := LoadEnv(writeConfig(t, "stacks:\n  - name: a\n    dir: apps/a\n    start: "+start+"\n"), noEnv)
		if err != nil {
			t.Fatal(err)
		}
		got := len(f.Warnings) == 1 && f.Warnings[0].Line == 2 && strings.Contains(f.Warnings[0].Msg, "write container: {image: NAME}")
		if got != warns || (!warns && len(f.Warnings) != 0) {
			t.Errorf("start %q: warnings %v, want a warning: %v", start, f.Warnings, warns)
		}
	}
}

// The container is part of the fingerprint: another image cannot resume
// this plan's journal.
func TestContainerInFingerprint(t *testing.T) {
	stacks := "stacks:\n  - name: a\n    dir: apps/a\n    container: {image: \"my-api:%s\"}\n"
	one := resolve(t, strings.Replace(stacks, "%s", "1", 1), Overrides{}).Fingerprint
	two := resolve(t, strings.Replace(stacks, "%s", "2", 1), Overrides{}).Fingerprint
	if one == two {
		t.Errorf("images 1 and 2 share the fingerprint %s", one)
	}
}
