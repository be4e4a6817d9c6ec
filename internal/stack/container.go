package stack

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
)

// Runtime returns the container runtime of c: the one it names, else the
// first of docker and podman on PATH. The error says what to install.
func Runtime(c *plan.Container) (string, error) {
	if c.Runtime != "" {
		if _, err := exec.LookPath(c.Runtime); err != nil {
			return "", fmt.Errorf("container runtime %s is not on PATH; install it (Debian: apt-get install %s) or write another runtime:", c.Runtime, debianPackage(c.Runtime))
		}
		return c.Runtime, nil
	}
	for _, r := range plan.ContainerRuntimes {
		if _, err := exec.LookPath(r); err == nil {
			return r, nil
		}
	}
	return "", errors.New("a stack runs in a container, and neither docker nor podman is on PATH; install one (Debian: apt-get install docker.io, then start dockerd; or apt-get install podman)")
}

func debianPackage(runtime string) string {
	if runtime == "docker" {
		return "docker.io"
	}
	return runtime
}

// BuildImage builds a container stack's image from its Dockerfile in its
// dir, output appended to logPath, with the stack's env: added (a
// DOCKER_HOST there names the daemon that will run it). The server host's
// agent calls it for a stack there.
func BuildImage(ctx context.Context, s plan.Stack, logPath string) error {
	runtime, err := Runtime(s.Container)
	if err != nil {
		return fmt.Errorf("build stack %q: %w", s.Name, err)
	}
	c := s.Container
	cmd := shellQuote(runtime, "build", "--tag", c.Image, "--file", c.Build, filepath.Dir(c.Build))
	if err := Shell(ctx, s.Dir, cmd, logPath, OwnEnv(s)); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("build the image of stack %q (%s): %v\n%s\nfix the Dockerfile, or run the command by hand to see why",
			s.Name, cmd, err, fileutil.Tail(logPath, 0))
	}
	return nil
}

// OwnEnv is the stack's env: as KEY=VALUE entries, in its order.
func OwnEnv(s plan.Stack) []string {
	var env []string
	for _, k := range s.EnvOrder {
		env = append(env, k+"="+s.Env[k])
	}
	return env
}

// containerCommand turns a container stack's start into the runtime's run
// command (ContainerCommand) with the runtime found here.
func containerCommand(s plan.Stack, env []string) (string, *proc.Container, error) {
	runtime, err := Runtime(s.Container)
	if err != nil {
		return "", nil, fmt.Errorf("start stack %q: %w", s.Name, err)
	}
	return ContainerCommand(runtime, s.Container.Image, s.Start, env), &proc.Container{Runtime: runtime}, nil
}

// ContainerCommand is the runtime's run command of a container stack
// whose start: is args (the container's arguments, if any) in image: the
// container on the host's network (so PORT and a loopback DATABASE_URL
// mean what they mean to a native stack), the stack's whole environment
// env and PORT passed by name, named by proc.Start for each start
// (ContainerNameEnv), a run label for leftovers, removed when it stops.
// The files env names that the server must read (the certificate, the
// key, the database's CA) are mounted read-only at their paths.
func ContainerCommand(runtime, image, args string, env []string) string {
	cmd := quoteAll([]string{"exec", runtime, "run", "--rm", "--network", "host"})
	cmd = append(cmd, `--name "$`+proc.ContainerNameEnv+`"`,
		shellQuote("--label", proc.RunLabel+"="+strconv.Itoa(os.Getpid()), "--env", "PORT"))
	var mounts []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k != "PORT" {
			cmd = append(cmd, shellQuote("--env", k))
		}
		if (k == plan.TLSCertEnv || k == plan.TLSKeyEnv) && v != "" && !slices.Contains(mounts, filepath.Dir(v)) {
			// The run's certificate and key, at the same path inside
			// (tls: on), read-only.
			mounts = append(mounts, filepath.Dir(v))
		}
		if ca := rootCertOf(k, v); ca != "" && !slices.Contains(mounts, filepath.Dir(ca)) {
			// The CA that a database on its own host is verified
			// against (sslrootcert), at the same path inside.
			mounts = append(mounts, filepath.Dir(ca))
		}
	}
	for _, dir := range mounts {
		cmd = append(cmd, shellQuote("--volume", dir+":"+dir+":ro"))
	}
	cmd = append(cmd, shellQuote(image), args)
	return strings.TrimSpace(strings.Join(cmd, " "))
}

// rootCertOf is the sslrootcert file a DATABASE_URL entry names; "" for
// any other entry, or a URL without one.
func rootCertOf(k, v string) string {
	if k != "DATABASE_URL" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil {
		return ""
	}
	if ca := u.Query().Get("sslrootcert"); filepath.IsAbs(ca) {
		return ca
	}
	return ""
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return out
}

// shellQuote quotes each argument for /bin/sh where it needs it and joins
// them with spaces.
func shellQuote(args ...string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
