package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Container says that a stack runs in a container (the container: key):
// stackbench builds the image (Build) or uses one (Image), runs it with the
// stack's port and environment on the host's network, and measures the
// container's cgroup (docs/containers.md).
type Container struct {
	// Image is the image to run; for Build, the image stackbench tags
	// ("stackbench-<stack>").
	Image string `json:"image"`
	// Build is the Dockerfile to build the image from, absolute; its
	// directory is the build context.
	Build string `json:"build,omitempty"`
	// Runtime is "docker" or "podman"; "" means whichever is installed
	// (docker first).
	Runtime string `json:"runtime,omitempty"`
}

var containerKeys = []string{"image", "build", "runtime"}

const containerExample = "container: {build: Dockerfile}"

// ContainerRuntimes are the container runtimes stackbench drives.
var ContainerRuntimes = []string{"docker", "podman"}

// imageName is what an image reference may look like (registry/name:tag).
var imageName = regexp.MustCompile(`^[a-z0-9][a-z0-9._/:@-]*$`)

// container reads a stack's container: key.
func (p *parser) container(n *yaml.Node, s *Stack) *Container {
	m, ok := p.fields(n, "container", containerKeys, containerExample)
	if !ok {
		return nil
	}
	c := &Container{}
	image, build := m.get("image"), m.get("build")
	switch {
	case image != nil && build != nil:
		p.addf(n, "container takes image: or build:, not both; write %s to build it, or container: {image: NAME} to run an image you built", containerExample)
		return nil
	case image != nil:
		if v, ok := p.str(image, "container image", "image: my-api:1.0"); ok {
			if !imageName.MatchString(v) {
				p.addf(image, "container image %q is not an image name; write e.g. image: my-api:1.0", v)
			}
			c.Image = v
		}
	case build != nil:
		if v, ok := p.str(build, "container build", "build: Dockerfile"); ok && s.Dir != "" {
			path := v
			if !filepath.IsAbs(path) {
				path = filepath.Join(s.Dir, v)
			}
			if st, err := os.Stat(path); err != nil || st.IsDir() {
				p.addf(build, "container build %q: no Dockerfile at %s; write the Dockerfile's path relative to the stack's dir", v, path)
			}
			c.Build = path
			c.Image = "stackbench-" + strings.ToLower(s.Name)
		}
	default:
		p.addf(n, "container needs image: or build:; write %s, or container: {image: NAME}", containerExample)
		return nil
	}
	if v := m.get("runtime"); v != nil {
		if r, ok := p.str(v, "container runtime", "runtime: docker"); ok {
			if r != "docker" && r != "podman" {
				p.addf(v, "container runtime %q is not known; write runtime: docker or runtime: podman", r)
			}
			c.Runtime = r
		}
	}
	return c
}

// containerStartWarning is the warning for a start command that runs a
// container itself, which stackbench cannot measure; "" otherwise.
func containerStartWarning(s Stack) string {
	f := strings.Fields(s.Start)
	if len(f) > 0 && f[0] == "exec" {
		f = f[1:]
	}
	if len(f) < 2 || f[1] != "run" || (filepath.Base(f[0]) != "docker" && filepath.Base(f[0]) != "podman") {
		return ""
	}
	return fmt.Sprintf("stack %q starts a container with %s run: its server then runs under the runtime's daemons, outside stackbench's process tree, so its CPU and memory go unmeasured and its CPU counts as foreign; write container: {image: NAME} (or {build: Dockerfile}) instead and leave the arguments in start:", s.Name, f[0])
}
