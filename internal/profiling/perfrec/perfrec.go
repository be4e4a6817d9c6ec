// Package perfrec runs perf: it checks that perf may record here, records
// every CPU (or, where only that is allowed, given processes) around a
// profile window, and converts the recording into pprof profiles of
// given processes over the window (profiling.ParsePerfScript). The
// profiling phase uses it on this machine, and the agent on a server host
// (internal/agent), so that both record alike.
package perfrec

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/stackbench/stackbench/internal/profiling"
)

// RateHz is perf's sampling frequency in profile windows: at 499 Hz (not
// 500, so as not to beat with timers) a busy core gives five times Go's
// 100 Hz, for an overhead measured under 5 % on the reference stacks
// (docs/profiles.md).
const RateHz = 499

// Scope is what a perf recording targets.
type Scope int

const (
	// AllCPUs records every CPU (-a); the conversion keeps the given
	// processes' samples.
	AllCPUs Scope = iota + 1
	// Processes records the given processes (-p), where every CPU is not
	// allowed.
	Processes
)

// Check records a tenth of a second with the options of a profile window
// (its file in dir, removed) and returns how perf may target the
// recording: AllCPUs when it may record every CPU, Processes when only
// processes (-p), which kernel.perf_event_paranoid at 1 allows a user who
// is not root. perf missing, paranoid above 1 for such a user, and a
// container without the capability all fail here, once, rather than in
// every window.
//
// Every CPU is the first choice. Attached to processes (-p), perf's
// events are switched in and out with every context switch of every
// thread, and a server that serves a database route switches thousands of
// times a second: on this project's 2-core host that cost nethttp-pgx's
// user route 24 % of its throughput at 499 Hz (16 % at 99 Hz), against
// none measurable recording every CPU (bench/profiling/overhead.sh,
// docs/profiles.md). The samples of other processes are dropped when the
// recording is converted.
func Check(ctx context.Context, dir string) (Scope, error) {
	path, err := exec.LookPath("perf")
	if err != nil {
		return 0, errors.New("perf is not installed; on Debian: apt-get install linux-perf")
	}
	out := filepath.Join(dir, ".perf-check.data")
	defer os.Remove(out)
	try := func(target ...string) error {
		args := append([]string{"record", "-e", "cpu-clock", "-F", strconv.Itoa(RateHz), "-g"}, target...)
		cmd := exec.CommandContext(ctx, path, append(args, "-o", out, "--", "sleep", "0.1")...)
		b, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, FirstLine(b))
		}
		return nil
	}
	if try("-a") == nil {
		return AllCPUs, nil
	}
	if err := try("-p", strconv.Itoa(os.Getpid())); err != nil {
		return 0, fmt.Errorf("perf record failed (%v); as root, or with kernel.perf_event_paranoid at 1 or less, it works", err)
	}
	return Processes, nil
}

// Recording is one perf record under way.
type Recording struct {
	cmd  *exec.Cmd
	out  string
	done chan struct{}
	err  error
}

// Start starts perf record into the file out, on perf's realtime clock,
// over every CPU or (Processes) the processes pids; threads and processes
// they fork later are followed. limit bounds the recording if Stop never
// comes.
func Start(scope Scope, pids []int, out string, limit time.Duration) (*Recording, error) {
	target := []string{"-a"}
	if scope == Processes {
		target = []string{"-p", pidList(pids)}
	}
	args := append([]string{"record", "-q", "-k", "realtime", "-e", "cpu-clock", "-F", strconv.Itoa(RateHz), "-g"}, target...)
	cmd := exec.Command("perf", append(args, "-o", out, "--", "sleep", strconv.Itoa(int(limit/time.Second)+1))...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf record: %w", err)
	}
	r := &Recording{cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		if err := cmd.Wait(); err != nil && !isInterrupted(err) {
			r.err = fmt.Errorf("perf record: %v: %s", err, FirstLine(stderr.Bytes()))
		}
	}()
	return r, nil
}

// Stop ends the recording (perf writes its data on SIGINT), waits for it
// and returns its file.
func (r *Recording) Stop() (string, error) {
	r.cmd.Process.Signal(os.Interrupt)
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		r.cmd.Process.Kill()
		<-r.done
	}
	if r.err != nil {
		os.Remove(r.out)
		return "", r.err
	}
	if _, err := os.Stat(r.out); err != nil {
		return "", fmt.Errorf("perf record wrote no data (stopped before it had started?): %w", err)
	}
	return r.out, nil
}

// isInterrupted is true for perf's exit after the SIGINT that stops it.
func isInterrupted(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && (ee.ExitCode() == 130 || ee.ExitCode() == -1 || ee.ExitCode() == 0)
}

// Convert turns the recording in data into one profile per set of pids:
// their samples from the instant from to the instant to (wall clock, as
// perf's realtime clock gives them), each profile's duration the
// window's. Go binaries among the mappings are named as the stack's own
// code (MainModules) in the first profile, the server's. data is removed.
func Convert(ctx context.Context, data string, from, to time.Time, sets ...map[int]bool) ([]*profile.Profile, error) {
	defer os.Remove(data)
	cmd := exec.CommandContext(ctx, "perf", "script", "-F", profiling.PerfScriptFields, "-i", data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	text, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("perf script: %v: %s", err, FirstLine(stderr.Bytes()))
	}
	f, t := float64(from.UnixNano())/1e9, float64(to.UnixNano())/1e9
	dur := to.Sub(from).Nanoseconds()
	var out []*profile.Profile
	for i, set := range sets {
		p, err := profiling.ParsePerfScript(bytes.NewReader(text), func(pid int, at float64) bool { return set[pid] && at >= f && at <= t }, RateHz)
		if err != nil {
			return nil, err
		}
		p.DurationNanos = dur
		if i == 0 {
			p.Comments = append(p.Comments, MainModules(p)...)
		}
		out = append(out, p)
	}
	return out, nil
}

// MainModules names the main module of every Go binary among a perf
// profile's mappings, as profiling.MainModuleComment comments: perf's
// frames carry no source file, and this is how their functions are known
// as the stack's own code. It reads the binaries, so it runs on the host
// that recorded.
func MainModules(p *profile.Profile) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range p.Mapping {
		if !filepath.IsAbs(m.File) {
			continue // [kernel.kallsyms], [vdso]
		}
		info, err := buildinfo.ReadFile(m.File)
		if err != nil || info.Main.Path == "" || seen[info.Main.Path] {
			continue
		}
		seen[info.Main.Path] = true
		out = append(out, profiling.MainModuleComment+info.Main.Path)
	}
	return out
}

// PIDSet is pids as a set.
func PIDSet(pids []int) map[int]bool {
	m := map[int]bool{}
	for _, p := range pids {
		m[p] = true
	}
	return m
}

// pidList is the comma-separated pids.
func pidList(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}

// FirstLine is the first line of a command's output, trimmed.
func FirstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
