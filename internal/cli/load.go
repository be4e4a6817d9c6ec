package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/load/grpcmsg"
)

func init() {
	register(Command{Name: "load", Short: "load one URL (closed or open loop) and report throughput, errors and latency", Order: 10, Run: runLoad})
}

func runLoad(ctx context.Context, args []string, env Env) error {
	f, cfg, err := parseLoadArgs(args, env)
	if err != nil {
		return err
	}
	res, stopped, err := driveLoad(ctx, f, cfg, env)
	if err != nil {
		return err
	}
	if f.Output == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if err := res.WriteText(env.Stdout); err != nil {
		return err
	}
	return loadExit(res, stopped)
}

// parseLoadArgs parses the command line into its flags and the engine's
// Config.
func parseLoadArgs(args []string, env Env) (load.Flags, load.Config, error) {
	var f load.Flags
	fs := newFlagSet("load", "[flags] URL", env)
	f.Register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return f, load.Config{}, err
	}
	if len(pos) != 1 {
		return f, load.Config{}, usagef("want exactly one URL, got %d arguments; usage: stackbench load [flags] URL", len(pos))
	}
	cfg, err := loadConfig(f, pos[0], flagSet(fs, "R"), env)
	return f, cfg, err
}

// driveLoad runs the engine with the events written to --events-fd and
// shown on the terminal. A run stopped by a signal returns its result with
// the *load.StoppedError.
func driveLoad(ctx context.Context, f load.Flags, cfg load.Config, env Env) (*load.Result, *load.StoppedError, error) {
	events, err := openEvents(f.EventsFD)
	if err != nil {
		return nil, nil, err
	}
	live := newLiveLine(env, f.Warmup > 0)
	cfg.Progress = func(e load.Event) {
		events.write(e)
		live.show(e)
	}
	defer spareP()()
	if path := env.lookup(loadProfileEnv); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			return nil, nil, err
		}
		defer stop()
	}
	res, err := load.Run(ctx, cfg)
	live.clear()
	events.close()
	var ce *load.ConfigError
	if errors.As(err, &ce) {
		return nil, nil, usagef("%v", ce)
	}
	var stopped *load.StoppedError
	if err != nil && !(errors.As(err, &stopped) && res != nil) {
		return nil, nil, err
	}
	return res, stopped, nil
}

// loadExit is the command's exit status after the result is written: 130
// when stopped, 1 when nothing succeeded.
func loadExit(res *load.Result, stopped *load.StoppedError) error {
	if stopped != nil {
		what := "after the measured window, in the drain: the window is whole"
		if res.Interrupted {
			what = fmt.Sprintf("%.1f s into the measured window: the figures above cover those %.1f s", res.DurationSeconds, res.DurationSeconds)
		}
		return &ExitError{Code: ExitInterrupted, Msg: "interrupted " + what}
	}
	if res.Successes == 0 {
		return &ExitError{Code: ExitGateFailed, Msg: fmt.Sprintf("no request succeeded in %d attempts; the error split is above", res.Attempts)}
	}
	return nil
}

// loadConfig checks the flags and builds the engine's Config, reading the
// files they name.
func loadConfig(f load.Flags, url string, rateSet bool, env Env) (load.Config, error) {
	switch {
	case f.Output != "text" && f.Output != "json":
		return load.Config{}, usagef("-o %q: want text or json", f.Output)
	case rateSet && !(f.Rate > 0 && f.Rate < math.Inf(1)):
		return load.Config{}, usagef("-R %v: the rate must be above 0 requests per second", f.Rate)
	}
	cfg, err := f.Config(url)
	if err != nil {
		return cfg, usagef("%v", err)
	}
	if f.BodyFile != "" {
		b, err := os.ReadFile(resolvePath(env, f.BodyFile))
		if err != nil {
			return cfg, usagef("--body-file: %v", err)
		}
		cfg.Body = b
	}
	if f.CACert != "" {
		pem, err := os.ReadFile(resolvePath(env, f.CACert))
		if err != nil {
			return cfg, usagef("--cacert: %v", err)
		}
		cfg.CACertPEM = pem
	}
	if f.GRPC != "" {
		m, err := grpcMethod(f, cfg, url, env)
		if err != nil {
			return cfg, err
		}
		cfg.GRPC = &load.GRPCCall{Method: m.Name}
		if f.Messages != "" {
			if cfg.GRPC.Messages, err = grpcMessages(m, resolvePath(env, f.Messages)); err != nil {
				return cfg, usagef("--messages %s: %v", f.Messages, err)
			}
		} else if cfg.GRPC.Message, err = m.Encode(f.Message); err != nil {
			return cfg, usagef("--message: %v", err)
		}
		if f.Metadata != "" {
			if cfg.GRPC.Metadata, err = grpcMetadata(resolvePath(env, f.Metadata)); err != nil {
				return cfg, usagef("--metadata %s: %v", f.Metadata, err)
			}
			if n := max(1, len(cfg.GRPC.Messages)); len(cfg.GRPC.Metadata) != n {
				return cfg, usagef("--metadata %s: %d lines for %d messages; write one line of metadata per message", f.Metadata, len(cfg.GRPC.Metadata), n)
			}
		}
	}
	if f.Requests != "" {
		file, err := os.Open(resolvePath(env, f.Requests))
		if err != nil {
			return cfg, usagef("--requests: %v", err)
		}
		defer file.Close()
		pool, err := load.ReadRequests(file)
		if err != nil {
			return cfg, usagef("--requests %s: %v", f.Requests, err)
		}
		cfg.Requests = pool
	}
	if f.Flow != "" {
		flow, err := load.ReadFlow(resolvePath(env, f.Flow))
		if err != nil {
			return cfg, usagef("--flow %s: %v", f.Flow, err)
		}
		cfg.Flow = flow
	}
	return cfg, nil
}

