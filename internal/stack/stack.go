// Package stack is how the harness builds and starts a stack of a
// comparison file: the environment it gives every stack, its build command
// and its start through the supervisor (its version is captured by
// host.CaptureStackVersion). Every command that runs
// stacks (run, parity, boot, pgo) goes through it, so a stack sees the same
// thing whichever command starts it.
package stack

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/cpuset"
	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/netutil"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/platform/local"
	"github.com/stackbench/stackbench/internal/proc"
)

// Defaults for starting and stopping a stack.
const (
	// BootTimeout bounds spawn → first 200 on the health path of a stack
	// without a boot_timeout of its own.
	BootTimeout = 60 * time.Second
	// StopGrace is how long a stack gets after SIGTERM before SIGKILL.
	StopGrace = 5 * time.Second
)

// Harness is what the harness passes every stack.
type Harness struct {
	// Workload is passed as STACKBENCH_WORKLOAD.
	Workload string
	// JWTSecret is passed as JWT_SECRET.
	JWTSecret string
	// DatabaseURL is passed as DATABASE_URL when not empty.
	DatabaseURL string
	// CPUs is the servers' lane under placement: lanes (every process a
	// stack starts inherits it); empty for shared.
	CPUs cpuset.Set
	// Host, when set, is passed as HOST (first: a stack's own env entry
	// wins): the address to listen on when other hosts load the server.
	Host string
	// Spawned, when set, is called as soon as the stack's command is
	// spawned, before its health poll (proc.Spec.Spawned).
	Spawned func(pid int, mark string)
}

// Env is the environment a stack gets on top of the harness's own: HOST
// when the harness gives one, PORT, JWT_SECRET, NODE_ENV=production,
// STACKBENCH_WORKLOAD, DATABASE_URL (on the tfb workload and a workload of
// the file's own also as PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, for
// an app that takes its connection in parts), then the stack's own env entries in file order (which win). A stack with a
// protocol: other than http1 gets it in STACKBENCH_PROTOCOL; one with
// tls: on gets its certificate's and key's paths in TLS_CERT_FILE and
// TLS_KEY_FILE (Start passes tls, the run's throwaway certificate).
func Env(s plan.Stack, port int, h Harness) []string {
	return envWith(s, port, h, nil)
}

func envWith(s plan.Stack, port int, h Harness, tls *load.ThrowawayCA) []string {
	var env []string
	if h.Host != "" {
		env = append(env, "HOST="+h.Host)
	}
	env = append(env,
		fmt.Sprintf("PORT=%d", port),
		"JWT_SECRET="+h.JWTSecret,
		"NODE_ENV=production",
		"STACKBENCH_WORKLOAD="+h.Workload,
	)
	if h.DatabaseURL != "" {
		env = append(env, "DATABASE_URL="+h.DatabaseURL)
		if h.Workload != "saas-slice" && h.Workload != "micro" {
			env = append(env, libpqEnv(h.DatabaseURL)...)
		}
	}
	if s.Wire.Protocol != "" {
		env = append(env, plan.ProtocolEnv+"="+s.Wire.Protocol)
	}
	if tls != nil {
		env = append(env, plan.TLSCertEnv+"="+tls.CertFile, plan.TLSKeyEnv+"="+tls.KeyFile)
	}
	return append(env, OwnEnv(s)...)
}

// Build runs the stack's build command (if any) in its directory, output
// appended to logPath. The error quotes the end of the log and says what to
// do.
func Build(ctx context.Context, s plan.Stack, logPath string) error {
	if s.Build == "" {
		if s.Container != nil && s.Container.Build != "" {
			os.Remove(logPath)
			return BuildImage(ctx, s, logPath)
		}
		return nil
	}
	// A fresh log per build, so that a failure quotes this build's output
	// and not the end of an earlier one (a resumed run builds again).
	os.Remove(logPath)
	if err := Shell(ctx, s.Dir, s.Build, logPath, nil); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("build stack %q (%s, in %s): %v\n%s\nfix the build, or run it by hand in that directory to see why",
			s.Name, s.Build, s.Dir, err, fileutil.Tail(logPath, 0))
	}
	if s.Container != nil && s.Container.Build != "" {
		return BuildImage(ctx, s, logPath)
	}
	return nil
}

// Shell runs command with /bin/sh -c in dir, output appended to logPath and
// env added to the harness's environment. Cancelling ctx kills its whole
// process group, and so does the harness's death.
func Shell(ctx context.Context, dir, command, logPath string, env []string) error {
	out, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, out
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	local.Group(cmd)
	local.CancelGroup(cmd)
	return local.Run(cmd)
}

