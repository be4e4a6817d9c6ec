package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/journal"
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
		h.p.progress.logf("%s: image %s built on %s with %s in %s", st.Name, c.Image, host, runtime, time.Since(t0).Round(time.Millisecond))
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

// rememberContainerOn records in serversFile a container the agent on
// host started ("container RUNTIME NAME HOST"): the agent removes it when
// its session ends, but an agent killed with SIGKILL leaves it running
// under the daemons there, for a resume to remove (stopOnHosts).
func (l leftovers) rememberContainerOn(host, runtime, name string) {
	l.note(fmt.Sprintf("%s %s %s %s", containerLine, runtime, name, host))
}

// stopOnHosts removes, through the hosts' agents, the containers on
// hosts that serversFile names (what stop left there for it), once the
// sessions are open, and forgets them. A line naming a container no
// stack of the file starts, or a host the run does not reach, is not
// acted on.
func (l leftovers) stopOnHosts(ctx context.Context, fl *fleet) {
	path := filepath.Join(l.dir, serversFile)
	b, err := l.readOwn() // stop removed it unless this user's own
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != containerLine {
			continue
		}
		runtime, name, host := f[1], f[2], f[3]
		st, ok := l.containerStack(runtime, name)
		s := fl.sessions[host]
		switch {
		case !ok:
			l.event(journal.LevelWarning, "", "%s names container %s of runtime %q on host %s, which no stack of this comparison file starts: not removed", serversFile, name, runtime, host)
		case s == nil:
			l.event(journal.LevelWarning, "", "%s names container %s on host %s, which this run does not reach: not removed; remove it there by hand (%s rm --force %s)", serversFile, name, host, runtime, name)
		default:
			removed, err := s.Agent.RemoveContainer(ctx, agent.ContainerRef{Runtime: runtime, Name: name, Env: stack.OwnEnv(st)})
			switch {
			case err != nil:
				l.event(journal.LevelWarning, "", "remove container %s on host %s, left by the stopped run: %v", name, host, err)
			case removed:
				l.event(journal.LevelWarning, "", "removed container %s on host %s, left running by the stopped run", name, host)
			}
		}
	}
	os.Remove(path)
}
