// Package spawn is the process suite: commands timed from spawn to exit
// over a size parameter, as a DI framework's page timed a whole process
// building a container of N providers.
//
// Every command runs at every size: first Warmup unmeasured runs each (they
// warm the file cache and the page cache of the binary), then Rounds
// measured rounds. Within a round, each size visits the commands in an
// order rotated by one per round, so that no command always runs first or
// right after the same neighbour. A run is spawned without a shell (the
// shell's own start would be measured) with the size both substituted for
// {size} in its arguments and passed as STACKBENCH_SIZE.
//
// A run whose exit status is not 0 (or that outlives Timeout) fails its
// cell: the cell's figures are dropped and the suite reports the failure.
// A program may report figures measured inside itself on lines of its
// standard output of the form
//
//	stackbench-metric: container_ms=1.23 providers=1000
//
// (see ParseMetrics); each name's median is reported beside the wall time.
// Run returns plain data; internal/analysis calls each command against the
// first (ProcessCalls), and the report renders it.
package spawn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// SizeEnv is the variable that carries the size to every run.
const SizeEnv = "STACKBENCH_SIZE"

// SizePlaceholder is replaced by the size in a command's arguments.
const SizePlaceholder = "{size}"

// Command is one variant.
type Command struct {
	Name string
	Dir  string
	// Argv is the program and its arguments, {size} not yet substituted.
	// A relative program path with a '/' is resolved against Dir.
	Argv []string
	// Env is added to the harness's environment.
	Env []string
}

// Options configures Run.
type Options struct {
	Sizes  []int
	Warmup int
	// Rounds is the number of measured runs per command and size; 0 means 10.
	Rounds int
	// Timeout bounds one run; 0 means 60 s.
	Timeout time.Duration
	// Progress, when set, receives a line per round.
	Progress func(line string)
}

// Sample is one measured run.
type Sample struct {
	Command string `json:"command"`
	Size    int    `json:"size"`
	Round   int    `json:"round"`
	// Seq is the run's position among all measured runs, from 0.
	Seq int `json:"seq"`
	// Wall is spawn → exit (the wait for the exit status included).
	Wall time.Duration `json:"wall_ns"`
	// Metrics are the figures the program printed (see ParseMetrics).
	Metrics  map[string]float64 `json:"metrics,omitempty"`
	ExitCode int                `json:"exit_code"`
	Error    string             `json:"error,omitempty"`
}

// Result is the whole suite.
type Result struct {
	Sizes    []int    `json:"sizes"`
	Commands []string `json:"commands"`
	Warmup   int      `json:"warmup"`
	Rounds   int      `json:"rounds"`
	Samples  []Sample `json:"samples"`
	Cells    []Cell   `json:"cells"`
	// Calls compare each command with the first one at each size; Run
	// leaves them nil for analysis.ProcessCalls to decide.
	Calls []Call `json:"calls"`
}

// Failed reports whether any cell failed.
func (r Result) Failed() bool {
	for _, c := range r.Cells {
		if c.Error != "" {
			return true
		}
	}
	return false
}

// Run runs the suite. A failing run is data (it fails its cell); only a
// cancelled context ends it early, with ctx.Err().
func Run(ctx context.Context, cmds []Command, opt Options) (Result, error) {
	if opt.Rounds <= 0 {
		opt.Rounds = 10
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 60 * time.Second
	}
	res := Result{Sizes: opt.Sizes, Warmup: opt.Warmup, Rounds: opt.Rounds}
	for _, c := range cmds {
		res.Commands = append(res.Commands, c.Name)
	}
	failed := map[[2]any]string{} // (command, size) → first failure
	for _, size := range opt.Sizes {
		for _, c := range cmds {
			for range opt.Warmup {
				s := runOnce(ctx, c, size, opt.Timeout)
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				if s.Error != "" {
					failed[[2]any{c.Name, size}] = "warm-up run: " + s.Error
					break
				}
			}
		}
	}
	for r := range opt.Rounds {
		for _, size := range opt.Sizes {
			for i := range cmds {
				c := cmds[(r+i)%len(cmds)]
				if _, bad := failed[[2]any{c.Name, size}]; bad {
					continue
				}
				s := runOnce(ctx, c, size, opt.Timeout)
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				s.Round, s.Seq = r, len(res.Samples)
				res.Samples = append(res.Samples, s)
				if s.Error != "" {
					failed[[2]any{c.Name, size}] = fmt.Sprintf("round %d: %s", r+1, s.Error)
				}
			}
		}
		opt.progress("process: round %d/%d done", r+1, opt.Rounds)
	}
	res.Cells = cells(res, func(name string, size int) string { return failed[[2]any{name, size}] })
	return res, nil
}

func (opt Options) progress(format string, a ...any) {
	if opt.Progress != nil {
		opt.Progress(fmt.Sprintf(format, a...))
	}
}

// tailBytes is how much of a failing run's output its error quotes.
const tailBytes = 1000

// runOnce spawns one run of c at size and waits for its exit.
func runOnce(ctx context.Context, c Command, size int, timeout time.Duration) Sample {
	s := Sample{Command: c.Name, Size: size}
	argv := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		argv[i] = strings.ReplaceAll(a, SizePlaceholder, strconv.Itoa(size))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if strings.Contains(argv[0], "/") && !strings.HasPrefix(argv[0], "/") {
		cmd.Path = filepath.Join(c.Dir, argv[0])
	}
	cmd.Dir = c.Dir
	cmd.Env = append(append(os.Environ(), c.Env...), SizeEnv+"="+strconv.Itoa(size))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	local.Group(cmd)
	local.CancelGroup(cmd)
	start := time.Now()
	err := local.Run(cmd)
	s.Wall = time.Since(start)
	s.ExitCode = cmd.ProcessState.ExitCode()
	var perr error
	s.Metrics, perr = ParseMetrics(stdout.Bytes())
	var exit *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		s.Error = fmt.Sprintf("%s did not exit within %s", strings.Join(argv, " "), timeout)
	case errors.As(err, &exit):
		s.Error = fmt.Sprintf("%s: %v%s", strings.Join(argv, " "), err, quote(stderr.Bytes()))
	case err != nil:
		s.Error = fmt.Sprintf("start %s in %s: %v", strings.Join(argv, " "), c.Dir, err)
	case perr != nil:
		s.Error = perr.Error()
	}
	return s
}

// quote is the end of a run's output, for an error message.
func quote(out []byte) string {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return ""
	}
	if len(out) > tailBytes {
		out = out[len(out)-tailBytes:]
	}
	return "\n" + string(out)
}
