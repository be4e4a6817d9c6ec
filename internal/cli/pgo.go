package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/workload"
)

func init() {
	register(Command{Name: "pgo", Short: "collect a CPU profile of a Go stack under the workload, for profile-guided optimisation", Order: 80, Run: runPGO})
}

const pgoSynopsis = "[-f FILE] --stacks NAME [-d 30s] [-c 32] --out FILE"

// pgoProfileEnv is the variable that asks a stack for a CPU profile of its
// serving time, written when it stops on SIGTERM; the Go reference servers
// honour it (apps/internal/saas.CPUProfileEnv).
const pgoProfileEnv = "STACKBENCH_CPUPROFILE"

// pgoDatabase begins the name of the database the profiled stack uses: a
// fresh copy of the seeded template named stack.CopyName makes.
const pgoDatabase = "stackbench_pgo"

// pgoArgs are the checked flags of stackbench pgo.
type pgoArgs struct {
	file, stack, out string
	duration         time.Duration
	connections      int
}

func parsePGOArgs(args []string, env Env) (pgoArgs, error) {
	pro := newPrologue("pgo", pgoSynopsis, "comparison file", "", env)
	fs, file := pro.fs, pro.file
	only := stacksFlag(fs, "the stack to profile (required, one): a Go server that honours "+pgoProfileEnv)
	duration := fs.Duration("d", 30*time.Second, "total load, shared equally by the workload's cases")
	connections := fs.Int("c", 32, "connections of the load")
	out := fs.String("out", "", "where to write the profile (required), e.g. apps/nethttp-pgx-pgo/cpu.pgo")
	format := fs.String("o", "", "not a file here either: -o is the output format in every command; write the profile's path with --out")
	if err := pro.parse(args); err != nil {
		return pgoArgs{}, err
	}
	switch {
	case *format != "":
		return pgoArgs{}, usagef("-o %s: -o is an output format in every command; name the profile's file with --out %s", *format, *format)
	case len(*only) == 0:
		return pgoArgs{}, usagef("--stacks is required: the stack whose CPU profile to collect, e.g. --stacks nethttp-pgx")
	case len(*only) > 1:
		return pgoArgs{}, usagef("--stacks %s: pgo profiles one stack at a time; name one", only)
	case *out == "":
		return pgoArgs{}, usagef("--out is required: where to write the profile, e.g. --out apps/nethttp-pgx-pgo/cpu.pgo")
	case *duration < time.Second:
		return pgoArgs{}, usagef("-d %v: want at least 1s of load (30s to 60s makes a good profile)", *duration)
	case *connections < 1:
		return pgoArgs{}, usagef("-c %d: want at least 1 connection", *connections)
	}
	return pgoArgs{file: *file, stack: (*only)[0], out: resolvePath(env, *out), duration: *duration, connections: *connections}, nil
}

func runPGO(ctx context.Context, args []string, env Env) error {
	a, err := parsePGOArgs(args, env)
	if err != nil {
		return err
	}
	f, err := readComparison(env, a.file, nil)
	if err != nil {
		return err
	}
	s, ok := f.Stack(a.stack)
	if !ok {
		return usagef("--stacks %s: %s has no such stack; it has %s", a.stack, f.Name, strings.Join(f.StackNames(), ", "))
	}
	logDir, err := os.MkdirTemp("", "stackbench-pgo-")
	if err != nil {
		return fmt.Errorf("make the log directory: %w", err)
	}
	say := func(line string) { fmt.Fprintln(env.Stderr, line) }
	size, err := collectProfile(ctx, f, s, a, logDir, say)
	if ctx.Err() != nil {
		os.RemoveAll(logDir)
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("%w\nlogs are in %s", err, logDir)
	}
	os.RemoveAll(logDir)
	fmt.Fprintf(env.Stdout, "wrote %s: %d bytes, the CPU profile of %s under %v of %s load\n", a.out, size, s.Name, a.duration, f.Workload.Name)
	fmt.Fprintln(env.Stdout, pgoNext(a.out))
	return nil
}

// pgoNext says how the profile written to out reaches a build.
func pgoNext(out string) string {
	if filepath.Base(out) == "default.pgo" {
		return "go build reads default.pgo from the main package's directory: rebuild the stack and commit the file"
	}
	return "go build reads this profile only when told: build with -pgo=" + out + " (the stack's build command, then rebuild and commit the file), or name it default.pgo in the main package's directory"
}