// Start starts a fresh process of the stack on a free loopback port, its
// output appended to logDir/<name>.log, and waits for the first 200 on its
// health path.
func Start(ctx context.Context, s plan.Stack, h Harness, logDir string) (*proc.Process, error) {
	port, err := netutil.FreePort()
	if err != nil {
		return nil, fmt.Errorf("find a free port for %s: %w", s.Name, err)
	}
	var tls *load.ThrowawayCA
	var caPEM []byte
	if s.Wire.TLS {
		files, err := TLSFiles(logDir)
		if err != nil {
			return nil, fmt.Errorf("stack %s has tls: on: %w", s.Name, err)
		}
		if caPEM, err = os.ReadFile(files.CAFile); err != nil {
			return nil, err
		}
		tls = &files
	}
	spec := proc.Spec{
		Name:           s.Name,
		Dir:            s.Dir,
		Command:        s.Start,
		Env:            envWith(s, port, h, tls),
		Port:           port,
		HealthPath:     s.Health,
		HealthProtocol: s.Wire.Protocol,
		HealthCA:       caPEM,
		LogPath:        filepath.Join(logDir, s.Name+".log"),
		BootTimeout:    BootTimeoutOf(s),
		CPUs:           h.CPUs,
		Spawned:        h.Spawned,
	}
	if s.Container != nil {
		if spec.Command, spec.Container, err = containerCommand(s, spec.Env); err != nil {
			return nil, err
		}
	}
	return proc.Start(ctx, spec)
}

// TLSFiles returns the run's throwaway certificate authority and the
// stacks' certificate, written under logDir/tls the first time this
// process asks (every stack with tls: on serves that certificate, and
// the load generator trusts that authority only). The certificate is for
// loopback's addresses, and for those a run across hosts gave TLSFilesFor
// first. A new invocation (a resumed run) makes new ones: its servers are
// fresh processes.
func TLSFiles(logDir string) (load.ThrowawayCA, error) { return TLSFilesFor(logDir) }

// TLSFilesFor is TLSFiles with a certificate valid for hosts too (the
// address in hosts: of a server host, which the generators dial): call it
// before anything else asks for logDir's files, as a run across hosts
// does when it opens its sessions.
func TLSFilesFor(logDir string, hosts ...string) (load.ThrowawayCA, error) {
	tlsMu.Lock()
	defer tlsMu.Unlock()
	dir := filepath.Join(logDir, "tls")
	if made, ok := tlsMade[dir]; ok {
		for _, h := range hosts {
			if !slices.Contains(made.hosts, h) {
				return load.ThrowawayCA{}, fmt.Errorf("the run's certificate was made for %s before the server host %s was known", strings.Join(made.hosts, ", "), h)
			}
		}
		return made.ca, nil
	}
	// The folder of logs may be new (a command other than run); its tls
	// folder is never a link (a results directory is data).
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return load.ThrowawayCA{}, fmt.Errorf("the throwaway certificate's directory: %w", err)
	}
	if err := fileutil.MkdirIn(logDir, "tls", 0o700); err != nil {
		return load.ThrowawayCA{}, fmt.Errorf("the throwaway certificate's directory: %w", err)
	}
	all := append(loopbackHosts(), hosts...)
	ca, err := load.WriteThrowawayCA(dir, all...)
	if err != nil {
		return load.ThrowawayCA{}, fmt.Errorf("make the throwaway certificate: %w", err)
	}
	if tlsMade == nil {
		tlsMade = map[string]madeTLS{}
	}
	tlsMade[dir] = madeTLS{ca: ca, hosts: all}
	return ca, nil
}

// RemoveTLSKey removes the key of the run's throwaway certificate under
// logDir, once the servers that serve it are stopped, and forgets the
// files: a later TLSFiles of logDir makes new ones. The certificates
// stay (the report may name them; they are 0600 in a private folder);
// the key, which anyone holding it could serve as the run's servers
// with, does not outlive the run.
func RemoveTLSKey(logDir string) error {
	tlsMu.Lock()
	defer tlsMu.Unlock()
	dir := filepath.Join(logDir, "tls")
	made, ok := tlsMade[dir]
	if !ok {
		return nil
	}
	delete(tlsMade, dir)
	if err := os.Remove(made.ca.KeyFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the throwaway certificate's key: %w", err)
	}
	return nil
}

// loopbackHosts are the names the run's certificate is always valid for.
func loopbackHosts() []string { return []string{"127.0.0.1", "::1", "localhost"} }

// madeTLS is a run's certificate files and the hosts it is valid for.
type madeTLS struct {
	ca    load.ThrowawayCA
	hosts []string
}

var (
	tlsMu   sync.Mutex
	tlsMade map[string]madeTLS
)

// BootTimeoutOf is the stack's boot_timeout, or BootTimeout when it sets none.
func BootTimeoutOf(s plan.Stack) time.Duration {
	if s.BootTimeout > 0 {
		return s.BootTimeout
	}
	return BootTimeout
}

// LongestBootTimeout is the longest boot timeout of the stacks, for an
// engine that takes one for all (the boot suite).
func LongestBootTimeout(stacks []plan.Stack) time.Duration {
	longest := BootTimeout
	for _, s := range stacks {
		longest = max(longest, BootTimeoutOf(s))
	}
	return longest
}
