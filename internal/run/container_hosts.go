package run

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/remote"
	"github.com/stackbench/stackbench/internal/stack"
)

// remoteImage readies a container stack's image on the server host, once
// per stack and invocation, after its dir was synchronised there: built
// there from its Dockerfile (the build here made this machine's image
// only), or found there. It returns the container the agent runs the
// stack in; nil for a native stack.
func (h *hostsSite) remoteImage(ctx context.Context, s *remote.Session, host, dir string, st plan.Stack) (*agent.ContainerSpec, error) {
	c := st.Container
	if c == nil {
		return nil, nil
	}
	if runtime, ok := h.images[st.Name]; ok {
		return &agent.ContainerSpec{Runtime: runtime, Image: c.Image}, nil
	}
	build, err := dockerfileThere(st)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	runtime, err := s.Agent.Image(ctx, agent.ImageSpec{Stack: st.Name, Dir: dir, Runtime: c.Runtime, Image: c.Image, Build: build,
		Env: stack.OwnEnv(st), LogPath: st.Name + ".build"})
	if err != nil {
		if c.Build != "" {
			return nil, fmt.Errorf("build the image of %s on %s: %w (the build's log on that host: %s.build.log under ~/.cache/stackbench/logs)", st.Name, host, err, st.Name)
		}
		return nil, fmt.Errorf("the image of %s on %s: %w", st.Name, host, err)
	}
	if c.Build != "" {
		h.r.progress.logf("%s: image %s built on %s with %s in %s", st.Name, c.Image, host, runtime, time.Since(t0).Round(time.Millisecond))
	}
	if h.images == nil {
		h.images = map[string]string{}
	}
	h.images[st.Name] = runtime
	return &agent.ContainerSpec{Runtime: runtime, Image: c.Image}, nil
}

// dockerfileThere is the stack's Dockerfile relative to its dir, where it
// is in the dir's copy on the server host; "" when the stack builds no
// image. One outside the dir is not synced, and is refused.
func dockerfileThere(st plan.Stack) (string, error) {
	if st.Container.Build == "" {
		return "", nil
	}
	rel, err := filepath.Rel(st.Dir, st.Container.Build)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("stack %s builds its image from %s, outside its dir %s, which alone is copied to the server host; move the Dockerfile into the dir", st.Name, st.Container.Build, st.Dir)
	}
	return rel, nil
}