// collectProfile builds and starts the stack with pgoProfileEnv set, drives
// every case of the workload for its share of the duration, stops the stack
// (which writes the profile) and installs the profile at a.out.
func collectProfile(ctx context.Context, f *plan.File, s plan.Stack, a pgoArgs, logDir string, say func(string)) (int, error) {
	if s.Build != "" {
		say(fmt.Sprintf("pgo: build %s: %s", s.Name, s.Build))
	}
	if err := stack.Build(ctx, s, filepath.Join(logDir, s.Name+".build.log")); err != nil {
		return 0, err
	}
	h := stack.Harness{Workload: f.Workload.Name, JWTSecret: f.JWTSecret}
	if f.Workload.NeedsDatabase {
		db, err := stack.OpenFileDatabase(ctx, f, os.TempDir(), say)
		if err != nil {
			return 0, err
		}
		defer db.Close(true)
		if h.DatabaseURL, err = db.FreshFor(ctx, s, stack.CopyName(pgoDatabase)); err != nil {
			return 0, err
		}
	}
	profile := filepath.Join(logDir, "cpu.pprof")
	p, err := stack.Start(ctx, withEnv(s, pgoProfileEnv, profile), h, logDir)
	if err != nil {
		return 0, err
	}
	loadErr := driveCases(ctx, f.WorkloadOf(s.Name), s.BaseURL("127.0.0.1:"+strconv.Itoa(p.Port())), a, say)
	stopErr := p.Stop(stack.StopGrace)
	if err := errors.Join(loadErr, stopErr); err != nil {
		return 0, err
	}
	data, err := readProfile(profile)
	if err != nil {
		return 0, fmt.Errorf("stack %s: %w; it must honour %s (write a runtime/pprof CPU profile to that file and stop it on SIGTERM before exiting; the Go reference servers do it in saas.ServeHTTP)\n%s",
			s.Name, err, pgoProfileEnv, fileutil.Tail(filepath.Join(logDir, s.Name+".log"), 0))
	}
	if err := fileutil.WriteFile(a.out, data, 0o644); err != nil {
		return 0, fmt.Errorf("%w (does the directory of -o exist?)", err)
	}
	return len(data), nil
}

// withEnv returns s with one more environment variable, leaving s's own map
// untouched.
func withEnv(s plan.Stack, key, value string) plan.Stack {
	env := make(map[string]string, len(s.Env)+1)
	for k, v := range s.Env {
		env[k] = v
	}
	env[key] = value
	s.Env = env
	s.EnvOrder = append(slices.Clip(s.EnvOrder), key)
	return s
}

// driveCases loads each case in turn for an equal share of the duration, as
// a run gives each case an equal window. A case that gets no success would
// leave its code out of the profile, so it is an error.
func driveCases(ctx context.Context, w *workload.Workload, baseURL string, a pgoArgs, say func(string)) error {
	share := (a.duration / time.Duration(len(w.Cases))).Round(time.Millisecond)
	for _, c := range w.Cases {
		cfg := c.LoadConfig(baseURL)
		cfg.Connections, cfg.Duration = a.connections, share
		res, err := load.Run(ctx, cfg)
		if err != nil {
			return fmt.Errorf("load case %s: %w", c.Name, err)
		}
		say(fmt.Sprintf("pgo: %-8s %7.0f req/s for %v, %d errors", c.Name, res.ThroughputRPS, share, res.ErrorCount()))
		if res.Successes == 0 {
			return fmt.Errorf("case %s: no request succeeded in %d attempts (errors %v); run stackbench parity -f FILE --stacks NAME to see why", c.Name, res.Attempts, res.Errors)
		}
	}
	return nil
}

// readProfile reads a CPU profile and checks that it is what runtime/pprof
// writes: a complete gzip stream, not empty.
func readProfile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("it wrote no CPU profile to %s", path)
	}
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("its CPU profile %s (%d bytes) is not gzip-compressed as runtime/pprof writes it: %v", path, len(data), err)
	}
	n, err := io.Copy(io.Discard, zr)
	if err != nil || n == 0 {
		return nil, fmt.Errorf("its CPU profile %s is truncated or empty (%d bytes decompressed, %v)", path, n, err)
	}
	return data, nil
}