// eventStream writes run events as JSON lines to an inherited descriptor.
type eventStream struct {
	f *os.File
}

func openEvents(fd int) (*eventStream, error) {
	if fd < 0 {
		return &eventStream{}, nil
	}
	f := os.NewFile(uintptr(fd), "events")
	if f == nil {
		return nil, usagef("--events-fd %d: not a file descriptor", fd)
	}
	if _, err := f.Stat(); err != nil {
		return nil, usagef("--events-fd %d: the descriptor is not open (%v); pass one the parent process inherited to stackbench", fd, err)
	}
	return &eventStream{f: f}, nil
}

func (s *eventStream) write(e load.Event) {
	if s.f == nil {
		return
	}
	b, _ := e.MarshalJSON()
	s.f.Write(append(b, '\n'))
}

func (s *eventStream) close() {
	if s.f != nil {
		s.f.Close()
	}
}

// liveLine is the one status line shown on a terminal during a run.
type liveLine struct {
	mu      sync.Mutex
	w       io.Writer
	shown   bool
	enabled bool
}

func newLiveLine(env Env, warmup bool) *liveLine {
	l := &liveLine{w: env.Stderr, enabled: env.StderrIsTerminal}
	if l.enabled && warmup {
		fmt.Fprint(l.w, "\rwarming up…")
		l.shown = true
	}
	return l
}

func (l *liveLine) show(e load.Event) {
	if !l.enabled || e.Kind != load.Tick {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "\r\033[K%4ds  %10d req/s  %d errors", e.ElapsedSeconds, e.Successes, e.Errors)
	l.shown = true
}

func (l *liveLine) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		fmt.Fprint(l.w, "\r\033[K")
		l.shown = false
	}
}

// loadProfileEnv names a file for the load command's own CPU profile
// (pprof), of the whole run: what bench/wire/tls.sh reads to say where
// the generator's CPU goes.
const loadProfileEnv = "STACKBENCH_LOAD_CPUPROFILE"

// startCPUProfile writes a CPU profile to path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loadProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", loadProfileEnv, err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// spareP gives the program one P more than the cores, so the engine's
// workers (one per core) can keep theirs while they wait (see
// internal/load/rawsys.go); the returned function restores the setting.
func spareP() (restore func()) {
	if procs := runtime.NumCPU() + 1; runtime.GOMAXPROCS(0) < procs {
		old := runtime.GOMAXPROCS(procs)
		return func() { runtime.GOMAXPROCS(old) }
	}
	return func() {}
}

// grpcMessages reads a file of request messages, one JSON message a
// line (blank lines skipped), and encodes each.
func grpcMessages(m *grpcmsg.Method, file string) ([][]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		msg, err := m.Encode(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		out = append(out, msg)
	}
	if len(out) == 0 {
		return nil, errors.New("the file has no message; write one JSON message a line")
	}
	return out, nil
}

// grpcMetadata reads a file of gRPC request metadata, one JSON object of
// names to values a line (blank lines skipped), each checked as
// load.CheckGRPCMetadata does, its names in sorted order.
func grpcMetadata(file string) ([][]load.Header, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out [][]load.Header
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var m map[string]string
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return nil, fmt.Errorf("line %d: not a JSON object of names to values, like {\"authorization\": \"Bearer …\"}: %v", i+1, err)
		}
		md := make([]load.Header, 0, len(m))
		for _, name := range slices.Sorted(maps.Keys(m)) {
			if err := load.CheckGRPCMetadata(name, m[name]); err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			md = append(md, load.Header{Name: name, Value: m[name]})
		}
		out = append(out, md)
	}
	if len(out) == 0 {
		return nil, errors.New("the file has no line; write one JSON object of metadata a line")
	}
	return out, nil
}

// grpcMethod finds the --grpc method's descriptors: in --proto, or from
// the server at url (--reflect), once, before the run.
func grpcMethod(f load.Flags, cfg load.Config, rawURL string, env Env) (*grpcmsg.Method, error) {
	if !f.Reflect {
		m, err := grpcmsg.Load(resolvePath(env, f.Proto), f.GRPC)
		if err != nil {
			return nil, usagef("--grpc %s --proto %s: %v", f.GRPC, f.Proto, err)
		}
		return m, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, usagef("%q is not a URL like http://127.0.0.1:9090/", rawURL)
	}
	if !f.AllowRemote {
		// Asked before the engine checks its target: the same rule.
		ips, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", u.Hostname())
		if err != nil || len(ips) == 0 || !ips[0].Unmap().IsLoopback() {
			return nil, usagef("%s is not a loopback address; stackbench loads only this machine unless you allow a remote target on purpose (--allow-remote)", u.Hostname())
		}
	}
	m, err := grpcmsg.Reflect(context.Background(), u.Host, f.TLS || u.Scheme == "https", cfg.CACertPEM, f.GRPC)
	if err != nil {
		return nil, usagef("--grpc %s --reflect: %v", f.GRPC, err)
	}
	return m, nil
}
