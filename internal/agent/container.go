package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/stack"
)

// A container stack on the agent's host: the image is built (or checked)
// here, where the stack's dir was synchronised, and the server runs under
// the runtime's daemons with the runtime's run command a local start
// uses (stack.ContainerCommand), so it is measured through its cgroup and
// the runtime apart, as a local window measures it (trap T21).

// imageTimeout bounds an image check; a build is bounded by the
// coordinator's context only (a first build may download a base image).
const imageTimeout = 30 * time.Second

// image builds spec's image when it names a Dockerfile, or checks that it
// is on this host, and returns the runtime found.
func image(ctx context.Context, spec *ImageSpec) (string, error) {
	if spec == nil || spec.Image == "" {
		return "", errors.New("agent: image names no image")
	}
	c := &plan.Container{Runtime: spec.Runtime, Image: spec.Image, Build: spec.Build}
	runtime, err := stack.Runtime(c)
	if err != nil {
		return "", fmt.Errorf("stack %s: %w", spec.Stack, err)
	}
	c.Runtime = runtime
	if spec.Build != "" {
		log, err := serverLogPath(spec.LogPath)
		if err != nil {
			return "", err
		}
		s := plan.Stack{Name: spec.Stack, Dir: spec.Dir, Container: c, Env: map[string]string{}}
		for _, kv := range spec.Env {
			k, v, _ := strings.Cut(kv, "=")
			s.Env[k] = v
			s.EnvOrder = append(s.EnvOrder, k)
		}
		return runtime, stack.BuildImage(ctx, s, log)
	}
	ctx, cancel := context.WithTimeout(ctx, imageTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, runtime, "image", "inspect", "--format", "{{.Id}}", spec.Image)
	cmd.Env = append(os.Environ(), spec.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("stack %s: image %s is not on this host (%s image inspect: %v: %s); pull or load it here, or give the stack container: {build: Dockerfile} to build it here",
			spec.Stack, spec.Image, runtime, err, strings.TrimSpace(string(out)))
	}
	return runtime, nil
}

// containerStart turns spec's Command into the runtime's run command of
// its container, with env (the start's whole environment, the
// certificate's paths included, whose directory is mounted), and names
// the runtime for proc.Start.
func containerStart(spec *StartSpec, env []string) (string, *proc.Container, error) {
	c := spec.Container
	if c.Image == "" {
		return "", nil, fmt.Errorf("agent: the container of %s names no image", spec.Name)
	}
	runtime, err := stack.Runtime(&plan.Container{Runtime: c.Runtime, Image: c.Image})
	if err != nil {
		return "", nil, fmt.Errorf("agent: start %s: %w", spec.Name, err)
	}
	return stack.ContainerCommand(runtime, c.Image, spec.Command, env), &proc.Container{Runtime: runtime}, nil
}

// runtimeGroups are, for a server in a container, the sampler groups of
// the runtime's command the agent started and of the runtime's daemons.
func runtimeGroups(p *proc.Process) []proc.Group {
	g, ok := p.RuntimeGroup(runtimeGroup)
	if !ok {
		return nil
	}
	return []proc.Group{g, proc.DaemonsGroup(daemonsGroup)}
}

// The names of the runtime's groups in a sample.
const (
	runtimeGroup = "container-runtime"
	daemonsGroup = "container-daemons"
)

// removeContainer removes a container a killed agent left on this host:
// one of a known runtime whose name says the agent started it.
func removeContainer(ctx context.Context, ref *ContainerRef) (bool, error) {
	if ref == nil {
		return false, errors.New("agent: remove_container names no container")
	}
	if !slices.Contains(plan.ContainerRuntimes, ref.Runtime) || !strings.HasPrefix(ref.Name, "stackbench-") {
		return false, fmt.Errorf("agent: remove_container takes a container of %s named stackbench-…, not %q of %q", strings.Join(plan.ContainerRuntimes, " or "), ref.Name, ref.Runtime)
	}
	return proc.RemoveContainer(ctx, &proc.Container{Runtime: ref.Runtime, Name: ref.Name, Env: ref.Env})
}
