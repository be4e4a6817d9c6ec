package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/load"
)

func init() {
	register(Command{Name: "load", Short: "load one URL (closed or open loop) and report throughput, errors and latency", Order: 10, Run: runLoad})
}

// loadFlags are the flags of stackbench load.
type loadFlags struct {
	connections int
	rate        float64
	duration    time.Duration
	warmup      time.Duration
	method      string
	headers     stringList
	body        string
	bodyFile    string
	requests    string
	expect      string
	timeout     time.Duration
	output      string
	allowRemote bool
	eventsFD    int
}

func runLoad(ctx context.Context, args []string, env Env) error {
	var f loadFlags
	fs := newFlagSet("load", "[flags] URL", env)
	f.registerTarget(fs, load.DefaultConnections)
	fs.Float64Var(&f.rate, "R", 0, "open loop: requests per second in total (default: closed loop)")
	fs.DurationVar(&f.duration, "d", load.DefaultDuration, "measured duration")
	fs.DurationVar(&f.warmup, "warmup", 0, "warm-up before the measured window, on the same connections, reported apart")
	fs.IntVar(&f.eventsFD, "events-fd", -1, "write run events as JSON lines to this inherited file descriptor")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one URL, got %d arguments; usage: stackbench load [flags] URL", len(pos))
	}
	rateSet := false
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "R" {
			rateSet = true
		}
	})
	cfg, err := f.config(pos[0], rateSet, env)
	if err != nil {
		return err
	}
	events, err := openEvents(f.eventsFD)
	if err != nil {
		return err
	}
	live := newLiveLine(env, f.warmup > 0)
	cfg.Progress = func(e load.Event) {
		events.write(e)
		live.show(e)
	}
	defer spareP()()
	res, err := load.Run(ctx, cfg)
	live.clear()
	events.close()
	var ce *load.ConfigError
	if errors.As(err, &ce) {
		return usagef("%v", ce)
	}
	var stopped *load.StoppedError
	if err != nil && !(errors.As(err, &stopped) && res != nil) {
		return err
	}
	if f.output == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		if err := res.WriteText(env.Stdout); err != nil {
			return err
		}
	}
	if stopped != nil {
		what := "after the measured window, in the drain: the window is whole"
		if res.Interrupted {
			what = fmt.Sprintf("%.1f s into the measured window: the figures above cover those %.1f s", res.DurationSeconds, res.DurationSeconds)
		}
		return &ExitError{Code: 130, Msg: "interrupted " + what}
	}
	if res.Successes == 0 {
		return &ExitError{Code: 1, Msg: fmt.Sprintf("no request succeeded in %d attempts; the error split is above", res.Attempts)}
	}
	return nil
}

// registerTarget defines the flags that say what to send where, shared by
// stackbench load and stackbench capacity: connections, the request, the
// success statuses, the timeout, the output format and --allow-remote.
func (f *loadFlags) registerTarget(fs *flag.FlagSet, connections int) {
	fs.IntVar(&f.connections, "c", connections, "connections, kept alive (open loop: the most in flight)")
	fs.StringVar(&f.method, "m", "GET", "request method")
	fs.Var(&f.headers, "H", "request header 'Name: value' (repeatable)")
	fs.StringVar(&f.body, "b", "", "request body")
	fs.StringVar(&f.bodyFile, "body-file", "", "read the request body from a file")
	fs.StringVar(&f.requests, "requests", "", "JSON-lines pool of requests {method,path,headers,body}, used round-robin")
	fs.StringVar(&f.expect, "expect", "", "statuses that count as success, e.g. 201 or 200,204 (default any 2xx)")
	fs.DurationVar(&f.timeout, "t", load.DefaultTimeout, "request timeout")
	fs.StringVar(&f.output, "o", "text", "output: text or json")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow a target that is not a loopback address")
}

// config checks the flags and builds the engine's Config.
func (f *loadFlags) config(url string, rateSet bool, env Env) (load.Config, error) {
	cfg := load.Config{
		URL: url, Method: f.method, Connections: f.connections, Rate: f.rate,
		Duration: f.duration, Warmup: f.warmup, Timeout: f.timeout, AllowRemote: f.allowRemote,
		Body: []byte(f.body),
	}
	switch {
	case f.output != "text" && f.output != "json":
		return cfg, usagef("-o %q: want text or json", f.output)
	case rateSet && !(f.rate > 0 && f.rate < math.Inf(1)):
		return cfg, usagef("-R %v: the rate must be above 0 requests per second", f.rate)
	case f.connections < 1:
		return cfg, usagef("-c %d: want at least 1 connection", f.connections)
	case f.duration <= 0:
		return cfg, usagef("-d %v: want a positive duration", f.duration)
	case f.timeout < time.Millisecond:
		return cfg, usagef("-t %v: want a timeout of at least 1ms", f.timeout)
	case f.body != "" && f.bodyFile != "":
		return cfg, usagef("-b and --body-file both given; choose one")
	}
	for _, h := range f.headers {
		hd, err := load.ParseHeader(h)
		if err != nil {
			return cfg, usagef("-H: %v", err)
		}
		cfg.Headers = append(cfg.Headers, hd)
	}
	if f.bodyFile != "" {
		b, err := os.ReadFile(resolvePath(env, f.bodyFile))
		if err != nil {
			return cfg, usagef("--body-file: %v", err)
		}
		cfg.Body = b
	}
	if f.requests != "" {
		file, err := os.Open(resolvePath(env, f.requests))
		if err != nil {
			return cfg, usagef("--requests: %v", err)
		}
		defer file.Close()
		pool, err := load.ReadRequests(file)
		if err != nil {
			return cfg, usagef("--requests %s: %v", f.requests, err)
		}
		cfg.Requests = pool
	}
	if f.expect != "" {
		for _, s := range strings.Split(f.expect, ",") {
			code, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || code < 100 || code > 999 {
				return cfg, usagef("--expect %q: want HTTP statuses like 201 or 200,204", f.expect)
			}
			cfg.Expect = append(cfg.Expect, code)
		}
	}
	return cfg, nil
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

func resolvePath(env Env, p string) string {
	if filepath.IsAbs(p) || env.Dir == "" {
		return p
	}
	return filepath.Join(env.Dir, p)
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
